"""N-d gathers and scatters (``gather_nd``, ``scatter_nd``), variable scatters
(``scatter_update/add/sub``), segment sums, ``unique`` and ``eye``."""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops
from estimator_npu.engine.ops.core import constant, convert_to_tensor, make_op, make_tensor
from estimator_npu.engine.ops.state_ops import variable_op
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily, simple, with_attrs

OPS = OpFamily(__name__)  # this family's op definitions (data)


def _int_tensor(x, what, op_type):
    t = convert_to_tensor(x)
    if not t.dtype.is_integer:
        raise TypeError(f"{op_type}: {what} must be int32/int64, got {t.dtype.name}")
    return t


# ------------------------------------------------------------------ gather_nd / scatter_nd
def gather_nd(params, indices, name=None, batch_dims=0):
    """``out[i...] = params[indices[i..., :]]`` (the last dim of ``indices`` indexes the
    leading dims of ``params``)."""
    if batch_dims:
        raise NotImplementedError("gather_nd: batch_dims > 0 is not supported")
    p = convert_to_tensor(params)
    i = _int_tensor(indices, "indices", "GatherNd")
    shape = None
    if i.shape.ndims is not None and p.shape.ndims is not None and i.shape.values[-1] is not None:
        shape = list(i.shape.values[:-1]) + list(p.shape.values[i.shape[-1]:])
    return make_tensor("GatherNd", [p, i], p.dtype, shape, name=name)


def _gather_nd(p, idx):
    idx = np.asarray(idx)
    return p[tuple(np.moveaxis(idx, -1, 0))] if idx.shape[-1] else \
        np.broadcast_to(p, idx.shape[:-1] + p.shape).copy()


OPS.define("GatherNd", kernel=simple(_gather_nd),
           grad=lambda op, dy: [make_tensor("ScatterNdLike", [op.inputs[1], dy, op.inputs[0]],
                                            dy.dtype, op.inputs[0].shape), None])


def scatter_nd(indices, updates, shape, name=None):
    """A zero tensor of ``shape`` with ``updates`` added at ``indices`` (duplicates sum)."""
    i = _int_tensor(indices, "indices", "ScatterNd")
    u = convert_to_tensor(updates)
    dims = array_ops._static_ints(shape, "shape", "ScatterNd")
    if dims is None:   # known when the graph runs (tf.shape(x) ...)
        s = _int_tensor(shape, "shape", "ScatterNd")
        rank = s.shape.values[0] if s.shape.ndims == 1 else None
        return make_tensor("ScatterNdDynamic", [i, u, s], u.dtype,
                           None if rank is None else [None] * rank, name=name)
    return make_tensor("ScatterNd", [i, u], u.dtype, dims, {"shape": tuple(dims)}, name=name)


def _scatter_nd(idx, u, shape):
    out = np.zeros(shape, dtype=u.dtype)
    idx = np.asarray(idx)
    np.add.at(out, tuple(np.moveaxis(idx, -1, 0)), u)
    return out


OPS.define("ScatterNd", kernel=with_attrs(_scatter_nd, "shape"),
           grad=lambda op, dy: [None, gather_nd(dy, op.inputs[0])])
OPS.define("ScatterNdDynamic", kernel=simple(lambda idx, u, shape: _scatter_nd(
               idx, u, tuple(int(d) for d in np.asarray(shape).reshape(-1)))),
           grad=lambda op, dy: [None, gather_nd(dy, op.inputs[0]), None])
OPS.define("ScatterNdLike", kernel=simple(lambda idx, u, like: _scatter_nd(idx, u,
                                                                           np.shape(like))),
           grad=lambda op, g: [None, gather_nd(g, op.inputs[0]), None])


# ------------------------------------------------------------------ variable scatters
def _scatter_kernel(mode):
    def factory(op, ctx):
        store = ctx.store(op.attrs["var"])

        def scatter(idx, u):
            a = store.value
            if a is None:
                from estimator_npu import errors
                raise errors.FailedPreconditionError(
                    None, op, f"Attempting to use uninitialized value {op.attrs['var'].name}")
            idx = np.asarray(idx)
            if mode == "update":
                a[idx] = u
            elif mode == "add":
                np.add.at(a, idx, u)
            else:
                np.subtract.at(a, idx, u)
            return a
        return scatter
    return factory


for _t, _m in (("ScatterUpdate", "update"), ("ScatterAdd", "add"), ("ScatterSub", "sub")):
    OPS.define(_t, kernel=_scatter_kernel(_m), grad=NOT_DIFFERENTIABLE, may_alias=True,
               stateful=True)


def _scatter(op_type, ref, indices, updates, name):
    vop = variable_op(ref)
    vt = vop.outputs[0]
    i = _int_tensor(indices, "indices", op_type)
    u = convert_to_tensor(updates, dtype=vt.dtype)
    return make_op(op_type, [i, u], [(vt.dtype, vt.shape)], {"var": vop},
                   name=name or op_type).outputs[0]


