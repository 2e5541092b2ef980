"""More ``tf.sparse`` ops: ``maximum`` / ``minimum`` of two SparseTensors (the union of
their entries, a missing entry counting 0; no gradient, as TF's), ``split`` along one
dimension (composed from ``sparse_slice``), ``merge`` (ids and values into a SparseTensor
over a vocabulary) and ``to_indicator`` (a dense bool membership tensor)."""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops, math_ops, scatter_ops
from estimator_npu.engine.ops.core import convert_to_tensor, make_op
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily, with_attrs
from estimator_npu.engine.sparse_tensor import SparseTensor
from estimator_npu.math_ops_extra.tensor_utils import get_static_value
from estimator_npu.math_ops_extra.sparse_ops import _rank, _sp, sparse_reorder, sparse_slice

OPS = OpFamily(__name__)  # this family's op definitions (data)
_I64 = dtypes.int64


# ------------------------------------------------------------------ maximum / minimum
def _min_max(ai, av, ashape, bi, bv, bshape, mode):
    ashape, bshape = np.asarray(ashape, np.int64), np.asarray(bshape, np.int64)
    if ashape.tolist() != bshape.tolist():
        raise ValueError(f"sparse.{mode}: the operands must have the same dense shape, got "
                         f"{ashape.tolist()} and {bshape.tolist()}")
    ai = np.asarray(ai, np.int64).reshape(-1, ashape.size)
    bi = np.asarray(bi, np.int64).reshape(-1, bshape.size)
    entries = {}
    for which, ind, vals in ((0, ai, av), (1, bi, bv)):
        for k, v in zip(map(tuple, ind), vals):
            entries.setdefault(k, [0, 0])[which] = v
    keys = sorted(entries)
    fn = np.maximum if mode == "maximum" else np.minimum
    out_v = np.array([fn(*entries[k]) for k in keys], av.dtype).reshape(-1)
    out_i = np.array(keys, np.int64).reshape(-1, ashape.size)
    return out_i, out_v


OPS.define("SparseSparseMinOrMax", kernel=with_attrs(_min_max, "mode"),
           grad=NOT_DIFFERENTIABLE)


def _min_or_max(sp_a, sp_b, mode, name):
    a, b = _sp(sp_a, "sp_a"), _sp(sp_b, "sp_b")
    if a.values.dtype != b.values.dtype:
        raise TypeError(f"sparse.{mode}: sp_a and sp_b must have the same dtype, got "
                        f"{a.values.dtype.name} and {b.values.dtype.name}")
    op = make_op("SparseSparseMinOrMax", [a.indices, a.values, a.dense_shape, b.indices,
                                          b.values, b.dense_shape],
                 [(_I64, [None, _rank(a)]), (a.values.dtype, [None])], {"mode": mode},
                 name=name)
    return SparseTensor(op.outputs[0], op.outputs[1], a.dense_shape)


def sparse_maximum(sp_a, sp_b, name=None):
    """``tf.sparse.maximum``: the element-wise maximum of two SparseTensors of the same
    dense shape, over the union of their entries (a missing entry counts 0)."""
    return _min_or_max(sp_a, sp_b, "maximum", name)


def sparse_minimum(sp_a, sp_b, name=None):
    """``tf.sparse.minimum``: as ``sparse_maximum``, the minimum."""
    return _min_or_max(sp_a, sp_b, "minimum", name)


# ------------------------------------------------------------------ split
def sparse_split(keyword_required=None, sp_input=None, num_split=None, axis=None, name=None,
                 split_dim=None):
    """``tf.sparse.split``: ``num_split`` SparseTensors along ``axis``; the first
    ``size % num_split`` pieces are one longer, as TF's."""
    if keyword_required is not None:
        raise ValueError("sparse.split: pass sp_input, num_split and axis by keyword")
    axis = split_dim if axis is None else axis
    if sp_input is None or num_split is None or axis is None:
        raise ValueError("sparse.split: sp_input, num_split and axis are required")
    sp = _sp(sp_input)
    n, r = int(num_split), _rank(sp)
    if n < 1:
        raise ValueError(f"sparse.split: num_split must be >= 1, got {num_split}")
    if not isinstance(axis, (int, np.integer)):
        raise TypeError(f"sparse.split: axis must be a Python int, got {axis!r}")
    if r is None and axis < 0:
        raise ValueError("sparse.split: a negative axis needs the rank of sp_input")
    axis = int(axis) % r if r is not None else int(axis)
    if r is not None and not 0 <= axis < r:
        raise ValueError(f"sparse.split: axis {axis} out of range for rank {r}")
    dim = sp.dense_shape[axis]
    base, extra = dim // n, dim % n
    onehot = math_ops.cast(math_ops.equal(array_ops.range(
        array_ops.size(sp.dense_shape, out_type=_I64)), np.int64(axis)), _I64)
    pieces = []
    for i in range(n):
        size_i = base + math_ops.cast(math_ops.less(np.int64(i), extra), _I64)
        start_i = i * base + math_ops.minimum(np.int64(i), extra)
        size = sp.dense_shape * (1 - onehot) + onehot * size_i
        pieces.append(sparse_slice(sp, onehot * start_i, size, name=name))
    return pieces


# ------------------------------------------------------------------ merge / to_indicator
def sparse_merge(sp_ids, sp_values, vocab_size, name=None, already_sorted=False):
    """``tf.sparse_merge``: the SparseTensor whose last index is ``sp_ids``' value (an id
    below ``vocab_size``) and whose values are ``sp_values``' values, in row-major order
    unless ``already_sorted``."""
    ids, vals = _sp(sp_ids, "sp_ids"), _sp(sp_values, "sp_values")
    if not ids.values.dtype.is_integer:
        raise TypeError(f"sparse_merge: sp_ids must have integer values, got "
                        f"{ids.values.dtype.name}")
    if not isinstance(vocab_size, (int, np.integer)):
        raise TypeError(f"sparse_merge: vocab_size must be a Python int (a list of them, "
                        f"TF's multi-column merge, is not implemented yet), got "
                        f"{vocab_size!r}")
    new_ind = array_ops.concat([ids.indices[:, :-1], array_ops.expand_dims(
        math_ops.cast(ids.values, _I64), 1)], 1)
    known = get_static_value(ids.dense_shape)
    shape = np.append(np.asarray(known, np.int64)[:-1], np.int64(vocab_size)) \
        if known is not None else \
        array_ops.concat([ids.dense_shape[:-1], np.array([vocab_size], np.int64)], 0)
    out = SparseTensor(new_ind, vals.values, shape)
    return out if already_sorted else sparse_reorder(out, name=name)


def sparse_to_indicator(sp_input, vocab_size, name=None):
    """``tf.sparse.to_indicator``: ``out[..., id]`` is True for each id of the rows of an
    integer SparseTensor (a dense bool tensor, last dimension ``vocab_size``)."""
    sp = _sp(sp_input)
    if not sp.values.dtype.is_integer:
        raise TypeError(f"sparse.to_indicator: sp_input must have integer values, got "
                        f"{sp.values.dtype.name}")
    merged = sparse_merge(sp, sp, int(vocab_size))
    ones = array_ops.ones_like(merged.values, dtype=dtypes.int32)
    counts = scatter_ops.scatter_nd(merged.indices, ones, merged.dense_shape)
    return math_ops.greater(counts, 0, name=name)
