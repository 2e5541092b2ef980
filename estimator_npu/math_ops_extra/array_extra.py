"""TF1 array ops the engine lacks: ``sort`` / ``argsort``, ``roll``, ``meshgrid``,
``linspace``, ``repeat``, ``batch_gather``, ``searchsorted``, ``histogram_fixed_width``,
``setdiff1d``, ``invert_permutation``, ``unravel_index``; gradients where TF has one."""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.core import convert_to_tensor, make_op, make_tensor
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily, simple, with_attrs

OPS = OpFamily(__name__)  # this family's op definitions (data)


def _int(x, what, op_type):
    t = convert_to_tensor(x)
    if not t.dtype.is_integer:
        raise TypeError(f"{op_type}: {what} must be int32/int64, got {t.dtype.name} ({t.name})")
    return t


def _axis_attr(x, axis, op_type):
    axis = int(axis)
    nd = x.shape.ndims
    if nd is not None:
        if not -nd <= axis < max(nd, 1):
            raise ValueError(f"{op_type}: axis {axis} is out of range for {x.name} of shape "
                             f"{x.shape}")
        axis %= max(nd, 1)
    return axis


# ------------------------------------------------------------------ take / put along an axis
def take_along_axis(x, indices, axis, name=None):
    """``out[..., j, ...] = x[..., indices[..., j, ...], ...]`` along ``axis`` (``indices`` has
    ``x``'s rank); the gradient scatters back (summing repeated indices)."""
    return make_tensor("TakeAlongAxis", [x, indices], x.dtype, indices.shape,
                       {"axis": axis}, name=name)


def _put_along_axis_add(idx, dy, like, axis):
    out = np.zeros(np.shape(like), dtype=dy.dtype)
    grid = list(np.ix_(*[np.arange(n) for n in np.shape(idx)]))
    grid[axis] = np.asarray(idx)
    np.add.at(out, tuple(grid), dy)
    return out


OPS.define("TakeAlongAxis", kernel=with_attrs(
    lambda x, idx, axis: np.take_along_axis(x, np.asarray(idx, np.intp), axis), "axis"),
    grad=lambda op, dy: [make_tensor("PutAlongAxisAdd", [op.inputs[1], dy, op.inputs[0]],
                                     dy.dtype, op.inputs[0].shape, dict(op.attrs)), None])
OPS.define("PutAlongAxisAdd", kernel=with_attrs(_put_along_axis_add, "axis"),
           grad=lambda op, g: [None, take_along_axis(g, op.inputs[0], op.attrs["axis"]), None])


# ------------------------------------------------------------------ sort / argsort
def _check_direction(direction, op_type):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"{op_type}: direction must be 'ASCENDING' or 'DESCENDING', got "
                         f"{direction!r}")


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The indices that sort ``values`` along ``axis`` (ties keep their order)."""
    _check_direction(direction, "argsort")
    x = convert_to_tensor(values)
    return make_tensor("Argsort", [x], dtypes.int32, x.shape,
                       {"axis": int(axis), "descending": direction == "DESCENDING"},
                       name=name or "argsort")


def _argsort(x, axis, descending):
    x = np.asarray(x)
    if descending:
        # stable on the reversed order, then flipped back: ties keep the lower index first
        idx = np.flip(np.argsort(np.flip(x, axis), axis=axis, kind="stable"), axis)
        return (x.shape[axis] - 1 - idx).astype(np.int32)
    return np.argsort(x, axis=axis, kind="stable").astype(np.int32)


OPS.define("Argsort", kernel=with_attrs(_argsort, "axis", "descending"),
           grad=NOT_DIFFERENTIABLE)


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``values`` sorted along ``axis``; the gradient goes back to each element's place."""
    _check_direction(direction, "sort")
    x = convert_to_tensor(values)
    idx = argsort(x, axis, direction)
    ax = int(axis)
    if ax < 0 and x.shape.ndims is not None:
        ax %= max(x.shape.ndims, 1)
    return take_along_axis(x, idx, ax, name=name or "sort")


# ------------------------------------------------------------------ roll
def roll(input, shift, axis, name=None):  # noqa: A002
    """Rolls ``input`` by ``shift`` along ``axis`` (scalars or matching 1-D lists/tensors)."""
    x = convert_to_tensor(input)
    s = _int(shift, "shift", "Roll")
    a = _int(axis, "axis", "Roll")
    return make_tensor("Roll", [x, s, a], x.dtype, x.shape, name=name)


def _roll(x, shift, axis):
    shift, axis = np.asarray(shift), np.asarray(axis)
    if shift.ndim == 0:
        return np.roll(x, int(shift), int(axis))
    return np.roll(x, tuple(int(v) for v in shift), tuple(int(v) for v in axis))


