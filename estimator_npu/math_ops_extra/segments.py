"""Segment reductions beyond ``segment_sum``: ``(unsorted_)segment_max/min/prod/mean``,
``unsorted_segment_sqrt_n`` and ``sparse_segment_sum/mean/sqrt_n``, with TF's gradients
(ties of max/min share the gradient; products handle zeros)."""
import numpy as np

from estimator_npu.engine.ops import array_ops, math_ops, scatter_ops
from estimator_npu.engine.ops.core import convert_to_tensor, make_tensor
from estimator_npu.engine.ops.math_extra_ops import div_no_nan
from estimator_npu.engine.registry import OpFamily, with_attrs

OPS = OpFamily(__name__)  # this family's op definitions (data)

_UFUNC = {"Max": np.maximum, "Min": np.minimum, "Prod": np.multiply}


def _empty_value(kind, dtype):
    if kind == "Prod":
        return 1
    info = np.finfo(dtype) if np.dtype(dtype).kind == "f" else np.iinfo(dtype)
    return info.min if kind == "Max" else info.max


def _segment_reduce(d, s, n, kind, sorted_ids):
    d, s = np.asarray(d), np.asarray(s)
    if sorted_ids and s.size and np.any(np.diff(s.reshape(-1)) < 0):
        raise ValueError(f"segment_{kind.lower()}: segment_ids must be sorted, got "
                         f"{s.reshape(-1).tolist()}")
    n = int(n) if n is not None else (int(s.max()) + 1 if s.size else 0)
    out = np.full((n,) + d.shape[s.ndim:], _empty_value(kind, d.dtype), d.dtype)
    keep = s >= 0
    _UFUNC[kind].at(out, s[keep], d[keep])
    if sorted_ids and kind != "Prod":   # TF's SegmentMax/Min: 0 for an empty segment
        counts = np.bincount(s[keep].reshape(-1), minlength=n)
        out[counts == 0] = 0
    return out


def _reduce(kind, data, segment_ids, num_segments, name, sorted_ids):
    d = convert_to_tensor(data)
    s = scatter_ops._int_tensor(segment_ids, "segment_ids", kind)
    inputs = [d, s]
    static_n = None
    if num_segments is not None:
        n = convert_to_tensor(num_segments)
        inputs.append(n)
        static_n = int(np.asarray(n.op.attrs["value"])) if n.op.type == "Const" else None
    shape = None
    if d.shape.ndims is not None and s.shape.ndims is not None:
        shape = [static_n] + list(d.shape.values[s.shape.ndims:])
    op_type = ("Segment" if sorted_ids else "UnsortedSegment") + kind
    return make_tensor(op_type, inputs, d.dtype, shape, {"kind": kind, "sorted": sorted_ids},
                       name=name)


def _kernel(d, s, n=None, kind=None, sorted=None):  # noqa: A002
    return _segment_reduce(d, s, n, kind, sorted)


def _n_of(op):
    if len(op.inputs) > 2:
        return op.inputs[2]
    return math_ops.reduce_max(op.inputs[1]) + 1


def _gather_rows(t, ids, n):
    """``t[ids]``, with rows of zeros for the dropped (negative) ids."""
    ext = array_ops.concat([t, array_ops.zeros_like(t[:1])], 0)
    n = math_ops.cast(n, ids.dtype) * array_ops.ones_like(ids)
    return array_ops.gather(ext, array_ops.where(
        math_ops.greater_equal(ids, array_ops.zeros_like(ids)), ids, n))


def _minmax_grad(op, dy):
    d, s = op.inputs[0], op.inputs[1]
    n = _n_of(op)
    picked = math_ops.cast(math_ops.equal(d, _gather_rows(op.outputs[0], s, n)), d.dtype)
    count = scatter_ops.unsorted_segment_sum(picked, s, n)
    g = _gather_rows(div_no_nan(dy, count), s, n) * picked
    return [g, None] + [None] * (len(op.inputs) - 2)


