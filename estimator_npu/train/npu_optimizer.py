"""``NPUOptimizer``: loss scaling and distributed gradient averaging in one wrapper (seed 002).

::

    manager = ExponentialUpdateLossScaleManager(init_loss_scale=2**32,
                                                incr_every_n_steps=1000,
                                                decr_every_n_nan_or_inf=2, decr_ratio=0.5)
    opt = NPUOptimizer(LAMBOptimizer(1e-4), manager, is_distributed=True,
                       is_loss_scale=True, is_tailing_optimization=True)
    train_op = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())

It is the composition of the two single-purpose wrappers::

    inner = opt
    if is_distributed:  inner = NPUDistributedOptimizer(inner, is_tailing_optimization)
                        # averages the gradients inside the update (its grad_hook)
    if is_loss_scale:   inner = NPULossScaleOptimizer(inner, manager, is_distributed)
                        # scales, unscales, skips non-finite steps on every worker alike

Unscaling is a multiplication by ``1 / scale``, so averaging across workers and unscaling
commute (exactly when the scale is a power of two). In one process averaging is the
identity and ``is_distributed`` changes nothing. ``is_tailing_optimization`` acts only
with ``is_distributed`` and must equal the run config's setting: each ``NPUOptimizer``
that built an update op is in its graph's ``NPU_OPTIMIZERS`` collection, so the
Estimator can call ``check_tailing_matches(config.is_tailing_optimization)`` on each.
"""
from estimator_npu.train.loss_scale_optimizer import (NPULossScaleOptimizer,
                                                      check_manager, check_optimizer)
from estimator_npu.train.optimizer import Optimizer
from estimator_npu.utils import logging, validation

NPU_OPTIMIZERS = "npu_optimizers"   # graph collection of the NPUOptimizers that built ops


def _distributed(opt, is_tailing_optimization):
    """``opt`` wrapped to average gradients across workers."""
    try:
        from estimator_npu.train.distributed_optimizer import NPUDistributedOptimizer
    except ImportError:  # pragma: no cover - the distributed wrapper ships with the package
        from estimator_npu.distribute import collective
        if collective.size() > 1:
            raise
        return opt  # one process: averaging is the identity
    return NPUDistributedOptimizer(opt, is_tailing_optimization=is_tailing_optimization)


class NPUOptimizer(Optimizer):
    """One optimizer wrapper for loss scaling and distributed training (``npu_bridge``).

    Args:
        opt: the single-device optimizer computing gradients and updating the weights.
        loss_scale_manager: a ``FixedLossScaleManager`` or
            ``ExponentialUpdateLossScaleManager``; required when ``is_loss_scale``.
        is_distributed: average the gradients across workers before the update.
        is_loss_scale: enable loss scaling.
        is_tailing_optimization: overlap the update with the last gradient segment's
            all-reduce; only with ``is_distributed`` (otherwise a warning, no effect).
            Must equal ``NPURunConfig(is_tailing_optimization=...)``.
        name: default ``"NPUOptimizer" + type(opt).__name__``.

    Raises:
        ValueError: ``is_loss_scale`` is True and ``loss_scale_manager`` is None.
        TypeError: an argument has the wrong type.
    """

    def __init__(self, opt, loss_scale_manager=None, is_distributed=False, is_loss_scale=False,
                 is_tailing_optimization=False, name=None):
        check_optimizer("opt", opt)
        is_distributed = validation.check_bool("is_distributed", is_distributed)
        is_loss_scale = validation.check_bool("is_loss_scale", is_loss_scale)
        is_tailing = validation.check_bool("is_tailing_optimization", is_tailing_optimization)
        if is_loss_scale and loss_scale_manager is None:
            raise ValueError("is_loss_scale is True, loss_scale_manager can not be None")
        if loss_scale_manager is not None:
            check_manager("loss_scale_manager", loss_scale_manager)
            if not is_loss_scale:
                logging.warning("NPUOptimizer: loss_scale_manager is given but is_loss_scale "
                                "is False; the loss is not scaled.")
        if is_tailing and not is_distributed:
            logging.warning("NPUOptimizer: is_tailing_optimization=True has no effect "
                            "without is_distributed=True.")
        if name is not None:
            validation.check_type("name", name, str)
        super().__init__(use_locking=False, name=name or "NPUOptimizer" + type(opt).__name__)
        self._opt = opt
        self._manager = loss_scale_manager if is_loss_scale else None
        self._is_distributed = is_distributed
        self._is_loss_scale = is_loss_scale
        self._is_tailing = is_tailing
        inner = _distributed(opt, is_tailing) if is_distributed else opt
        if is_loss_scale:
            inner = NPULossScaleOptimizer(inner, loss_scale_manager,
                                          is_distributed=is_distributed)
        self._impl = inner

    @property
    def optimizer(self):
        """The wrapped single-device optimizer."""
        return self._opt

    @property
    def loss_scale_manager(self):
        return self._manager

    @property
    def is_distributed(self):
        return self._is_distributed

    @property
    def is_loss_scale(self):
        return self._is_loss_scale

    @property
    def is_tailing_optimization(self):
        return self._is_tailing

    @property
    def rule(self):
        return self._opt.rule

    def check_tailing_matches(self, config_value):
        """Raises ``ValueError`` unless ``is_tailing_optimization`` equals the run config's.

        Args:
            config_value: ``NPURunConfig.is_tailing_optimization``.
        """
        config_value = validation.check_bool("config is_tailing_optimization", config_value)
        if config_value != self._is_tailing:
            raise ValueError(
                f"NPUOptimizer is_tailing_optimization={self._is_tailing} differs from the "
                f"run config's is_tailing_optimization={config_value} (NPURunConfig); they "
                "must be equal")

    def compute_gradients(self, loss, var_list=None, gate_gradients=Optimizer.GATE_OP,
                          aggregation_method=None, colocate_gradients_with_ops=False,
                          grad_loss=None):
        """This worker's gradients (computed on the scaled loss and unscaled when loss
        scaling is on)."""
        return self._impl.compute_gradients(
            loss, var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None, condition=None,
                        grad_hook=None):
        """The update (averaged across workers when distributed; skipped with
        ``global_step`` unchanged when loss scaling finds a non-finite gradient)."""
        kwargs = {"global_step": global_step, "name": name}
        if condition is not None:
            kwargs["condition"] = condition
        if grad_hook is not None:
            kwargs["grad_hook"] = grad_hook
        op = self._impl.apply_gradients(grads_and_vars, **kwargs)
        if self not in op.graph.get_collection(NPU_OPTIMIZERS):
            op.graph.add_to_collection(NPU_OPTIMIZERS, self)
        return op

    def get_slot(self, var, name):
        return self._opt.get_slot(var, name)

    def get_slot_names(self):
        return self._opt.get_slot_names()

    def variables(self):
        return self._opt.variables()


__all__ = ["NPUOptimizer", "NPU_OPTIMIZERS"]
