"""``LossScaleOptimizer`` and ``NPULossScaleOptimizer``: loss scaling around any optimizer.

Usage (seed 003, TF1's ``tf.contrib.mixed_precision``)::

    manager = ExponentialUpdateLossScaleManager(init_loss_scale=2**15,
                                                incr_every_n_steps=1000)
    opt = LossScaleOptimizer(tf.train.AdamOptimizer(1e-3), manager)
    train_op = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())

What the wrapper adds to the graph::

    compute_gradients(loss):
        grads = opt.compute_gradients(loss * scale)
        grads, finite = UnscaleGradients(scale, grads)     # one fused op; None passes
        [distributed: finite = allreduce(not finite, "sum") == 0, so all workers agree]
    apply_gradients(grads_and_vars, global_step):
        update = opt.apply_gradients(..., condition=finite)  # finite false: NOTHING
                                                             # changes, global_step too
        adjust = manager.update_loss_scale(finite)           # after update, either way
        return group(update, adjust)

``apply_gradients`` reuses the flag of the ``UnscaleGradients`` op when it receives
exactly that op's gradients; gradients changed in between (clipping, ...) are checked
again by one ``AllFinite`` op.
"""
from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import Tensor
from estimator_npu.engine.ops import math_ops
from estimator_npu.engine.ops.core import convert_to_tensor, group
from estimator_npu.train import loss_scale as _ls
from estimator_npu.train.optimizer import Optimizer
from estimator_npu.utils import validation


def check_optimizer(name, opt):
    """Raises ``TypeError`` unless ``opt`` has the optimizer methods a wrapper calls."""
    for method in ("compute_gradients", "apply_gradients"):
        if not callable(getattr(opt, method, None)):
            raise TypeError(f"{name} must be an optimizer (with compute_gradients and "
                            f"apply_gradients), got {type(opt).__name__}: {opt!r}")
    return opt


def check_manager(name, manager):
    """Raises ``TypeError`` unless ``manager`` is a loss-scale manager."""
    if not (callable(getattr(manager, "get_loss_scale", None))
            and callable(getattr(manager, "update_loss_scale", None))):
        raise TypeError(f"{name} must be a LossScaleManager (with get_loss_scale and "
                        f"update_loss_scale), got {type(manager).__name__}: {manager!r}")
    return manager


def _sum_flag_across_workers(finite):
    """``finite`` on every worker only if it is finite on all of them."""
    from estimator_npu.distribute import allreduce  # the collective layer, on demand
    bad = math_ops.cast(math_ops.logical_not(finite), dtypes.float32)
    return math_ops.equal(allreduce(bad, reduction="sum"), 0.0)


