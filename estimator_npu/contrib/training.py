"""``tf.contrib.training``: ``HParams`` (defined in ``estimator_npu.utils.hparams``)."""
from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.utils.hparams import HParams  # noqa: F401

__getattr__ = _module_getattr(__name__)
__all__ = ["HParams"]
