"""Slicing and indexing ops: ``tf.slice``, ``x[key]`` (strided slices), ``reverse``,
``boolean_mask`` and ``gather``, each with its gradient; re-exported by ``array_ops``."""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import Tensor
from estimator_npu.engine.ops._fast import scatter_add_rows
from estimator_npu.engine.ops.array_ops import reshape, where
from estimator_npu.engine.ops.core import convert_to_tensor, make_tensor
from estimator_npu.engine.registry import OpFamily, with_attrs

OPS = OpFamily(__name__)  # this family's op definitions (data)


# ------------------------------------------------------------------ slicing
builtin_slice = __builtins__["slice"] if isinstance(__builtins__, dict) else __builtins__.slice


def slice(input_, begin, size, name=None):  # noqa: A001
    """``tf.slice``: ``size[i] == -1`` takes the rest of dim ``i``."""
    x = convert_to_tensor(input_)
    from estimator_npu.engine.ops import dynamic_shape
    if dynamic_shape.is_dynamic(begin) or dynamic_shape.is_dynamic(size):
        return dynamic_shape.slice_dynamic(x, begin, size, name=name)
    begin = array_ops_static(begin, "begin")
    size = array_ops_static(size, "size")
    begin = [int(b) for b in begin]
    size = [int(s) for s in size]
    key = tuple(builtin_slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))
    out = _strided(x, key, name)
    # TF knows every dim whose size is given, and the rank, even where x's shape is unknown
    out.set_shape([None if s == -1 else s for s in size])
    return out


def array_ops_static(value, what):
    from estimator_npu.engine.ops.array_ops import _static_ints
    return _static_ints(value, what, "Slice")


def _strided(x, key, name=None):
    """Basic indexing ``x[key]`` with ints, slices, ``None`` (new axis) and ``...``."""
    nd = x.shape.ndims
    dims = list(x.shape.values) if nd is not None else None
    out = []
    if dims is not None:
        n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
        if n_real > nd:
            raise ValueError(f"Too many indices ({n_real}) for tensor {x.name} of rank {nd} "
                             f"(shape {x.shape})")
        i = 0
        for k in key:
            if k is Ellipsis:
                for _ in builtins_range(nd - n_real):
                    out.append(dims[i])
                    i += 1
            elif k is None:
                out.append(1)
            elif isinstance(k, builtin_slice):
                d = dims[i]
                out.append(None if d is None else len(builtins_range(*k.indices(d))))
                i += 1
            else:
                d = dims[i]
                if d is not None and not -d <= k < d:
                    raise ValueError(f"Index {k} is out of bounds for dimension {i} of size "
                                     f"{d} (shape {x.shape})")
                i += 1
        if i > nd:
            raise ValueError(f"Too many indices ({i}) for tensor of rank {nd} ({x.name})")
        out.extend(dims[i:])
    else:
        out = None
    return make_tensor("StridedSlice", [x], x.dtype, out, {"key": key}, name=name)


builtins_range = __builtins__["range"] if isinstance(__builtins__, dict) else __builtins__.range


def _slice_grad(op, dy):
    x = op.inputs[0]
    return [make_tensor("SliceGrad", [dy, x], dy.dtype, x.shape, {"key": op.attrs["key"]})]


def _slice_grad_kernel(dy, x, key):
    out = np.zeros(np.shape(x), dtype=dy.dtype)
    out[key] = dy
    return out


OPS.define("StridedSlice", kernel=lambda op, ctx: (lambda x, _k=op.attrs["key"]: x[_k]),
           grad=_slice_grad, may_alias=True)
OPS.define("SliceGrad", kernel=with_attrs(_slice_grad_kernel, "key"),
           grad=lambda op, g: [_strided(g, op.attrs["key"]), None])


def getitem(x, key):
    """``Tensor.__getitem__`` for basic indexing."""
    x = convert_to_tensor(x)
    if not isinstance(key, tuple):
        key = (key,)
    key = tuple(_fold_const_bounds(k) for k in key)
    if any(isinstance(k, builtin_slice) and any(isinstance(v, Tensor) for v in
                                                (k.start, k.stop, k.step)) for k in key):
        return _strided_dynamic(x, key)
    for k in key:
        if isinstance(k, builtin_slice):
            for v in (k.start, k.stop, k.step):
                if v is not None and not isinstance(v, (int, np.integer)):
                    raise TypeError(f"Only integer or scalar int tensor slice bounds are "
                                    f"supported, got {k}")
        elif k is not None and k is not Ellipsis and not isinstance(k, (int, np.integer)):
            if isinstance(k, Tensor):
                return _tensor_index(x, key)
            raise TypeError(f"Only integers, slices, None and ... are valid indices, got "
                            f"{type(k).__name__}")
    key = tuple(int(k) if isinstance(k, np.integer) else k for k in key)
    return _strided(x, key)