OPS.define("Roll", kernel=simple(_roll),
           grad=lambda op, dy: [roll(dy, math_ops.negative(op.inputs[1]), op.inputs[2]),
                                None, None])


# ------------------------------------------------------------------ meshgrid / linspace
def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D tensors (``indexing='xy'``: the first two outputs swapped
    dims, as numpy; ``'ij'``: matrix indexing)."""
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"meshgrid: unexpected keyword arguments {sorted(kwargs)}")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    xs = [convert_to_tensor(a) for a in args]
    n = len(xs)
    shaped = []
    for i, x in enumerate(xs):
        dims = [1] * n
        dims[i] = -1
        if indexing == "xy" and n > 1 and i < 2:
            dims[i], dims[1 - i] = 1, -1
        shaped.append(array_ops.reshape(x, dims))
    out = []
    for i, s in enumerate(shaped):
        for j, other in enumerate(shaped):
            if j != i:
                s = s + array_ops.zeros_like(other)
        out.append(s)
    return out


def linspace(start, stop, num, name=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` (both included)."""
    start = convert_to_tensor(start)
    stop = convert_to_tensor(stop, dtype=start.dtype)
    n = _int(num, "num", "LinSpace")
    static = int(np.asarray(n.op.attrs["value"])) if n.op.type == "Const" else None
    return make_tensor("LinSpace", [start, stop, n], start.dtype, [static], name=name)


OPS.define("LinSpace", kernel=simple(lambda a, b, n: np.linspace(
    a, b, int(n), dtype=np.asarray(a).dtype)), grad=NOT_DIFFERENTIABLE)
lin_space = linspace


# ------------------------------------------------------------------ repeat
def repeat(input, repeats, axis=None, name=None):  # noqa: A002
    """Each element (``axis=None``: of the flattened input) repeated ``repeats`` times
    along ``axis``; the gradient sums each element's copies."""
    x = convert_to_tensor(input)
    if axis is None:
        x = array_ops.reshape(x, [-1])
        axis = 0
    axis = _axis_attr(x, axis, "Repeat")
    r = _int(repeats, "repeats", "Repeat")
    shape = None
    if x.shape.ndims is not None:
        shape = list(x.shape.values)
        shape[axis] = None
        if r.op.type == "Const":
            rv = np.asarray(r.op.attrs["value"])
            if rv.ndim == 0 and x.shape.values[axis] is not None:  # TF1 leaves a list None
                shape[axis] = int(rv) * x.shape.values[axis]
    return make_tensor("Repeat", [x, r], x.dtype, shape, {"axis": axis}, name=name)


def _repeat_sum(dy, r, like, axis):
    n = np.shape(like)[axis]
    r = np.broadcast_to(np.asarray(r).reshape(-1) if np.ndim(r) else r, (n,))
    starts = np.concatenate([[0], np.cumsum(r)[:-1]]).astype(np.intp)
    moved = np.moveaxis(dy, axis, 0)
    out = np.add.reduceat(moved, starts, axis=0) if moved.shape[0] else \
        np.zeros((n,) + moved.shape[1:], dy.dtype)
    out[r == 0] = 0
    return np.ascontiguousarray(np.moveaxis(out, 0, axis))


OPS.define("Repeat", kernel=with_attrs(lambda x, r, axis: np.repeat(
    x, np.asarray(r).reshape(-1) if np.ndim(r) else int(r), axis=axis), "axis"),
    grad=lambda op, dy: [make_tensor("RepeatGrad", [dy, op.inputs[1], op.inputs[0]],
                                     dy.dtype, op.inputs[0].shape, dict(op.attrs)), None])
OPS.define("RepeatGrad", kernel=with_attrs(_repeat_sum, "axis"),
           grad=lambda op, g: [make_tensor("Repeat", [g, op.inputs[1]], g.dtype,
                                           op.inputs[0].shape, dict(op.attrs)), None, None])


# ------------------------------------------------------------------ batch_gather
def batch_gather(params, indices, name=None):
    """``out[b..., k, ...] = params[b..., indices[b..., k], ...]``: a gather per batch entry,
    the batch dims being all of ``indices``' but its last."""
    p = convert_to_tensor(params)
    i = _int(indices, "indices", "BatchGather")
    if i.shape.ndims is None:
        raise ValueError(f"batch_gather: the rank of indices {i.name} must be known")
    b = i.shape.ndims - 1
    shape = None
    if p.shape.ndims is not None:
        shape = list(i.shape.values) + list(p.shape.values[b + 1:])
    return make_tensor("BatchGather", [p, i], p.dtype, shape, {"batch_dims": b},
                       name=name or "batch_gather")