def scatter_update(ref, indices, updates, use_locking=True, name=None):
    """``ref[indices] = updates`` on a variable; returns its new value."""
    return _scatter("ScatterUpdate", ref, indices, updates, name)


def scatter_add(ref, indices, updates, use_locking=False, name=None):
    return _scatter("ScatterAdd", ref, indices, updates, name)


def scatter_sub(ref, indices, updates, use_locking=False, name=None):
    return _scatter("ScatterSub", ref, indices, updates, name)


# ------------------------------------------------------------------ segment sums
def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """``out[k] = sum of data[i] with segment_ids[i] == k`` for ``k < num_segments``."""
    d = convert_to_tensor(data)
    s = _int_tensor(segment_ids, "segment_ids", "UnsortedSegmentSum")
    n = convert_to_tensor(num_segments)
    shape = None
    if d.shape.ndims is not None and s.shape.ndims is not None:
        static_n = int(n.op.attrs["value"]) if n.op.type == "Const" else None
        shape = [static_n] + list(d.shape.values[s.shape.ndims:])
    return make_tensor("UnsortedSegmentSum", [d, s, n], d.dtype, shape, name=name)


def _segment_sum(d, s, n):
    s = np.asarray(s)
    out = np.zeros((int(n),) + d.shape[s.ndim:], dtype=d.dtype)
    keep = s >= 0
    np.add.at(out, s[keep], d[keep])
    return out


def _segment_sum_grad(op, dy):
    # dy[ids], and zeros for the dropped (negative) ids: they read an appended zero row.
    from estimator_npu.engine.ops.math_ops import cast
    ids, n = op.inputs[1], cast(op.inputs[2], op.inputs[1].dtype)
    ext = array_ops.concat([dy, array_ops.zeros_like(dy[:1])], 0)
    rows = array_ops.where(ids >= 0, ids, array_ops.fill(array_ops.shape(ids), n))
    return [array_ops.gather(ext, rows), None, None]


OPS.define("UnsortedSegmentSum", kernel=simple(_segment_sum), grad=_segment_sum_grad)


def segment_sum(data, segment_ids, name=None):
    """Sums of rows of ``data`` over sorted ``segment_ids`` (``max(id) + 1`` rows)."""
    s = _int_tensor(segment_ids, "segment_ids", "SegmentSum")
    from estimator_npu.engine.ops import math_ops
    n = math_ops.reduce_max(s) + 1
    return unsorted_segment_sum(data, s, n, name=name)


# ------------------------------------------------------------------ unique / eye
def unique(x, out_idx=dtypes.int32, name=None):
    """``(y, idx)``: the distinct values of 1-D ``x`` in order of first appearance, and for
    each element its position in ``y``."""
    t = convert_to_tensor(x)
    odt = dtypes.as_dtype(out_idx)
    op = make_op("Unique", [t], [(t.dtype, [None]), (odt, t.shape)], {"dtype": odt},
                 name=name)
    return tuple(op.outputs)


def unique_with_counts(x, out_idx=dtypes.int32, name=None):
    """``(y, idx, count)`` as ``unique``, plus how often each value occurs."""
    t = convert_to_tensor(x)
    odt = dtypes.as_dtype(out_idx)
    op = make_op("UniqueWithCounts", [t], [(t.dtype, [None]), (odt, t.shape), (odt, [None])],
                 {"dtype": odt}, name=name)
    return tuple(op.outputs)


def _unique(x, dtype, counts=False):
    x = np.asarray(x)
    if x.ndim != 1:
        raise ValueError(f"unique: x must be 1-D, got shape {x.shape}")
    vals, first, inv, cnt = np.unique(x, return_index=True, return_inverse=True,
                                      return_counts=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    out = (vals[order], rank[inv].astype(dtype.np))
    return out + (cnt[order].astype(dtype.np),) if counts else out


OPS.define("Unique", kernel=lambda op, ctx: (lambda x, _d=op.attrs["dtype"]: _unique(x, _d)),
           grad=NOT_DIFFERENTIABLE)
OPS.define("UniqueWithCounts",
           kernel=lambda op, ctx: (lambda x, _d=op.attrs["dtype"]: _unique(x, _d, True)),
           grad=NOT_DIFFERENTIABLE)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """The identity matrix (``num_rows x num_columns``, optionally batched)."""
    n = int(num_rows)
    m = n if num_columns is None else int(num_columns)
    a = np.eye(n, m, dtype=dtypes.as_dtype(dtype).np)
    if batch_shape is not None:
        a = np.broadcast_to(a, tuple(int(b) for b in batch_shape) + (n, m)).copy()
    return constant(a, dtype=dtype, name=name or "eye")