def _prod_grad(op, dy):
    d, s = op.inputs[0], op.inputs[1]
    n = _n_of(op)
    zero = math_ops.equal(d, array_ops.zeros_like(d))
    zeros = scatter_ops.unsorted_segment_sum(math_ops.cast(zero, d.dtype), s, n)
    safe = array_ops.where(zero, array_ops.ones_like(d), d)
    nonzero_prod = _reduce("Prod", safe, s, n, None, False)
    others = array_ops.where(
        zero, _gather_rows(nonzero_prod, s, n) * math_ops.cast(math_ops.less_equal(
            _gather_rows(zeros, s, n), 1.0), d.dtype),
        _gather_rows(op.outputs[0], s, n) / safe)
    g = _gather_rows(dy, s, n) * others
    return [g, None] + [None] * (len(op.inputs) - 2)


for _kind, _grad in (("Max", _minmax_grad), ("Min", _minmax_grad), ("Prod", _prod_grad)):
    for _pre in ("Segment", "UnsortedSegment"):
        OPS.define(_pre + _kind, kernel=with_attrs(_kernel, "kind", "sorted"), grad=_grad)


# ------------------------------------------------------------------ public functions
def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """Row maxima per segment (the dtype's lowest value for an empty segment)."""
    return _reduce("Max", data, segment_ids, num_segments, name, False)


def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """Row minima per segment (the dtype's highest value for an empty segment)."""
    return _reduce("Min", data, segment_ids, num_segments, name, False)


def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """Row products per segment (1 for an empty segment)."""
    return _reduce("Prod", data, segment_ids, num_segments, name, False)


def segment_max(data, segment_ids, name=None):
    """Row maxima over sorted ``segment_ids`` (0 for an empty segment)."""
    return _reduce("Max", data, segment_ids, None, name, True)


def segment_min(data, segment_ids, name=None):
    return _reduce("Min", data, segment_ids, None, name, True)


def segment_prod(data, segment_ids, name=None):
    return _reduce("Prod", data, segment_ids, None, name, True)


def _sum_and_count(data, segment_ids, num_segments):
    d = convert_to_tensor(data)
    s = scatter_ops._int_tensor(segment_ids, "segment_ids", "segment_mean")
    if num_segments is None:
        num_segments = math_ops.reduce_max(s) + 1
    total = scatter_ops.unsorted_segment_sum(d, s, num_segments)
    count = scatter_ops.unsorted_segment_sum(array_ops.ones_like(d), s, num_segments)
    return total, math_ops.maximum(count, array_ops.ones_like(count))


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """Row means per segment (0 for an empty segment)."""
    total, count = _sum_and_count(data, segment_ids, num_segments)
    return math_ops.divide(total, count, name=name)


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """Row sums per segment divided by the square root of the segment's size."""
    total, count = _sum_and_count(data, segment_ids, num_segments)
    return math_ops.divide(total, math_ops.sqrt(count), name=name)


def segment_mean(data, segment_ids, name=None):
    """Row means over sorted ``segment_ids`` (0 for an empty segment)."""
    total, count = _sum_and_count(data, segment_ids, None)
    return math_ops.divide(total, count, name=name)


def _sparse(data, indices, segment_ids, num_segments, scale, name):
    d = array_ops.gather(convert_to_tensor(data), indices)
    if scale is None:
        if num_segments is None:
            return scatter_ops.segment_sum(d, segment_ids, name=name)
        return scatter_ops.unsorted_segment_sum(d, segment_ids, num_segments, name=name)
    total, count = _sum_and_count(d, segment_ids, num_segments)
    return math_ops.divide(total, count if scale == "mean" else math_ops.sqrt(count),
                           name=name)


def sparse_segment_sum(data, indices, segment_ids, name=None, num_segments=None):
    """``segment_sum(gather(data, indices), segment_ids)``."""
    return _sparse(data, indices, segment_ids, num_segments, None, name)


def sparse_segment_mean(data, indices, segment_ids, name=None, num_segments=None):
    """``segment_mean(gather(data, indices), segment_ids)``."""
    return _sparse(data, indices, segment_ids, num_segments, "mean", name)


def sparse_segment_sqrt_n(data, indices, segment_ids, name=None, num_segments=None):
    """``gather(data, indices)`` summed per segment, divided by sqrt(segment size)."""
    return _sparse(data, indices, segment_ids, num_segments, "sqrt_n", name)