class LossScaleOptimizer(Optimizer):
    """Scales the loss, unscales the gradients and skips non-finite steps.

    Args:
        opt: the wrapped optimizer (any object with ``compute_gradients`` and an
            ``apply_gradients`` accepting ``condition=``).
        loss_scale_manager: a ``LossScaleManager``.

    Raises:
        TypeError: ``opt`` or ``loss_scale_manager`` has the wrong type.
    """

    def __init__(self, opt, loss_scale_manager, name=None):
        check_optimizer("opt", opt)
        check_manager("loss_scale_manager", loss_scale_manager)
        super().__init__(use_locking=False, name=name or "LossScaleOptimizer")
        self._opt = opt
        self._manager = loss_scale_manager
        self._is_distributed = False
        self._flags = {}  # UnscaleGradients op -> its (possibly worker-summed) flag

    @property
    def optimizer(self):
        """The wrapped optimizer."""
        return self._opt

    @property
    def loss_scale_manager(self):
        return self._manager

    @property
    def rule(self):
        return self._opt.rule

    def compute_gradients(self, loss, var_list=None, gate_gradients=Optimizer.GATE_OP,
                          aggregation_method=None, colocate_gradients_with_ops=False,
                          grad_loss=None):
        """The gradients of ``loss`` computed on ``loss * scale``, divided by the scale.

        Returns:
            ``(gradient or None, variable)`` pairs, as ``Optimizer.compute_gradients``.
        """
        loss = convert_to_tensor(loss)
        with loss.graph.as_default():
            scale = self._manager.get_loss_scale()
            scaled = _ls.scale_loss(loss, scale)
            gv = self._opt.compute_gradients(
                scaled, var_list=var_list, gate_gradients=gate_gradients,
                aggregation_method=aggregation_method,
                colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
            gv = list(gv)
            grads, finite = _ls.unscale_gradients([g for g, _ in gv], scale)
            present = [g for g in grads if g is not None]
            if present:
                if self._is_distributed:
                    finite = _sum_flag_across_workers(finite)
                self._flags[present[0].op] = finite
        return list(zip(grads, [v for _, v in gv]))

    def _flag_for(self, grads):
        """The finite flag of ``grads``: the ``UnscaleGradients`` op's when these are all of
        its gradients, else one ``AllFinite`` op."""
        ops = {g.op for g in grads if isinstance(g, Tensor)}
        if len(ops) == 1:
            op = next(iter(ops))
            flag = self._flags.get(op)
            if flag is not None and len(grads) == len(op.outputs) - 1 \
                    and set(grads) == set(op.outputs[:-1]):
                return flag
        finite = _ls.all_finite(grads)
        if self._is_distributed:
            finite = _sum_flag_across_workers(finite)
        return finite

    def apply_gradients(self, grads_and_vars, global_step=None, name=None, condition=None,
                        grad_hook=None):
        """The update op, applied only when every gradient is finite, and the manager's
        adjustment (run either way).

        Args:
            grads_and_vars: ``(gradient or None, variable)`` pairs.
            global_step: incremented only by applied steps.
            name: name of the wrapped optimizer's update op.
            condition: an outer wrapper's extra condition (both must hold).
            grad_hook: passed to the wrapped optimizer.

        Returns:
            A group op running the update and then the loss-scale adjustment.
        """
        try:
            gv = list(grads_and_vars)
        except TypeError:
            raise TypeError("grads_and_vars must be an iterable of (gradient, variable) "
                            f"pairs, got {grads_and_vars!r}") from None
        for item in gv:
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                raise TypeError("grads_and_vars entries must be (gradient, variable) pairs, "
                                f"got {item!r}")
        grads = [convert_to_tensor(g) for g, _ in gv if g is not None]
        if not grads:
            raise ValueError("No gradients provided for any variable: "
                             f"{[getattr(v, 'name', v) for _, v in gv]}.")
        graph = grads[0].graph
        with graph.as_default():
            finite = self._flag_for(grads)
            cond = finite
            if condition is not None:
                cond = math_ops.logical_and(convert_to_tensor(condition), finite)
            kwargs = {"global_step": global_step, "name": name, "condition": cond}
            if grad_hook is not None:
                kwargs["grad_hook"] = grad_hook
            update = self._opt.apply_gradients(gv, **kwargs)
            with graph.control_dependencies([update]):
                adjust = self._manager.update_loss_scale(finite)
            return group(update, adjust, name=self._name + "_update")

    def get_slot(self, var, name):
        return self._opt.get_slot(var, name)

    def get_slot_names(self):
        return self._opt.get_slot_names()

    def variables(self):
        return self._opt.variables()


class NPULossScaleOptimizer(LossScaleOptimizer):
    """``LossScaleOptimizer`` whose overflow flag is agreed by all workers.

    With ``is_distributed=True`` the count of workers whose gradients are not finite is
    summed by an all-reduce, so every worker skips the same steps (wrap an
    ``NPUDistributedOptimizer`` to also average the gradients). In one process this is
    the plain ``LossScaleOptimizer``.

    Args:
        opt: the wrapped optimizer.
        loss_scale_manager: a ``LossScaleManager``.
        is_distributed: sum the overflow flag across workers.

    Raises:
        TypeError: an argument has the wrong type.
    """

    def __init__(self, opt, loss_scale_manager, is_distributed=False, name=None):
        super().__init__(opt, loss_scale_manager,
                         name=name or "NPULossScaleOptimizer")
        self._is_distributed = validation.check_bool("is_distributed", is_distributed)


__all__ = ["LossScaleOptimizer", "NPULossScaleOptimizer", "check_optimizer",
           "check_manager"]