def _fold_const_bounds(k):
    """A slice's constant scalar tensor bounds as ints (other keys unchanged)."""
    if not isinstance(k, builtin_slice):
        return k

    def fold(v):
        if (isinstance(v, Tensor) and v.op.type == "Const" and v.dtype.is_integer
                and np.ndim(v.op.attrs["value"]) == 0):
            return int(v.op.attrs["value"])
        return v
    return builtin_slice(fold(k.start), fold(k.stop), fold(k.step))


class _Bound:
    """Marks a slice bound that is the ``j``-th extra input of a dynamic strided slice."""
    __slots__ = ("j",)

    def __init__(self, j):
        self.j = j

    def __repr__(self):
        return f"<bound {self.j}>"


def _strided_dynamic(x, key):
    """``x[key]`` where some slice bounds are scalar int tensors (known when the graph
    runs); Python slicing semantics (negative bounds, clamping) at run time."""
    bounds, template = [], []
    for k in key:
        if isinstance(k, builtin_slice):
            parts = []
            for v in (k.start, k.stop, k.step):
                if isinstance(v, Tensor):
                    if v.shape.ndims not in (0, None) or not v.dtype.is_integer:
                        raise TypeError(f"A slice bound must be a scalar int tensor, got {v}")
                    parts.append(_Bound(len(bounds)))
                    bounds.append(v)
                elif v is not None and not isinstance(v, (int, np.integer)):
                    raise TypeError(f"Only integer or scalar int tensor slice bounds are "
                                    f"supported, got {k}")
                else:
                    parts.append(None if v is None else int(v))
            template.append(builtin_slice(*parts))
        elif isinstance(k, Tensor):
            raise TypeError("Indexing with a tensor index together with tensor slice bounds "
                            f"is not supported, got {key!r}")
        else:
            template.append(int(k) if isinstance(k, np.integer) else k)
    template = tuple(template)
    static = tuple(builtin_slice(None) if isinstance(k, builtin_slice) and any(
        isinstance(v, _Bound) for v in (k.start, k.stop, k.step)) else k for k in template)
    shape = _strided(x, static).shape  # the rank and the dims of the static keys
    dims = None
    if shape.ndims is not None:
        dims, i = list(shape.values), 0
        for k, ks in zip(template, static):
            if k is Ellipsis:
                i += (x.shape.ndims or 0) - sum(1 for t in template
                                                 if t is not None and t is not Ellipsis)
            elif k is None or isinstance(k, builtin_slice):
                if k is not ks:
                    dims[i] = None
                i += 1
    return make_tensor("StridedSliceDynamic", [x] + bounds, x.dtype, dims, {"key": template})


def _resolve_key(template, bounds):
    def val(v):
        return int(bounds[v.j]) if isinstance(v, _Bound) else v
    return tuple(builtin_slice(val(k.start), val(k.stop), val(k.step))
                 if isinstance(k, builtin_slice) else k for k in template)


def _dyn_slice_grad(op, dy):
    x, bounds = op.inputs[0], list(op.inputs[1:])
    grad = make_tensor("SliceGradDynamic", [dy, x] + bounds, dy.dtype, x.shape,
                       {"key": op.attrs["key"]})
    return [grad] + [None] * len(bounds)


def _dyn_slice_grad_kernel(dy, x, *bounds, key):
    out = np.zeros(np.shape(x), dtype=dy.dtype)
    out[_resolve_key(key, bounds)] = dy
    return out


OPS.define("StridedSliceDynamic",
           kernel=with_attrs(lambda x, *b, key: x[_resolve_key(key, b)], "key"),
           grad=_dyn_slice_grad, may_alias=True)
OPS.define("SliceGradDynamic", kernel=with_attrs(_dyn_slice_grad_kernel, "key"),
           grad=lambda op, g: [make_tensor("StridedSliceDynamic", [g] + list(op.inputs[2:]),
                                           g.dtype, op.inputs[0].shape,
                                           {"key": op.attrs["key"]}), None]
           + [None] * (len(op.inputs) - 2))


def _tensor_index(x, key):
    """``x[..., t, ...]`` with one int tensor ``t`` after full slices: a constant scalar
    acts as an int; otherwise a gather along that axis (a scalar drops the dim)."""
    pos = [i for i, k in enumerate(key) if isinstance(k, Tensor)]
    i = pos[0]
    t = key[i]
    if t.op.type == "Const" and np.ndim(t.op.attrs["value"]) == 0:
        return getitem(x, key[:i] + (int(t.op.attrs["value"]),) + key[i + 1:])
    full = builtin_slice(None)
    if len(pos) != 1 or any(k != full for k in key[:i]):
        raise TypeError("Indexing with a tensor is supported only as x[t] or x[:, ..., t] "
                        f"(full slices before it), got {key!r}")
    out = gather(x, t, axis=i)
    rest = key[i + 1:]
    if rest:
        lead = (full,) * (i + t.shape.ndims if t.shape.ndims is not None else i)
        out = getitem(out, lead + rest)
    return out


