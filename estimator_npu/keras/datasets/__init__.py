"""``tf.keras.datasets``: ``mnist`` and ``fashion_mnist`` ``load_data()`` from the Keras
cache folder (``$KERAS_HOME/datasets``, default ``~/.keras/datasets``); nothing is
downloaded."""
from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.keras.datasets import fashion_mnist, mnist  # noqa: F401

__getattr__ = _module_getattr("estimator_npu.keras.datasets")
__all__ = ["mnist", "fashion_mnist"]
