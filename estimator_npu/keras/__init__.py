"""``tf.keras``: only ``tf.keras.datasets`` (loaders of locally cached data sets) so far;
any other ``tf.keras`` name raises "estimator_npu does not implement tf.keras.X (yet)"."""
from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.keras import datasets  # noqa: F401

__getattr__ = _module_getattr("estimator_npu.keras")
__all__ = ["datasets"]
