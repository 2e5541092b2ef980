"""Shape and indexing ops: reshape, transpose, concat, stack, slicing, gather, ..."""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import Tensor
from estimator_npu.engine.ops.core import constant, convert_to_tensor, make_op, make_tensor
from estimator_npu.engine.ops.core import broadcast_shape, identity, static_ints as _static_ints
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily, simple, with_attrs
from estimator_npu.engine.shape import TensorShape, as_shape

OPS = OpFamily(__name__)  # this family's op definitions (data)


# ------------------------------------------------------------------ shape queries
def shape(input, name=None, out_type=dtypes.int32):  # noqa: A002
    x = convert_to_tensor(input)
    nd = x.shape.ndims
    return make_tensor("Shape", [x], out_type, [nd], {"dtype": dtypes.as_dtype(out_type)},
                       name=name)


def size(input, name=None, out_type=dtypes.int32):  # noqa: A002
    x = convert_to_tensor(input)
    return make_tensor("Size", [x], out_type, [], {"dtype": dtypes.as_dtype(out_type)},
                       name=name)


def rank(input, name=None):  # noqa: A002
    x = convert_to_tensor(input)
    return make_tensor("Rank", [x], dtypes.int32, [], name=name)


OPS.define("Shape", kernel=lambda op, ctx: (lambda x, _d=op.attrs["dtype"].np:
                                            np.array(np.shape(x), dtype=_d)),
           grad=NOT_DIFFERENTIABLE)
OPS.define("Size", kernel=lambda op, ctx: (lambda x, _d=op.attrs["dtype"].np:
                                           np.array(np.size(x), dtype=_d)),
           grad=NOT_DIFFERENTIABLE)
OPS.define("Rank", kernel=simple(lambda x: np.array(np.ndim(x), dtype=np.int32)),
           grad=NOT_DIFFERENTIABLE)


# ------------------------------------------------------------------ reshape family
def reshape(tensor, shape, name=None):
    """Reshapes ``tensor`` to ``shape`` (one dim may be -1)."""
    x = convert_to_tensor(tensor)
    from estimator_npu.engine.ops import dynamic_shape
    if dynamic_shape.is_dynamic(shape):  # the shape TF1 infers from a computed shape
        s, partial = dynamic_shape.shape_tensor(shape, "Reshape")
        return make_tensor("ReshapeDynamic", [x, s], x.dtype, partial, name=name)
    dims = _static_ints(shape, "shape", "Reshape")
    if sum(1 for d in dims if d == -1) > 1:
        raise ValueError(f"Reshape: at most one dimension may be -1, got {dims}")
    n = x.shape.num_elements()
    out = list(dims)
    if -1 in dims:
        known = int(np.prod([d for d in dims if d != -1])) if len(dims) > 1 else 1
        if n is not None and known:
            if n % known:
                raise ValueError(f"Reshape '{name or 'Reshape'}': cannot reshape a tensor of "
                                 f"shape {x.shape} ({n} elements) to shape {dims}")
            out[dims.index(-1)] = n // known
        else:
            out[dims.index(-1)] = None
    elif n is not None and int(np.prod(dims)) != n:
        raise ValueError(f"Reshape '{name or 'Reshape'}': cannot reshape a tensor of shape "
                         f"{x.shape} ({n} elements) to shape {dims} "
                         f"({int(np.prod(dims))} elements)")
    return make_tensor("Reshape", [x], x.dtype, out, {"shape": tuple(dims)}, name=name)


def _reshape_grad(op, dy):
    return [reshape_like(dy, op.inputs[0])] + [None] * (len(op.inputs) - 1)


def reshape_like(x, like):
    """Reshapes ``x`` to the runtime shape of ``like``."""
    if like.shape.is_fully_defined():
        return reshape(x, like.shape.as_list())
    return make_tensor("ReshapeLike", [x, like], x.dtype, like.shape)


OPS.define("Reshape", kernel=lambda op, ctx: (lambda x, _s=op.attrs["shape"]: np.reshape(x, _s)),
           grad=_reshape_grad, may_alias=True)
OPS.define("ReshapeDynamic", kernel=simple(lambda x, s: np.reshape(x, tuple(s))),
           grad=_reshape_grad, may_alias=True)
OPS.define("ReshapeLike", kernel=simple(lambda x, like: np.reshape(x, np.shape(like))),
           grad=lambda op, dy: [reshape_like(dy, op.inputs[0]), None], may_alias=True)


