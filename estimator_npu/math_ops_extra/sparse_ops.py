"""TF1's sparse-tensor ops (``tf.sparse_*`` / ``tf.sparse.*``) on ``SparseTensor``'s three
tensors. The index bookkeeping (sorting, merging, slicing, reshaping) is done by primitive
ops without gradients that also return where each output value comes from; the values then
go through ``gather`` / segment sums, so gradients reach the input values as in TF."""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops, math_ops, scatter_ops
from estimator_npu.engine.graph import Tensor
from estimator_npu.engine.ops.core import convert_to_tensor, make_op, make_tensor
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily, simple, with_attrs
from estimator_npu.engine.sparse_tensor import SparseTensor
from estimator_npu.math_ops_extra import segments
from estimator_npu.math_ops_extra.tensor_utils import get_static_value

OPS = OpFamily(__name__)  # this family's op definitions (data)
_I64 = dtypes.int64


def _sp(x, what="sp_input"):
    if isinstance(x, SparseTensor):
        return x
    if hasattr(x, "indices") and hasattr(x, "dense_shape"):
        return SparseTensor.from_value(x)
    raise TypeError(f"{what} must be a SparseTensor, got {type(x).__name__}")


def _rank(sp):
    r = sp.indices.shape.values
    return None if r is None else r[1]


def _row_major(indices, shape):
    """The stable order that sorts ``indices`` lexicographically (row-major)."""
    indices = np.asarray(indices, np.int64)
    if indices.shape[0] == 0:
        return np.zeros(0, np.int64)
    return np.lexsort(indices.T[::-1]).astype(np.int64)


def _gather_values(values, order, name=None):
    return array_ops.gather(values, order, name=name)


# ------------------------------------------------------------------ reorder / transpose
def sparse_reorder(sp_input, name=None):
    """``sp_input`` with its entries in row-major (canonical) order."""
    sp = _sp(sp_input)
    nnz = sp.indices.shape.values[0] if sp.indices.shape.ndims else None
    op = make_op("SparseReorderOrder", [sp.indices, sp.dense_shape],
                 [(_I64, sp.indices.shape), (_I64, [nnz])], name=name)
    return SparseTensor(op.outputs[0], _gather_values(sp.values, op.outputs[1]),
                        sp.dense_shape)


OPS.define("SparseReorderOrder", kernel=simple(lambda idx, shape: (
    np.asarray(idx, np.int64)[_row_major(idx, shape)], _row_major(idx, shape))),
    grad=NOT_DIFFERENTIABLE)


def sparse_transpose(sp_input, perm=None, name=None):
    """The transpose of ``sp_input`` (``perm`` defaults to reversing the dims)."""
    sp = _sp(sp_input)
    if perm is None:
        r = _rank(sp)
        if r is None:
            raise ValueError("sparse_transpose: perm is needed when the rank is unknown")
        perm = list(range(r))[::-1]
    perm = convert_to_tensor(perm, dtype=dtypes.int32)
    ind = array_ops.gather(sp.indices, perm, axis=1)
    shape = array_ops.gather(sp.dense_shape, perm)
    return sparse_reorder(SparseTensor(ind, sp.values, shape), name=name)


# ------------------------------------------------------------------ to / from dense
def _to_dense(sp, default=0):
    d = convert_to_tensor(default, dtype=sp.values.dtype)
    base = array_ops.fill(sp.dense_shape, d) if not _is_zero(default) else None
    if base is None:
        return scatter_ops.scatter_nd(sp.indices, sp.values, sp.dense_shape)
    from estimator_npu.math_ops_extra.scatters import tensor_scatter_nd_update
    return tensor_scatter_nd_update(base, sp.indices, sp.values)


def _is_zero(v):
    return isinstance(v, (int, float)) and v == 0


def from_dense(tensor, name=None):
    """The ``SparseTensor`` of the non-zero entries of ``tensor``."""
    t = convert_to_tensor(tensor)
    idx = array_ops.where(math_ops.not_equal(t, array_ops.zeros_like(t)))
    return SparseTensor(idx, scatter_ops.gather_nd(t, idx, name=name),
                        array_ops.shape(t, out_type=_I64))


def sparse_reduce_sum(sp_input, axis=None, keepdims=None, reduction_axes=None,
                      keep_dims=None, name=None):
    """The sum over ``axis`` of ``sp_input`` (missing entries count 0), a dense tensor."""
    sp = _sp(sp_input)
    axis = reduction_axes if axis is None else axis
    keep = bool(keep_dims if keep_dims is not None else keepdims)
    return math_ops.reduce_sum(_to_dense(sp), axis=axis, keepdims=keep, name=name)


