"""``tf.contrib.training``: ``HParams`` (defined in ``estimator_npu.utils.hparams``) and the
parameter-server placement strategies of ``estimator_npu.train.device_setter``."""
from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.train.device_setter import (GreedyLoadBalancingStrategy,  # noqa: F401
                                               byte_size_load_fn)
from estimator_npu.utils.hparams import HParams  # noqa: F401

__getattr__ = _module_getattr(__name__)
__all__ = ["GreedyLoadBalancingStrategy", "HParams", "byte_size_load_fn"]