def expand_dims(input, axis=None, name=None, dim=None):  # noqa: A002
    x = convert_to_tensor(input)
    ints = _static_ints(dim if axis is None else axis, "axis", "ExpandDims")  # [-1]: as TF
    if ints is None or len(ints) != 1:
        raise ValueError(f"ExpandDims: axis must be a single value (one static int), got {axis!r}")
    axis = ints[0]
    nd = x.shape.ndims
    if nd is not None:
        if not -nd - 1 <= axis <= nd:
            raise ValueError(f"ExpandDims: axis {axis} out of range for rank {nd}")
        axis = axis % (nd + 1)
        dims = list(x.shape.values)
        dims.insert(axis, 1)
        shp = dims
    else:
        shp = None
    return make_tensor("ExpandDims", [x], x.dtype, shp, {"axis": axis}, name=name)


def _expand_dims_kernel(op, ctx):
    axis = op.attrs["axis"]
    if op.inputs[0].shape.ndims is not None and axis == op.inputs[0].shape.ndims:
        return lambda x: x[..., None]
    if axis < 0:  # unknown rank at build time: -1 means after the last dim, as in TF
        return lambda x: np.expand_dims(x, axis)
    return lambda x: x.reshape(x.shape[:axis] + (1,) + x.shape[axis:])


OPS.define("ExpandDims", kernel=_expand_dims_kernel, grad=_reshape_grad, may_alias=True)


def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002
    x = convert_to_tensor(input)
    if axis is None:
        axis = squeeze_dims
    nd = x.shape.ndims
    if axis is not None:
        axis = tuple(int(a) % nd if nd else int(a)
                     for a in (axis if isinstance(axis, (list, tuple)) else [axis]))
        if nd is not None:
            for a in axis:
                if x.shape.values[a] not in (1, None):
                    raise ValueError(f"Squeeze: cannot squeeze dim {a} of size {x.shape[a]} "
                                     f"(shape {x.shape})")
            shp = [d for i, d in enumerate(x.shape.values) if i not in axis]
        else:
            shp = None
    else:
        shp = None if nd is None or None in x.shape.values else \
            [d for d in x.shape.values if d != 1]
        axis = None
    return make_tensor("Squeeze", [x], x.dtype, shp, {"axis": axis}, name=name)


OPS.define("Squeeze", kernel=with_attrs(np.squeeze, "axis"), grad=_reshape_grad, may_alias=True)


def transpose(a, perm=None, name="transpose", conjugate=False):
    x = convert_to_tensor(a)
    nd = x.shape.ndims
    if perm is None:
        if nd is None:  # reverse the dims, whatever the rank turns out to be
            return make_tensor("Transpose", [x], x.dtype, None, {"axes": None}, name=name)
        perm = list(builtins_range(nd))[::-1]
    perm = tuple(int(p) for p in perm)
    if nd is not None and sorted(perm) != list(builtins_range(nd)):
        raise ValueError(f"transpose: perm {list(perm)} is not a permutation of the {nd} dims "
                         f"of shape {x.shape}")
    shp = [x.shape.values[p] for p in perm] if nd is not None else None
    return make_tensor("Transpose", [x], x.dtype, shp, {"axes": perm}, name=name)


OPS.define("Transpose", kernel=with_attrs(np.transpose, "axes"),
           grad=lambda op, dy: [transpose(dy, None if op.attrs["axes"] is None else
                                          list(np.argsort(op.attrs["axes"])))],
           may_alias=True)


# ------------------------------------------------------------------ join / split
def _int_scalar(x):
    return isinstance(x, (int, np.integer)) or isinstance(x, Tensor) and x.shape.ndims == 0