def sparse_reduce_max(sp_input, axis=None, keepdims=None, reduction_axes=None,
                      keep_dims=None, name=None):
    """The maximum over ``axis`` of the entries present in ``sp_input``, a dense tensor
    (0 where no entry is present, as TF's)."""
    sp = _sp(sp_input)
    axis = reduction_axes if axis is None else axis
    keep = bool(keep_dims if keep_dims is not None else keepdims)
    low = -np.inf if sp.values.dtype.is_floating else np.iinfo(sp.values.dtype.np).min
    m = math_ops.reduce_max(_to_dense(sp, low), axis=axis, keepdims=keep)
    present = _to_dense(SparseTensor(sp.indices, array_ops.ones_like(sp.values),
                                     sp.dense_shape))
    any_present = math_ops.greater(math_ops.reduce_max(present, axis=axis, keepdims=keep),
                                   array_ops.zeros_like(m))
    return array_ops.where(any_present, m, array_ops.zeros_like(m), name=name)


# ------------------------------------------------------------------ add / concat / retain
def sparse_add(a, b, threshold=0, thresh=None, name=None):
    """``a + b``: a ``SparseTensor`` when both are sparse (entries of the same index summed;
    such sums with ``|sum| < threshold`` dropped, as TF's kernel), else a dense tensor."""
    threshold = thresh if thresh is not None else threshold
    a_sparse = isinstance(a, SparseTensor) or hasattr(a, "dense_shape")
    b_sparse = isinstance(b, SparseTensor) or hasattr(b, "dense_shape")
    if not (a_sparse or b_sparse):
        raise TypeError("sparse_add: at least one of a and b must be a SparseTensor")
    if a_sparse != b_sparse:
        sp, dense = (_sp(a), b) if a_sparse else (_sp(b), a)
        from estimator_npu.math_ops_extra.scatters import tensor_scatter_nd_add
        return tensor_scatter_nd_add(convert_to_tensor(dense, dtype=sp.values.dtype),
                                     sp.indices, sp.values, name=name)
    a, b = _sp(a), _sp(b)
    op = make_op("SparseAddIndices", [a.indices, b.indices, a.dense_shape],
                 [(_I64, [None, _rank(a)]), (_I64, [None]), (_I64, [])], name=name)
    out_idx, seg, n = op.outputs
    vals = scatter_ops.unsorted_segment_sum(array_ops.concat([a.values, b.values], 0), seg, n)
    if threshold:
        summed = math_ops.greater(scatter_ops.unsorted_segment_sum(
            array_ops.ones_like(seg), seg, n), array_ops.ones_like(seg[:1]))
        keep = math_ops.logical_or(math_ops.logical_not(summed), math_ops.greater_equal(
            math_ops.abs(vals), math_ops.cast(threshold, vals.dtype)))
        out_idx, vals = array_ops.boolean_mask(out_idx, keep), array_ops.boolean_mask(vals, keep)
    return SparseTensor(out_idx, vals, a.dense_shape)


def _is_sorted(ind):
    if ind.shape[0] < 2:
        return True
    return bool(np.all(np.diff(_row_major(ind, None)) > 0))


def _add_indices(ai, bi, shape):
    rank = len(shape)
    ai = np.asarray(ai, np.int64).reshape(-1, rank)
    bi = np.asarray(bi, np.int64).reshape(-1, rank)
    both = np.concatenate([ai, bi])
    if both.shape[0] == 0:
        return both, np.zeros(0, np.int64), np.array(0, np.int64)
    if _is_sorted(ai) and _is_sorted(bi):
        uniq, inv = np.unique(both, axis=0, return_inverse=True)
        return uniq, inv.reshape(-1).astype(np.int64), np.array(uniq.shape[0], np.int64)
    # TF merges the two entry lists as given (it expects each in row-major order).
    out, seg = [], np.empty(both.shape[0], np.int64)
    i = j = 0
    na = ai.shape[0]
    while i < na or j < bi.shape[0]:
        if j >= bi.shape[0] or (i < na and tuple(ai[i]) < tuple(bi[j])):
            seg[i] = len(out)
            out.append(ai[i])
            i += 1
        elif i >= na or tuple(bi[j]) < tuple(ai[i]):
            seg[na + j] = len(out)
            out.append(bi[j])
            j += 1
        else:
            seg[i] = seg[na + j] = len(out)
            out.append(ai[i])
            i += 1
            j += 1
    return np.array(out, np.int64).reshape(-1, rank), seg, np.array(len(out), np.int64)


