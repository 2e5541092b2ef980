"""``tf.contrib.tensorboard.plugins``: the embedding projector."""
from estimator_npu.compat.missing import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__,
                              lazy_submodules=("projector",))