def concat(values, axis, name="concat"):
    if _int_scalar(values) and isinstance(axis, (list, tuple)):
        raise ValueError(f"concat(values, axis): got an int for values and a list for axis, "
                         f"TF 0.x's tf.concat(concat_dim, values) order; since TF 1.0 write "
                         f"tf.concat(values, axis)")
    values = values if isinstance(values, (list, tuple)) else [values]   # one tensor: as TF
    ts = [convert_to_tensor(v) for v in values]
    if len(ts) == 1:
        return identity(ts[0], name=name)
    nd = next((t.shape.ndims for t in ts if t.shape.ndims is not None), None)
    axis = int(axis)
    if nd is not None:
        if not -nd <= axis < nd:
            raise ValueError(f"concat: axis {axis} is out of range for values of rank {nd} "
                             f"(accepted: [{-nd}, {nd}))")
        axis %= nd
        dims = [None] * nd
        total = 0
        for t in ts:
            if t.dtype != ts[0].dtype:
                raise TypeError(f"concat: all values must have dtype {ts[0].dtype.name}, got "
                                f"{t.dtype.name} for {t.name}")
            if t.shape.ndims is None:
                total = None
                continue
            if t.shape.ndims != nd:
                raise ValueError(f"concat: ranks differ, {ts[0].shape} vs {t.shape}")
            for i, d in enumerate(t.shape.values):
                if i == axis:
                    continue
                if dims[i] is not None and d is not None and d != dims[i]:
                    raise ValueError(f"concat: shapes {ts[0].shape} and {t.shape} differ "
                                     f"outside axis {axis}")
                dims[i] = dims[i] if d is None else d
            d = t.shape.values[axis]
            total = None if total is None or d is None else total + d
        dims[axis] = total
    else:
        dims = None
    return make_tensor("ConcatV2", ts, ts[0].dtype, dims, {"axis": axis}, name=name)


def _concat_grad(op, dy):
    axis = op.attrs["axis"]
    return list(make_op("SplitLike", [dy] + list(op.inputs),
                        [(dy.dtype, t.shape) for t in op.inputs], {"axis": axis}).outputs)


def _split_like(dy, *xs, axis):
    idx = np.cumsum([np.shape(x)[axis] for x in xs])[:-1]
    return tuple(np.split(dy, idx, axis=axis))


OPS.define("ConcatV2", kernel=lambda op, ctx: (lambda *xs, _a=op.attrs["axis"]:
                                               np.concatenate(xs, axis=_a)),
           grad=_concat_grad)
OPS.define("SplitLike", kernel=with_attrs(_split_like, "axis"),
           grad=lambda op, *dys: [concat([d if d is not None else zeros_like(t)
                                          for d, t in zip(dys, op.outputs)], op.attrs["axis"])]
           + [None] * (len(op.inputs) - 1), may_alias=True)


def stack(values, axis=0, name="stack"):
    ts = [convert_to_tensor(v) for v in values]
    return concat([expand_dims(t, axis) for t in ts], axis, name=name) if len(ts) > 1 else \
        expand_dims(ts[0], axis, name=name)


pack = stack


def unstack(value, num=None, axis=0, name="unstack"):
    x = convert_to_tensor(value)
    nd = x.shape.ndims
    axis = axis % nd if nd else axis
    num = num if num is not None else (x.shape.values[axis] if nd is not None else None)
    if num is None:
        raise ValueError(f"unstack: cannot infer num from shape {x.shape}")
    parts = split(x, num, axis=axis)
    return [squeeze(p, axis) for p in parts]


