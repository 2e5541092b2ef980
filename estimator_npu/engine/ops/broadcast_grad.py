"""Broadcast gradients: summing a gradient down to its input's shape (``SumToShape``) and
broadcasting a value up to a tensor's runtime shape (``BroadcastLike``), each the other's
gradient. Every broadcasting op's gradient goes through ``sum_to_like``."""
import numpy as np

from estimator_npu.engine.ops.core import make_tensor
from estimator_npu.engine.registry import OpFamily, simple

OPS = OpFamily(__name__)  # this family's op definitions (data)


def _sum_to(g, x):
    xs = np.shape(x)
    gs = np.shape(g)
    if gs == xs:
        return g
    nd = len(gs) - len(xs)
    axes = tuple(range(nd)) + tuple(i + nd for i, d in enumerate(xs)
                                    if d == 1 and gs[i + nd] != 1)
    r = np.sum(g, axis=axes, keepdims=True) if axes else g
    return np.reshape(r, xs)


def sum_to_like(g, x):
    """Sums broadcast gradient ``g`` down to the shape of ``x`` (no-op when static shapes
    already agree; a plain reduction when the reduced axes are known statically)."""
    if g is None:
        return None
    if g.shape.is_fully_defined() and g.shape == x.shape:
        return g
    axes = _static_sum_axes(g.shape, x.shape)
    if axes is not None:
        from estimator_npu.engine.ops.reduction_ops import reduce_sum
        if axes and all(a < g.shape.ndims - x.shape.ndims for a in axes):
            return reduce_sum(g, axis=list(axes))   # only leading dims: no reshape needed
        r = reduce_sum(g, axis=list(axes), keepdims=True) if axes else g
        if x.shape.ndims != r.shape.ndims:
            from estimator_npu.engine.ops.array_ops import reshape
            r = reshape(r, x.shape.as_list())
        return r
    return make_tensor("SumToShape", [g, x], g.dtype, x.shape)


def _static_sum_axes(gs, xs):
    """Axes to sum ``gs`` over to get ``xs``, when known without running; else ``None``."""
    if gs.ndims is None or not xs.is_fully_defined() or gs.ndims < xs.ndims:
        return None
    nd = gs.ndims - xs.ndims
    axes = list(range(nd))
    for i, d in enumerate(xs.values):
        gd = gs.values[i + nd]
        if d == 1 and gd != 1:
            axes.append(i + nd)
        elif d != 1 and gd is not None and gd != d:
            return None
    return tuple(axes)


def broadcast_like(a, like):
    """Broadcasts ``a`` to the runtime shape of ``like``."""
    if a.shape.is_fully_defined() and a.shape == like.shape:
        return a
    return make_tensor("BroadcastLike", [a, like], a.dtype, like.shape)


OPS.define("SumToShape", kernel=simple(_sum_to),
           grad=lambda op, dy: [broadcast_like(dy, op.inputs[0]), None])
OPS.define("BroadcastLike", kernel=simple(lambda a, like: np.broadcast_to(a, np.shape(like))),
           grad=lambda op, dy: [sum_to_like(dy, op.inputs[0]), None], may_alias=True)
