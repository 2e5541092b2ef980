"""``tf.strided_slice(input, begin, end, strides, *_mask)``: turned into the basic-indexing
key of ``x[...]`` (static begin/end/strides only)."""


from estimator_npu.engine.ops.array_ops import _static_ints
from estimator_npu.engine.ops.slice_ops import builtin_slice, getitem


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0,  # noqa: A002
                  ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """Slices ``input_`` as ``input_[b0:e0:s0, ...]``; bit ``i`` of a mask applies to
    entry ``i`` (begin/end ignored, ``...``, new axis, or index instead of slice)."""
    b = _static_ints(begin, "begin", "StridedSlice")
    e = _static_ints(end, "end", "StridedSlice")
    s = [1] * len(b) if strides is None else _static_ints(strides, "strides", "StridedSlice")
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
            key.append(int(bi))
        else:
            if si == 0:
                raise ValueError("strided_slice: strides must be non-zero")
            key.append(builtin_slice(None if begin_mask & bit else int(bi),
                                     None if end_mask & bit else int(ei), int(si)))
    out = getitem(input_, tuple(key))
    if name:
        from estimator_npu.engine.ops.core import identity
        out = identity(out, name=name)
    return out
