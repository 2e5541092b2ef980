"""``tf.sequence_mask``: ``mask[..., j] = j < lengths[...]``."""
import numpy as np

from estimator_npu.engine import dtypes as _dtypes
from estimator_npu.engine.constant_value import constant_value
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.core import convert_to_tensor


def sequence_mask(lengths, maxlen=None, dtype=_dtypes.bool, name=None):
    """A ``lengths.shape + [maxlen]`` mask (``maxlen`` defaults to ``max(lengths)``)."""
    n = convert_to_tensor(lengths)
    if not n.dtype.is_integer:
        raise TypeError(f"sequence_mask: lengths must be integers, got {n.dtype.name}")
    if maxlen is None:
        folded = constant_value(n)  # lengths from constants: a static last dim, as TF's
        maxlen = int(folded.max()) if folded is not None and folded.size else \
            math_ops.reduce_max(n)
    if isinstance(maxlen, (int, np.integer)):
        m = int(maxlen)                      # a static last dimension, as TF infers it
    else:
        m = math_ops.cast(convert_to_tensor(maxlen), n.dtype)
        if m.shape.ndims not in (None, 0):
            raise ValueError(f"sequence_mask: maxlen must be a scalar, got shape {m.shape}")
    steps = array_ops.range(0, m, 1, dtype=n.dtype)
    mask = math_ops.less(steps, array_ops.expand_dims(n, -1))
    dt = _dtypes.as_dtype(dtype)
    return mask if dt == _dtypes.bool and name is None else math_ops.cast(mask, dt, name=name)