def reverse(tensor, axis, name=None):
    x = convert_to_tensor(tensor)
    axes = [int(a) for a in (axis if isinstance(axis, (list, tuple)) else [axis])]
    if x.shape.ndims is None:  # unknown rank: reverse along the axes at run time
        return make_tensor("ReverseV2", [x], x.dtype, None, {"axis": tuple(axes)}, name=name)
    key = [builtin_slice(None)] * x.shape.ndims
    for a in axes:
        key[a] = builtin_slice(None, None, -1)
    return _strided(x, tuple(key), name)


OPS.define("ReverseV2", kernel=with_attrs(np.flip, "axis"),
           grad=lambda op, dy: [reverse(dy, list(op.attrs["axis"]))], may_alias=True)


def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """The 1-D-mask form used inside the project; ``tf.boolean_mask`` is
    ``math_ops_extra.array_extra.boolean_mask`` (any mask rank and axis, as TF's)."""
    x = convert_to_tensor(tensor)
    m = convert_to_tensor(mask, dtype=dtypes.bool)
    idx = reshape(where(m), [-1])
    return gather(x, idx)


# ------------------------------------------------------------------ gather
def gather(params, indices, axis=0, name=None, validate_indices=None, batch_dims=0):
    p = convert_to_tensor(params)
    i = convert_to_tensor(indices)
    if not i.dtype.is_integer:
        raise TypeError(f"gather: indices must be int32/int64, got {i.dtype.name}")
    if p.shape.ndims is not None and not -max(p.shape.ndims, 1) <= int(axis) < max(
            p.shape.ndims, 1):
        raise ValueError(f"gather: axis {axis} is out of range for params of rank "
                         f"{p.shape.ndims} (shape {p.shape})")
    axis = int(axis) % p.shape.ndims if p.shape.ndims else int(axis)
    if batch_dims:
        return _batch_gather(p, i, axis, int(batch_dims), name)
    if p.shape.ndims is not None and i.shape.ndims is not None:
        shp = list(p.shape.values[:axis]) + list(i.shape.values) + list(p.shape.values[axis + 1:])
    else:
        shp = None
    return make_tensor("GatherV2", [p, i], p.dtype, shp, {"axis": axis}, name=name)


def _batch_gather(p, i, axis, b, name):
    """``gather`` with ``batch_dims=b``: each of the leading ``b`` (batch) positions gathers
    from its own slice of ``params`` along ``axis == b`` (TF's only case with b == axis; the
    general ``axis > b`` is not built). As one gather from ``params`` flattened over the batch
    and ``axis``, with each batch position's indices offset by its row in that matrix."""
    from estimator_npu.engine.ops import array_ops, reduction_ops
    if i.shape.ndims is None or p.shape.ndims is None:
        raise ValueError("gather: batch_dims needs params and indices of known rank")
    b = b + i.shape.ndims if b < 0 else b
    if not 0 < b <= i.shape.ndims or axis != b:
        raise ValueError(f"gather: batch_dims={b} with axis={axis} (params rank "
                         f"{p.shape.ndims}, indices rank {i.shape.ndims}) is not supported: "
                         f"batch_dims must be in [1, rank(indices)] and axis == batch_dims")
    ps = array_ops.shape(p)  # int32 shapes for the reshapes, offsets in the indices' dtype
    psi = array_ops.shape(p, out_type=i.dtype)
    flat = reshape(p, array_ops.concat([[-1], ps[b + 1:]], 0))
    rows = array_ops.range(reduction_ops.reduce_prod(psi[:b]), dtype=i.dtype) * psi[b]
    offsets = reshape(rows, array_ops.concat([ps[:b], [1] * (i.shape.ndims - b)], 0))
    out = gather(flat, i + offsets, 0)
    out = reshape(out, array_ops.concat([ps[:b], array_ops.shape(i)[b:], ps[b + 1:]], 0),
                  name=name)
    out.set_shape(list(p.shape.values[:b]) + list(i.shape.values[b:]) +
                  list(p.shape.values[b + 1:]))
    return out


def _gather_grad(op, dy):
    return [make_tensor("GatherGrad", [dy, op.inputs[0], op.inputs[1]], dy.dtype,
                        op.inputs[0].shape, {"axis": op.attrs["axis"]}), None]


def _gather_grad_kernel(dy, params, idx, axis):
    out = np.zeros(np.shape(params), dtype=dy.dtype)
    moved = np.moveaxis(out, axis, 0)
    d = np.moveaxis(dy, list(builtins_range(axis, axis + np.ndim(idx))),
                    list(builtins_range(np.ndim(idx))))
    scatter_add_rows(moved, np.asarray(idx).reshape(-1), d.reshape((-1,) + moved.shape[1:]))
    return out


OPS.define("GatherV2", kernel=lambda op, ctx: (lambda p, i, _a=op.attrs["axis"]:
                                               np.take(p, i, axis=_a)),
           grad=_gather_grad)
OPS.define("GatherGrad", kernel=with_attrs(_gather_grad_kernel, "axis"),
           grad=lambda op, g: [gather(g, op.inputs[2], axis=op.attrs["axis"]), None, None])
