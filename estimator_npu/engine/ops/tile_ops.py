"""Growing a tensor: ``pad`` (constant, reflect, symmetric), ``tile`` and ``broadcast_to``,
each with its gradient (``array_ops`` re-exports them)."""
import numpy as np

from estimator_npu.engine.ops.broadcast_grad import sum_to_like
from estimator_npu.engine.ops.core import (broadcast_shape, convert_to_tensor, make_tensor,
                                           static_ints)
from estimator_npu.engine.registry import OpFamily, with_attrs
from estimator_npu.engine.shape import as_shape

OPS = OpFamily(__name__)  # this family's op definitions (data)


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):
    x = convert_to_tensor(tensor)
    pads = tuple(tuple(int(v) for v in p) for p in np.asarray(paddings).tolist())
    mode = mode.upper()
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(f"pad: mode must be CONSTANT, REFLECT or SYMMETRIC, got {mode!r}")
    if x.shape.ndims is not None and len(pads) != x.shape.ndims:
        raise ValueError(f"pad: paddings has {len(pads)} rows for a tensor of rank "
                         f"{x.shape.ndims}")
    shp = [None if d is None else d + a + b for d, (a, b) in zip(x.shape.values, pads)] \
        if x.shape.ndims is not None else None
    return make_tensor("Pad", [x], x.dtype, shp,
                       {"pads": pads, "mode": mode, "value": constant_values}, name=name)


def _pad_kernel(op, ctx):
    pads, mode, value = op.attrs["pads"], op.attrs["mode"], op.attrs["value"]
    if mode == "CONSTANT":
        return lambda x: np.pad(x, pads, mode="constant", constant_values=value)
    return lambda x: np.pad(x, pads, mode=mode.lower())


def _mirror_fold(dy, pads, mode):
    """The adjoint of REFLECT / SYMMETRIC padding: each padded cell's gradient added to the
    input cell it mirrors."""
    g = np.array(dy)
    for axis, (a, b) in enumerate(pads):
        n = g.shape[axis] - a - b
        g = np.moveaxis(g, axis, 0)
        core = g[a:a + n].copy()
        shift = 0 if mode == "SYMMETRIC" else 1
        np.add.at(core, a - 1 - np.arange(a) + shift, g[:a])
        np.add.at(core, n - 1 - np.arange(b) - shift, g[a + n:])
        g = np.moveaxis(core, 0, axis)
    return g


def _pad_grad(op, dy):
    pads = op.attrs["pads"]
    if op.attrs["mode"] != "CONSTANT":
        return [make_tensor("MirrorPadGrad", [dy], dy.dtype, op.inputs[0].shape, dict(
            op.attrs))]
    begin = [a for a, _ in pads]
    size = [-1 if d is None else d for d in op.inputs[0].shape.values] \
        if op.inputs[0].shape.is_fully_defined() else None
    if size is None:
        return [make_tensor("Unpad", [dy], dy.dtype, op.inputs[0].shape, {"pads": pads})]
    from estimator_npu.engine.ops.slice_ops import slice as slice_op
    return [slice_op(dy, begin, size)]


OPS.define("Pad", kernel=_pad_kernel, grad=_pad_grad)
OPS.define("MirrorPadGrad", kernel=lambda op, ctx: (lambda dy: _mirror_fold(
    dy, op.attrs["pads"], op.attrs["mode"])), grad=lambda op, g: [pad(
        g, op.attrs["pads"], op.attrs["mode"])])
OPS.define("Unpad", kernel=lambda op, ctx: (lambda x, _p=op.attrs["pads"]: x[tuple(
    slice(a, x.shape[i] - b) for i, (a, b) in enumerate(_p))]),
    grad=lambda op, dy: [pad(dy, op.attrs["pads"])], may_alias=True)


def tile(input, multiples, name=None):  # noqa: A002
    x = convert_to_tensor(input)
    from estimator_npu.engine.ops import dynamic_shape
    if dynamic_shape.is_dynamic(multiples):
        return dynamic_shape.tile_dynamic(x, multiples, name=name)
    m = static_ints(multiples, "multiples", "Tile")
    if m is None:
        raise TypeError(f"tile: multiples must be known when the graph is built (a list of "
                        f"ints or a constant), got the computed tensor {multiples!r}")
    m = tuple(m)
    if x.shape.ndims is not None and len(m) != x.shape.ndims:
        raise ValueError(f"tile: multiples {list(m)} must have one entry per dimension of the "
                         f"input, which has shape {x.shape} (rank {x.shape.ndims})")
    shp = [None if d is None else d * k for d, k in zip(x.shape.values, m)] \
        if x.shape.ndims is not None else None
    return make_tensor("Tile", [x], x.dtype, shp, {"reps": m}, name=name)


def _tile_grad(op, dy):
    x = op.inputs[0]
    return [make_tensor("TileGrad", [dy, x], dy.dtype, x.shape, {"reps": op.attrs["reps"]})]


def _tile_grad_kernel(dy, x, reps):
    xs = np.shape(x)
    shp = []
    for k, d in zip(reps, xs):
        shp.extend([k, d])
    return np.reshape(dy, shp).sum(axis=tuple(range(0, 2 * len(xs), 2)))


OPS.define("Tile", kernel=with_attrs(np.tile, "reps"), grad=_tile_grad)
OPS.define("TileGrad", kernel=with_attrs(_tile_grad_kernel, "reps"),
           grad=lambda op, g: [tile(g, op.attrs["reps"]), None])


def broadcast_to(input, shape, name=None):  # noqa: A002
    x = convert_to_tensor(input)
    d = static_ints(shape, "shape", "BroadcastTo")
    out = broadcast_shape(x.shape, d, "BroadcastTo")
    if x.shape.ndims is not None and out != as_shape(d):
        raise ValueError(f"BroadcastTo: cannot broadcast {x.shape} to {d}")
    return make_tensor("BroadcastTo", [x], x.dtype, d, {"shape": tuple(d)}, name=name)


OPS.define("BroadcastTo", kernel=with_attrs(np.broadcast_to, "shape"),
           grad=lambda op, dy: [sum_to_like(dy, op.inputs[0])], may_alias=True)
