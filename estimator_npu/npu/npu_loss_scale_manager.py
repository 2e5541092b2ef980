"""``npu_bridge.estimator.npu.npu_loss_scale_manager``: the loss-scale managers."""
from estimator_npu.train.loss_scale import (ExponentialUpdateLossScaleManager,  # noqa: F401
                                            FixedLossScaleManager, LossScaleManager)