def _bg_index(pshape, idx, b):
    grid = np.ix_(*[np.arange(n) for n in np.shape(idx)])
    return tuple(grid[:b]) + (np.asarray(idx, np.intp),)


def _batch_gather(p, idx, batch_dims):
    idx = np.asarray(idx)
    if idx.size and (idx.min() < 0 or idx.max() >= p.shape[batch_dims]):
        raise IndexError(f"batch_gather: indices must be in [0, {p.shape[batch_dims]}), got "
                         f"values in [{idx.min()}, {idx.max()}]")
    return p[_bg_index(p.shape, idx, batch_dims)]


def _batch_scatter_add(idx, dy, like, batch_dims):
    out = np.zeros(np.shape(like), dtype=dy.dtype)
    np.add.at(out, _bg_index(out.shape, idx, batch_dims), dy)
    return out


OPS.define("BatchGather", kernel=with_attrs(_batch_gather, "batch_dims"),
           grad=lambda op, dy: [make_tensor("BatchScatterAddLike",
                                            [op.inputs[1], dy, op.inputs[0]], dy.dtype,
                                            op.inputs[0].shape, dict(op.attrs)), None])
OPS.define("BatchScatterAddLike", kernel=with_attrs(_batch_scatter_add, "batch_dims"),
           grad=lambda op, g: [None, make_tensor("BatchGather", [g, op.inputs[0]], g.dtype,
                                                 op.inputs[1].shape, dict(op.attrs)), None])


# ------------------------------------------------------------------ searches and counts
def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """For each row of ``values``, where its entries go in the matching row of
    ``sorted_sequence`` (the innermost dim is searched, the others are batch dims)."""
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    s = convert_to_tensor(sorted_sequence)
    v = convert_to_tensor(values, dtype=s.dtype)
    odt = dtypes.as_dtype(out_type)
    return make_tensor("LowerBound" if side == "left" else "UpperBound", [s, v], odt,
                       v.shape, {"dtype": odt}, name=name)


def _bound(side):
    def factory(op, ctx):
        npd = op.attrs["dtype"].np

        def run(s, v):
            s, v = np.asarray(s), np.asarray(v)
            if s.ndim == 1 and v.ndim == 1:
                return np.searchsorted(s, v, side=side).astype(npd)
            s2 = s.reshape(-1, s.shape[-1])
            v2 = v.reshape(-1, v.shape[-1])
            if s2.shape[0] != v2.shape[0]:
                raise ValueError(f"searchsorted: sorted_sequence {s.shape} and values "
                                 f"{v.shape} must have the same leading dims")
            out = np.stack([np.searchsorted(a, b, side=side) for a, b in zip(s2, v2)])
            return out.reshape(v.shape).astype(npd)
        return run
    return factory


OPS.define("LowerBound", kernel=_bound("left"), grad=NOT_DIFFERENTIABLE)
OPS.define("UpperBound", kernel=_bound("right"), grad=NOT_DIFFERENTIABLE)


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """The bin (of ``nbins`` equal bins over ``value_range``; outliers in the end bins) of
    each element of ``values``."""
    v = convert_to_tensor(values)
    r = convert_to_tensor(value_range, dtype=v.dtype)
    n = _int(nbins, "nbins", "HistogramFixedWidthBins")
    odt = dtypes.as_dtype(dtype)
    return make_tensor("HistogramFixedWidthBins", [v, r, n], odt, v.shape, {"dtype": odt},
                       name=name)


def histogram_fixed_width(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """How many elements of ``values`` fall in each of ``nbins`` equal bins over
    ``value_range`` (values outside it count in the first / last bin)."""
    v = convert_to_tensor(values)
    r = convert_to_tensor(value_range, dtype=v.dtype)
    n = _int(nbins, "nbins", "HistogramFixedWidth")
    odt = dtypes.as_dtype(dtype)
    static = int(np.asarray(n.op.attrs["value"])) if n.op.type == "Const" else None
    return make_tensor("HistogramFixedWidth", [v, r, n], odt, [static], {"dtype": odt},
                       name=name)


def _bins(v, r, n):
    v = np.asarray(v, np.float64)
    lo, hi = float(r[0]), float(r[1])
    idx = np.floor((v - lo) / (hi - lo) * int(n))
    return np.clip(idx, 0, int(n) - 1).astype(np.int64)


OPS.define("HistogramFixedWidthBins", kernel=lambda op, ctx: (
    lambda v, r, n, _d=op.attrs["dtype"].np: _bins(v, r, n).astype(_d)),
    grad=NOT_DIFFERENTIABLE)
OPS.define("HistogramFixedWidth", kernel=lambda op, ctx: (
    lambda v, r, n, _d=op.attrs["dtype"].np: np.bincount(
        _bins(v, r, n).reshape(-1), minlength=int(n)).astype(_d)), grad=NOT_DIFFERENTIABLE)


def setdiff1d(x, y, index_dtype=dtypes.int32, name=None):
    """``(out, idx)``: the elements of 1-D ``x`` not in ``y``, in order, and their
    positions in ``x``."""
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype=x.dtype)
    idt = dtypes.as_dtype(index_dtype)
    op = make_op("ListDiff", [x, y], [(x.dtype, [None]), (idt, [None])], {"dtype": idt},
                 name=name)
    return tuple(op.outputs)


