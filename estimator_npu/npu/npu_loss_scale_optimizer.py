"""``npu_bridge.estimator.npu.npu_loss_scale_optimizer``: ``NPULossScaleOptimizer``."""
from estimator_npu.train.loss_scale_optimizer import NPULossScaleOptimizer  # noqa: F401