OPS.define("SparseAddIndices", kernel=simple(_add_indices), grad=NOT_DIFFERENTIABLE)


def sparse_concat(axis, sp_inputs, name=None, expand_nonconcat_dim=False,
                  concat_dim=None, expand_nonconcat_dims=None):
    """The ``SparseTensor``s of ``sp_inputs`` joined along ``axis``."""
    axis = concat_dim if concat_dim is not None else axis
    expand = bool(expand_nonconcat_dims if expand_nonconcat_dims is not None
                  else expand_nonconcat_dim)
    sps = [_sp(s, "sp_inputs") for s in sp_inputs]
    inputs = [s.indices for s in sps] + [s.dense_shape for s in sps]
    nnz = [s.indices.shape.values[0] if s.indices.shape.ndims else None for s in sps]
    total = None if None in nnz else sum(nnz)
    op = make_op("SparseConcatIndices", inputs,
                 [(_I64, [total, _rank(sps[0])]), (_I64, sps[0].dense_shape.shape),
                  (_I64, [total])], {"axis": int(axis), "expand": expand, "n": len(sps)},
                 name=name)
    vals = array_ops.concat([s.values for s in sps], 0)
    return SparseTensor(op.outputs[0], _gather_values(vals, op.outputs[2]), op.outputs[1])


def _concat_indices(*args, axis, expand, n):
    inds = [np.asarray(a, np.int64) for a in args[:n]]
    shapes = [np.asarray(s, np.int64) for s in args[n:]]
    rank = shapes[0].size
    axis %= rank
    out_shape = shapes[0].copy()
    if expand:
        for s in shapes:
            out_shape = np.maximum(out_shape, s)
    offset, moved = 0, []
    for ind, s in zip(inds, shapes):
        if not expand and any(s[d] != shapes[0][d] for d in range(rank) if d != axis):
            raise ValueError(f"sparse_concat: input shapes {[x.tolist() for x in shapes]} "
                             f"differ outside the concat axis {axis}")
        ind = ind.reshape(-1, rank).copy()
        ind[:, axis] += offset
        offset += int(s[axis])
        moved.append(ind)
    out_shape[axis] = offset
    allind = np.concatenate(moved)
    order = _row_major(allind, out_shape)
    return allind[order], out_shape, order


OPS.define("SparseConcatIndices", kernel=with_attrs(_concat_indices, "axis", "expand", "n"),
           grad=NOT_DIFFERENTIABLE)


def sparse_retain(sp_input, to_retain):
    """The entries of ``sp_input`` where the bool vector ``to_retain`` is true."""
    sp = _sp(sp_input)
    keep = convert_to_tensor(to_retain, dtype=dtypes.bool)
    return SparseTensor(array_ops.boolean_mask(sp.indices, keep),
                        array_ops.boolean_mask(sp.values, keep), sp.dense_shape)


# ------------------------------------------------------------------ reshape / slice / fill
def sparse_reshape(sp_input, shape, name=None):
    """``sp_input`` with dense shape ``shape`` (one dim may be -1), the same entries in
    row-major order."""
    sp = _sp(sp_input)
    new = convert_to_tensor(shape, dtype=_I64)
    n = new.shape.values[0] if new.shape.ndims == 1 else None
    op = make_op("SparseReshape", [sp.indices, sp.dense_shape, new],
                 [(_I64, [sp.indices.shape.values[0] if sp.indices.shape.ndims else None, n]),
                  (_I64, [n])], name=name)
    return SparseTensor(op.outputs[0], sp.values, op.outputs[1])


def _reshape(ind, shape, new):
    shape, new = np.asarray(shape, np.int64), np.asarray(new, np.int64).copy()
    total = int(np.prod(shape))
    if (new == -1).sum() > 1:
        raise ValueError(f"sparse_reshape: at most one dimension may be -1, got {new.tolist()}")
    if (new == -1).any():
        known = int(np.prod(new[new != -1]))
        new[new == -1] = total // known if known else 0
    if int(np.prod(new)) != total:
        raise ValueError(f"sparse_reshape: cannot reshape a SparseTensor of dense shape "
                         f"{shape.tolist()} ({total} elements) to {new.tolist()}")
    ind = np.asarray(ind, np.int64).reshape(-1, shape.size)
    flat = np.ravel_multi_index(ind.T, shape) if ind.size else np.zeros(0, np.int64)
    out = np.stack(np.unravel_index(flat, new), axis=1) if ind.shape[0] else \
        np.zeros((0, new.size), np.int64)
    return out.astype(np.int64), new


