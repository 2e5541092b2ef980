"""``tf.contrib.tensorboard``: only ``plugins.projector`` is there."""
from estimator_npu.compat.missing import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__, lazy_submodules=("plugins",))