unpack = unstack


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    if _int_scalar(value) and not _int_scalar(axis):
        raise TypeError("split(value, num_or_size_splits, axis): got an int for value, TF "
                        "0.x's tf.split(split_dim, num_split, value) order; since TF 1.0 write "
                        "tf.split(value, num_or_size_splits, axis)")
    x = convert_to_tensor(value)
    nd = x.shape.ndims
    axis = int(axis) % nd if nd else int(axis)
    dim = x.shape.values[axis] if nd is not None else None
    if np.isscalar(num_or_size_splits):
        n = int(num_or_size_splits)
        if dim is not None and dim % n:
            raise ValueError(f"split: dimension {axis} of size {dim} is not divisible into "
                             f"{n} parts")
        sizes = [dim // n if dim is not None else None] * n
        attrs = {"axis": axis, "sections": n}
    else:
        sizes = [int(s) for s in num_or_size_splits]
        if -1 in sizes and dim is not None:
            sizes[sizes.index(-1)] = dim - (sum(sizes) + 1)
        if dim is not None and sum(sizes) != dim:
            raise ValueError(f"split: sizes {sizes} do not sum to dimension {axis} of size "
                             f"{dim}")
        if -1 in sizes:  # the dim is unknown until run time: resolve the -1 there
            attrs = {"axis": axis, "sections": None, "sizes": tuple(sizes)}
            sizes = [None if s == -1 else s for s in sizes]
        else:
            attrs = {"axis": axis, "sections": list(np.cumsum(sizes)[:-1])}
    specs = []
    for s in sizes:
        d = list(x.shape.values) if nd is not None else None
        if d is not None:
            d[axis] = s
        specs.append((x.dtype, d))
    return list(make_op("Split", [x], specs, attrs, name=name).outputs)


def _split_kernel(op, ctx):
    sections, axis = op.attrs["sections"], op.attrs["axis"]
    if len(op.outputs) == 1:  # one part: the plan takes the array itself, not a 1-tuple
        return lambda x: x
    if sections is None:
        sizes = op.attrs["sizes"]

        def split_sizes(x):
            known = list(sizes)
            known[known.index(-1)] = x.shape[axis] - (sum(sizes) + 1)
            return tuple(np.split(x, np.cumsum(known)[:-1], axis=axis))
        return split_sizes
    return lambda x: tuple(np.split(x, sections, axis=axis))


OPS.define("Split", kernel=_split_kernel,
           grad=lambda op, *dys: [concat([d if d is not None else zeros_like(t)
                                          for d, t in zip(dys, op.outputs)], op.attrs["axis"])],
           may_alias=True)


# ------------------------------------------------------------------ creation
def fill(dims, value, name=None):
    dyn = _fill_dynamic(dims, value, None, name)
    if dyn is not None:
        return dyn
    d = _static_ints(dims, "dims", "Fill")
    v = convert_to_tensor(value)
    if d is None:
        raise TypeError("fill: dims must be static")
    return make_tensor("Fill", [v], v.dtype, d, {"shape": tuple(d)}, name=name)


OPS.define("Fill", kernel=lambda op, ctx: (lambda v, _s=op.attrs["shape"]: np.full(_s, v)),
           grad=lambda op, dy: [reduce_all_sum(dy)])


def reduce_all_sum(x):
    from estimator_npu.engine.ops.math_ops import reduce_sum
    return reduce_sum(x)


def _fill_dynamic(shape, value, dtype, name):
    from estimator_npu.engine.ops import dynamic_shape
    if not dynamic_shape.is_dynamic(shape):
        return None
    return dynamic_shape.fill_dynamic(shape, value, dtype=dtype, name=name)


def zeros(shape, dtype=dtypes.float32, name=None):
    dyn = _fill_dynamic(shape, 0, dtype, name or "zeros")
    if dyn is not None:
        return dyn
    d = _static_ints(shape, "shape", "zeros")
    return constant(0, dtype=dtype, shape=d, name=name or "zeros")


def ones(shape, dtype=dtypes.float32, name=None):
    dyn = _fill_dynamic(shape, 1, dtype, name or "ones")
    if dyn is not None:
        return dyn
    d = _static_ints(shape, "shape", "ones")
    return constant(1, dtype=dtype, shape=d, name=name or "ones")


def zeros_like(tensor, dtype=None, name=None, optimize=True):
    x = convert_to_tensor(tensor)
    dt = dtypes.as_dtype(dtype) if dtype is not None else x.dtype
    if optimize and x.shape.is_fully_defined():
        return constant(0, dtype=dt, shape=x.shape.as_list(), name=name or "zeros_like")
    return make_tensor("ZerosLike", [x], dt, x.shape, {"dtype": dt}, name=name)


def ones_like(tensor, dtype=None, name=None, optimize=True):
    x = convert_to_tensor(tensor)
    dt = dtypes.as_dtype(dtype) if dtype is not None else x.dtype
    if optimize and x.shape.is_fully_defined():
        return constant(1, dtype=dt, shape=x.shape.as_list(), name=name or "ones_like")
    return make_tensor("OnesLike", [x], dt, x.shape, {"dtype": dt}, name=name)


# The value does not depend on the input's values: zero gradient (TF NotDifferentiable).
OPS.define("ZerosLike", kernel=lambda op, ctx: (lambda x, _d=op.attrs["dtype"].np:
                                                np.zeros(np.shape(x), _d)),
           grad=lambda op, dy: [None])
OPS.define("OnesLike", kernel=lambda op, ctx: (lambda x, _d=op.attrs["dtype"].np:
                                               np.ones(np.shape(x), _d)),
           grad=lambda op, dy: [None])


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001
    if limit is None:
        start, limit = 0, start
    if any(isinstance(v, Tensor) or hasattr(v, "_as_tensor") for v in (start, limit, delta)):
        from estimator_npu.engine.ops import dynamic_shape
        return dynamic_shape.range_dynamic(start, limit, delta, dtype, name=name)
    arr = np.arange(start, limit, delta)
    if dtype is None and arr.dtype == np.float64 and not any(
            isinstance(v, (np.ndarray, np.float64)) for v in (start, limit, delta)):
        dtype = dtypes.float32  # Python floats give float32, as TF's range
    return constant(arr, dtype=dtype or (dtypes.int32 if arr.dtype.kind == "i" else None),
                    name=name)


# ------------------------------------------------------------------ selection
def where(condition, x=None, y=None, name=None):
    """Elementwise select (``x`` where ``condition`` else ``y``); with only a condition,
    the indices of true elements."""
    c = convert_to_tensor(condition)
    if x is None and y is None:
        return make_tensor("WhereIndices", [c], dtypes.int64, [None, c.shape.ndims], name=name)
    from estimator_npu.engine.ops.math_ops import _pair
    x, y = _pair(x, y, "Select")
    data = broadcast_shape(x.shape, y.shape, "Select")
    if c.shape.ndims is None:  # TF1's Select: the condition never widens x / y
        return make_tensor("Select", [c, x, y], x.dtype, data, name=name)
    if c.shape.ndims == 1 and (data.ndims or 0) > 1:  # TF1: a vector condition picks rows
        c = reshape(c, [-1] + [1] * (data.ndims - 1))
    return where_v2(c, x, y, name=name)


def where_v2(condition, x=None, y=None, name=None):
    """Elementwise select with numpy broadcasting of condition, x and y (``tf.where_v2``)."""
    c = convert_to_tensor(condition)
    if x is None and y is None:
        return where(c, name=name)
    from estimator_npu.engine.ops.math_ops import _pair
    x, y = _pair(x, y, "Select")
    shp = broadcast_shape(broadcast_shape(c.shape, x.shape, "Select"), y.shape, "Select")
    return make_tensor("Select", [c, x, y], x.dtype, shp, name=name)


def _select_grad(op, dy):
    from estimator_npu.engine.ops.math_ops import sum_to_like
    c, x, y = op.inputs
    z = zeros_like(dy)
    return [None, sum_to_like(where_v2(c, dy, z), x), sum_to_like(where_v2(c, z, dy), y)]


OPS.define("Select", kernel=simple(np.where), grad=_select_grad)
OPS.define("WhereIndices", kernel=simple(lambda c: np.argwhere(c).astype(np.int64)),
           grad=NOT_DIFFERENTIABLE)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    i = convert_to_tensor(indices)
    if not i.dtype.is_integer:
        raise TypeError(f"one_hot: indices must be integers (uint8, int32 or int64), got "
                        f"{i.dtype.name} tensor {i.name}")
    dt = dtypes.as_dtype(dtype) if dtype is not None else dtypes.float32
    on = 1 if on_value is None else on_value
    off = 0 if off_value is None else off_value
    if isinstance(depth, (bool, np.bool_)) or not isinstance(depth, (int, np.integer)):
        raise TypeError(f"one_hot: depth must be an int, got {type(depth).__name__}: "
                        f"{depth!r}")
    depth = int(depth)
    axis = -1 if axis is None else int(axis)
    dims = list(i.shape.values) if i.shape.ndims is not None else None
    if dims is not None:
        dims.insert(axis if axis >= 0 else len(dims) + 1 + axis, depth)
    return make_tensor("OneHot", [i], dt, dims,
                       {"depth": depth, "on": on, "off": off, "axis": axis, "dtype": dt},
                       name=name)


def _one_hot_kernel(op, ctx):
    a = op.attrs   # compared with arange(depth): memory of the output only (depth 32000)
    on, off = np.asarray(a["on"], a["dtype"].np), np.asarray(a["off"], a["dtype"].np)
    positions, axis = np.arange(a["depth"]), a["axis"]

    def one_hot_fn(i):
        i = np.asarray(i)
        out = np.where(i[..., None] == positions, on, off)   # -1 / out of range -> off
        if axis != -1 and axis != i.ndim:
            out = np.moveaxis(out, -1, axis)
        return out
    return one_hot_fn


OPS.define("OneHot", kernel=_one_hot_kernel, grad=NOT_DIFFERENTIABLE)


# Slicing and indexing, re-exported (``array_ops.gather``); last, as slice_ops imports from here.
from estimator_npu.engine.ops.slice_ops import (  # noqa: E402,F401
    boolean_mask, builtin_slice, builtins_range, gather, getitem, reverse, slice)


TensorShape = TensorShape

# Padding, tiling and broadcast_to, re-exported (``array_ops.pad``).
from estimator_npu.engine.ops.tile_ops import broadcast_to, pad, tile  # noqa: E402,F401