OPS.define("SparseReshape", kernel=simple(_reshape), grad=NOT_DIFFERENTIABLE)


def sparse_slice(sp_input, start, size, name=None):
    """The entries of ``sp_input`` inside the box ``[start, start + size)``, re-indexed
    from ``start`` (the box clipped to the dense shape)."""
    sp = _sp(sp_input)
    op = make_op("SparseSliceIndices", [sp.indices, sp.dense_shape,
                                        convert_to_tensor(start, dtype=_I64),
                                        convert_to_tensor(size, dtype=_I64)],
                 [(_I64, [None, _rank(sp)]), (_I64, sp.dense_shape.shape), (_I64, [None])],
                 name=name)
    return SparseTensor(op.outputs[0], _gather_values(sp.values, op.outputs[2]),
                        op.outputs[1])


def _slice(ind, shape, start, size):
    shape, start, size = (np.asarray(v, np.int64) for v in (shape, start, size))
    ind = np.asarray(ind, np.int64).reshape(-1, shape.size)
    end = np.minimum(start + size, shape)
    keep = np.all((ind >= start) & (ind < end), axis=1)
    pos = np.flatnonzero(keep).astype(np.int64)
    return ind[keep] - start, np.maximum(end - start, 0), pos


OPS.define("SparseSliceIndices", kernel=simple(_slice), grad=NOT_DIFFERENTIABLE)


def sparse_fill_empty_rows(sp_input, default_value, name=None):
    """``(filled, empty_row_indicator)``: every row (first index) without an entry gets one
    at column 0 with ``default_value``; entries are grouped by row, as TF's."""
    sp = _sp(sp_input)
    d = convert_to_tensor(default_value, dtype=sp.values.dtype)
    static = get_static_value(sp.dense_shape)
    rows = None if static is None else int(static[0])
    op = make_op("SparseFillEmptyRowsIndices", [sp.indices, sp.dense_shape],
                 [(_I64, [None, _rank(sp)]), (_I64, [None]), (dtypes.bool, [rows])],
                 name=name)
    vals = array_ops.concat([sp.values, array_ops.reshape(d, [1])], 0)
    out = SparseTensor(op.outputs[0], _gather_values(vals, op.outputs[1]), sp.dense_shape)
    return out, op.outputs[2]


def _fill_empty_rows(ind, shape):
    shape = np.asarray(shape, np.int64)
    ind = np.asarray(ind, np.int64).reshape(-1, shape.size)
    rows = int(shape[0])
    empty = np.ones(rows, bool)
    empty[ind[:, 0]] = False
    add = np.zeros((int(empty.sum()), shape.size), np.int64)
    add[:, 0] = np.flatnonzero(empty)
    allind = np.concatenate([ind, add])
    src = np.concatenate([np.arange(ind.shape[0]), np.full(add.shape[0], ind.shape[0])])
    order = np.argsort(allind[:, 0], kind="stable")   # by row; a row keeps its order (TF)
    return allind[order], src[order].astype(np.int64), empty


OPS.define("SparseFillEmptyRowsIndices", kernel=simple(_fill_empty_rows),
           grad=NOT_DIFFERENTIABLE)


# ------------------------------------------------------------------ softmax / matmul
def sparse_softmax(sp_input, name=None):
    """Softmax over the last dim of each row, among the entries present."""
    sp = _sp(sp_input)
    op = make_op("SparseRowIds", [sp.indices], [(_I64, [None]), (_I64, [])])
    rid, n = op.outputs
    m = segments.unsorted_segment_max(sp.values, rid, n)
    from estimator_npu.engine.ops.core import stop_gradient
    e = math_ops.exp(sp.values - array_ops.gather(stop_gradient(m), rid))
    s = scatter_ops.unsorted_segment_sum(e, rid, n)
    out = math_ops.divide(e, array_ops.gather(s, rid))
    # TF's kernel writes the values in row-major order next to the indices as given (the
    # same thing for the canonically ordered input it expects).
    order = make_op("SparseReorderOrder", [sp.indices, sp.dense_shape],
                    [(_I64, sp.indices.shape), (_I64, sp.values.shape)]).outputs[1]
    return SparseTensor(sp.indices, array_ops.gather(out, order, name=name), sp.dense_shape)


