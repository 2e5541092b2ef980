"""``npu_bridge.estimator.npu.npu_optimizer``: ``NPUOptimizer``, ``NPUDistributedOptimizer``."""
from estimator_npu.train.distributed_optimizer import NPUDistributedOptimizer  # noqa: F401
from estimator_npu.train.npu_optimizer import NPUOptimizer  # noqa: F401
