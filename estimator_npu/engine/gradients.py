"""Reverse-mode differentiation over the graph: ``gradients(ys, xs, grad_ys=None)``.

Pseudo-code::

    between = ops on a path from some x to some y
    grads[y] = grad_ys or ones_like(y)
    for op in reversed(topological order of between):
        dys = [sum of gradients collected for each output of op]   # all paths summed
        for x_i, g_i in zip(op.inputs, registry[op.type].grad(op, *dys)):
            collect g_i for x_i
    return [sum of collected gradients for x, or None]

Integer and boolean tensors never receive gradients.
"""
from estimator_npu.engine import gradient_override, registry
from estimator_npu.engine.graph import Tensor
from estimator_npu.engine.ops import math_ops
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.engine.plan import needed_ops


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False,
              gate_gradients=False, aggregation_method=None, stop_gradients=None):
    """Symbolic gradients of ``sum(ys)`` with respect to each of ``xs``.

    Returns:
        A list with one tensor per ``x`` (``None`` where ``x`` is not connected to ``ys``).

    Raises:
        LookupError: an op on the path has no registered gradient.
    """
    ys = [convert_to_tensor(y) for y in _as_list(ys)]
    xs_in = _as_list(xs)
    xs = [convert_to_tensor(x) for x in xs_in]
    if grad_ys is None:
        grad_ys = [None] * len(ys)
    grad_ys = _as_list(grad_ys)
    if len(grad_ys) != len(ys):
        raise ValueError(f"gradients: {len(grad_ys)} grad_ys for {len(ys)} ys")
    stop = {convert_to_tensor(s).op for s in _as_list(stop_gradients or [])}
    g = ys[0].graph
    with g.name_scope(name):
        # ops reachable backwards from ys (data edges only)
        order = needed_ops(ys, set())
        order = [op for op in order if op not in stop]
        xset = {x for x in xs}
        # ops that depend on some x (forward reachability along data edges)
        reaches = set()
        x_ops = {x.op for x in xs}
        for op in order:
            if any(t in xset or t.op in reaches for t in op.inputs) or op in x_ops:
                reaches.add(op)
        acc = {}

        def collect(t, grad):
            if grad is None or not t.dtype.is_differentiable:
                return
            acc.setdefault(t, []).append(grad)

        for y, gy in zip(ys, grad_ys):
            if not y.dtype.is_differentiable:
                continue
            if gy is None:
                from estimator_npu.engine.ops.array_ops import ones_like
                gy = ones_like(y)
            else:
                gy = convert_to_tensor(gy, dtype=y.dtype)
            collect(y, gy)

        def total(t):
            lst = acc.get(t)
            if not lst:
                return None
            if len(lst) > 1:
                if t.dtype.name == "variant":  # TensorArray flows: entry-wise sums
                    from estimator_npu.engine.ops.tensor_array_ops import sum_flow_grads
                    acc[t] = [sum_flow_grads(lst)]
                else:
                    acc[t] = [math_ops.add_n(lst)]
            return acc[t][0]

        for op in reversed(order):
            if op not in reaches or op.type == "VariableV2" and op.outputs[0] in xset:
                continue
            dys = [total(t) for t in op.outputs]
            if all(d is None for d in dys):
                continue
            if not any(t.dtype.is_differentiable and (t in xset or t.op in reaches)
                       for t in op.inputs):
                continue
            overridden, user_grad = gradient_override.override_of(op)
            if overridden:
                if user_grad is None:
                    continue
                in_grads = gradient_override.call(user_grad, op, dys)
                what = f"The registered gradient of {op.name}"
            else:
                opdef = registry.get(op.type)
                if not opdef.differentiable:
                    if any(t.dtype.is_differentiable for t in op.inputs):
                        raise LookupError(f"No gradient defined for operation '{op.name}' "
                                          f"(op type: {op.type})")
                    continue
                if len(op.outputs) == 1:
                    in_grads = opdef.grad(op, dys[0])
                else:
                    in_grads = opdef.grad(op, *dys)
                what = f"Gradient of {op.type}"
            in_grads = list(in_grads)
            if len(in_grads) != len(op.inputs):
                raise RuntimeError(f"{what} returned {len(in_grads)} values for "
                                   f"{len(op.inputs)} inputs")
            for t, gi in zip(op.inputs, in_grads):
                if t in xset or t.op in reaches:
                    collect(t, gi)
        return [total(x) for x in xs]


__all__ = ["gradients", "Tensor"]