def _row_ids(ind):
    ind = np.asarray(ind, np.int64)
    if ind.shape[0] == 0:
        return np.zeros(0, np.int64), np.array(0, np.int64)
    _, inv = np.unique(ind[:, :-1], axis=0, return_inverse=True)
    inv = inv.reshape(-1).astype(np.int64)
    return inv, np.array(inv.max() + 1, np.int64)


OPS.define("SparseRowIds", kernel=simple(_row_ids), grad=NOT_DIFFERENTIABLE)


def sparse_tensor_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """The dense product of 2-D ``SparseTensor`` ``sp_a`` and dense ``b`` (gradients into
    ``sp_a``'s values and ``b``)."""
    sp = _sp(sp_a, "sp_a")
    b = convert_to_tensor(b, dtype=sp.values.dtype)
    ind, shape = sp.indices, sp.dense_shape
    static = get_static_value(shape)
    rows = None if static is None else int(static[1 if adjoint_a else 0])
    if adjoint_a:
        ind = array_ops.gather(ind, [1, 0], axis=1)
        shape = array_ops.gather(shape, [1, 0])
    if adjoint_b:
        b = array_ops.transpose(b)
    return _spmm(ind, sp.values, shape, b, name, rows)


def _spmm(ind, values, shape, b, name=None, rows=None):
    cols = b.shape.values[1] if b.shape.ndims == 2 else None
    return make_tensor("SparseDenseMatMul", [ind, values, shape, b], values.dtype,
                       [rows, cols], name=name)


def _spmm_kernel(ind, values, shape, b):
    ind = np.asarray(ind, np.int64).reshape(-1, 2)
    out = np.zeros((int(shape[0]), b.shape[1]), dtype=b.dtype)
    if ind.shape[0]:
        np.add.at(out, ind[:, 0], values[:, None] * b[ind[:, 1]])
    return out


def _swap(ind, shape):
    return array_ops.gather(ind, [1, 0], axis=1), array_ops.gather(shape, [1, 0])


def _spmm_grad(op, dy):
    ind, values, shape, b = op.inputs
    t_ind, t_shape = _swap(ind, shape)
    gv = make_tensor("SparseDenseMatMulValuesGrad", [ind, dy, b, shape], values.dtype,
                     values.shape)
    return [None, gv, None, _spmm(t_ind, values, t_shape, dy)]


def _values_grad_grad(op, g):
    ind, dy, b, shape = op.inputs
    t_ind, t_shape = _swap(ind, shape)
    return [None, _spmm(ind, g, shape, b), _spmm(t_ind, g, t_shape, dy), None]


OPS.define("SparseDenseMatMul", kernel=simple(_spmm_kernel), grad=_spmm_grad)
OPS.define("SparseDenseMatMulValuesGrad", kernel=simple(lambda ind, dy, b, shape: np.sum(
    dy[np.asarray(ind, np.int64)[:, 0]] * b[np.asarray(ind, np.int64)[:, 1]], axis=1)
    if np.size(ind) else np.zeros(0, dy.dtype)), grad=_values_grad_grad)



def sparse_placeholder(dtype, shape=None, name=None):
    """A ``SparseTensor`` of three placeholders (indices, values, dense_shape), fed with a
    ``SparseTensorValue`` (or a tuple of three arrays) under the SparseTensor as the key."""
    from estimator_npu.engine.ops.core import placeholder
    name = name or "Placeholder"
    rank = None
    if isinstance(shape, Tensor):   # a shape tensor (tkipf/gcn: tf.constant(shp, tf.int64))
        if shape.op.type != "Const":
            rank = shape.shape.values[0] if shape.shape.ndims == 1 else None
            return SparseTensor(placeholder(_I64, [None, rank], name=f"{name}/indices"),
                                placeholder(dtype, [None], name=f"{name}/values"), shape)
        shape = [int(d) for d in np.ravel(shape.op.attrs["value"])]
    if shape is not None:
        shape = [None if d is None or (isinstance(d, int) and d < 0) else d for d in shape]
        rank = len(shape)
    values = placeholder(dtype, [None], name=f"{name}/values")
    indices = placeholder(_I64, [None, rank], name=f"{name}/indices")
    if shape is not None and None not in shape:
        dense_shape = convert_to_tensor(np.array(shape, np.int64), name=f"{name}/shape")
    else:
        dense_shape = placeholder(_I64, [rank], name=f"{name}/shape")
    return SparseTensor(indices, values, dense_shape)
