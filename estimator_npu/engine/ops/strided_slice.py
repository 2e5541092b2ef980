"""``tf.strided_slice(input, begin, end, strides, *_mask)``: turned into the basic-indexing
key of ``x[...]``; begin/end/strides are static, or lists holding scalar int tensors
(``[0, i * n]``, as TF's PTB reader slices)."""

from estimator_npu.engine.graph import Tensor
from estimator_npu.engine.ops.array_ops import _static_ints
from estimator_npu.engine.ops.slice_ops import builtin_slice, getitem


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0,  # noqa: A002
                  ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """Slices ``input_`` as ``input_[b0:e0:s0, ...]``; bit ``i`` of a mask applies to
    entry ``i`` (begin/end ignored, ``...``, new axis, or index instead of slice)."""
    b, e = _entries(begin, "begin"), _entries(end, "end")
    s = [1] * len(b or ()) if strides is None else _entries(strides, "strides")
    if b is None or e is None or s is None:
        raise TypeError("strided_slice: begin, end and strides must be static")
    if not len(b) == len(e) == len(s):
        raise ValueError(f"strided_slice: begin {b}, end {e} and strides {s} must have the "
                         "same length")
    key = []
    for i, (bi, ei, si) in enumerate(zip(b, e, s)):
        bit = 1 << i
        if ellipsis_mask & bit:
            key.append(Ellipsis)
        elif new_axis_mask & bit:
            key.append(None)
        elif shrink_axis_mask & bit:
            key.append(bi)
        else:
            if isinstance(si, int) and si == 0:
                raise ValueError("strided_slice: strides must be non-zero")
            key.append(builtin_slice(None if begin_mask & bit else bi,
                                     None if end_mask & bit else ei, si))
    out = getitem(input_, tuple(key))
    if name:
        from estimator_npu.engine.ops.core import identity
        out = identity(out, name=name)
    return out


def _entries(v, what):
    """A list of ints and scalar int tensors (a tensor entry stays a tensor)."""
    if isinstance(v, (list, tuple)) and any(isinstance(t, Tensor) for t in v):
        return [t if isinstance(t, Tensor) else int(t) for t in v]
    return _static_ints(v, what, "StridedSlice")
