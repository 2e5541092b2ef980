"""``tf.contrib.mixed_precision``: loss scaling for mixed-precision training.

::

    from estimator_npu import mixed_precision

    manager = mixed_precision.ExponentialUpdateLossScaleManager(
        init_loss_scale=2**15, incr_every_n_steps=1000)
    opt = mixed_precision.LossScaleOptimizer(tf.train.AdamOptimizer(1e-3), manager)
    train_op = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())

See ``docs/mixed_precision.md`` for ``precision_mode`` and the dynamic rule.
"""
from estimator_npu.train.loss_scale import (ExponentialUpdateLossScaleManager,  # noqa: F401
                                            FixedLossScaleManager, LossScaleManager)
from estimator_npu.train.loss_scale_optimizer import LossScaleOptimizer  # noqa: F401

__all__ = ["LossScaleOptimizer", "LossScaleManager", "FixedLossScaleManager",
           "ExponentialUpdateLossScaleManager"]