def _listdiff(op, ctx):
    npd = op.attrs["dtype"].np

    def run(x, y):
        keep = ~np.isin(np.asarray(x), np.asarray(y))
        return np.asarray(x)[keep], np.flatnonzero(keep).astype(npd)
    return run


OPS.define("ListDiff", kernel=_listdiff, grad=NOT_DIFFERENTIABLE)


def invert_permutation(x, name=None):
    """``y[x[i]] = i`` for a permutation ``x`` of ``0 .. n-1``."""
    x = _int(x, "x", "InvertPermutation")
    return make_tensor("InvertPermutation", [x], x.dtype, x.shape, name=name)


def _invert_permutation(x):
    x = np.asarray(x)
    if x.ndim != 1 or sorted(x.tolist()) != list(range(x.size)):
        raise ValueError(f"invert_permutation: x must be a permutation of 0..{x.size - 1}, "
                         f"got {x.tolist()}")
    out = np.empty_like(x)
    out[x] = np.arange(x.size, dtype=x.dtype)
    return out


OPS.define("InvertPermutation", kernel=simple(_invert_permutation), grad=NOT_DIFFERENTIABLE)


def unravel_index(indices, dims, name=None):
    """The coordinates in an array of shape ``dims`` of flat ``indices`` (one row per dim:
    shape ``[len(dims)]`` or ``[len(dims), n]``)."""
    i = _int(indices, "indices", "UnravelIndex")
    d = convert_to_tensor(dims, dtype=i.dtype)
    nd = d.shape.values[0] if d.shape.ndims == 1 else None
    shape = None if i.shape.ndims is None else [nd] + list(i.shape.values)
    return make_tensor("UnravelIndex", [i, d], i.dtype, shape, name=name)


OPS.define("UnravelIndex", kernel=simple(lambda i, d: np.array(
    np.unravel_index(np.asarray(i), tuple(int(v) for v in d)), dtype=np.asarray(i).dtype)),
    grad=NOT_DIFFERENTIABLE)


def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """``tensor`` at the true places of ``mask`` (rank k, matching ``tensor``'s dims
    ``axis .. axis+k``), which collapse into one dimension, as TF's."""
    x = convert_to_tensor(tensor)
    m = convert_to_tensor(mask, dtype=dtypes.bool)
    k = m.shape.ndims
    if k is None:
        raise ValueError("boolean_mask: the rank of `mask` must be known statically")
    if k == 0:
        raise ValueError("boolean_mask: `mask` cannot be a scalar")
    axis = 0 if axis is None else int(axis)
    n = x.shape.ndims
    if n is not None:
        axis %= max(n, 1)
        if not x.shape[axis:axis + k].is_compatible_with(m.shape):
            raise ValueError(f"boolean_mask: shapes {x.shape[axis:axis + k]} and {m.shape} "
                             f"are incompatible (tensor {x.name} at axis {axis}, mask {m.name})")
    if k > 1:
        dyn = array_ops.shape(x)
        x = array_ops.reshape(x, array_ops.concat([dyn[:axis], [-1], dyn[axis + k:]], 0))
        m = array_ops.reshape(m, [-1])
    idx = array_ops.reshape(array_ops.where(m), [-1])
    return array_ops.gather(x, idx, axis=axis, name=name)


def where_v1(condition, x=None, y=None, name=None):
    """``tf.where`` (TF1's Select): ``x`` and ``y`` of one shape, the condition of that
    shape or a vector over its first dimension (checked by ``where``); no broadcasting
    of ``x`` and ``y`` (``tf.where_v2`` has it)."""
    if x is not None and y is not None:
        x, y = math_ops._pair(x, y, "Select")
        c = convert_to_tensor(condition)
        if not x.shape.is_compatible_with(y.shape):
            raise ValueError(f"where (Select): `x` {x.name} and `y` {y.name} must have one "
                             f"shape (TF1's tf.where does not broadcast; tf.where_v2 does), got "
                             f"{x.shape} and {y.shape}")
        return array_ops.where(c, x, y, name=name)
    return array_ops.where(condition, x, y, name=name)
