"""Gradient clipping: ``global_norm``, ``clip_by_global_norm``, ``clip_by_norm``
(``clip_by_value`` lives in ``math_ops``).

``global_norm`` is one primitive (``GlobalNorm``: ``sqrt(sum_i sum(t_i ** 2))`` in one
kernel call, gradient ``dy * t_i / norm``); the clipping functions are composites::

    grads, norm = tf.clip_by_global_norm(grads, clip_norm=1.0)
    # t_i * clip_norm / max(norm, clip_norm); None entries pass through
"""
import math

import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import Tensor
from estimator_npu.engine.ops import math_ops
from estimator_npu.engine.ops.array_ops import ones_like, where
from estimator_npu.engine.ops.core import constant, convert_to_tensor, identity, make_tensor
from estimator_npu.engine.registry import OpFamily

OPS = OpFamily(__name__)  # this family's op definitions (data)


def _check_sequence(t_list):
    if isinstance(t_list, (str, bytes, Tensor)) or not isinstance(t_list, (list, tuple)):
        raise TypeError(f"t_list should be a sequence (list or tuple) of tensors, got "
                        f"{type(t_list).__name__}")


def global_norm(t_list, name=None):
    """``sqrt(sum(l2norm(t) ** 2 for t in t_list))``, ignoring ``None`` entries.

    The result has the widest float dtype of the inputs (at least float32).

    Raises:
        TypeError: ``t_list`` is not a list or tuple.
        ValueError: it holds no tensor, or a non-floating one.
    """
    _check_sequence(t_list)
    ts = [convert_to_tensor(t) for t in t_list if t is not None]
    if not ts:
        raise ValueError("global_norm: t_list holds no tensors (all entries are None)")
    for t in ts:
        if not t.dtype.is_floating:
            raise ValueError(f"global_norm: {t.name} has dtype {t.dtype.name}, expected a "
                             "floating type")
    dt = dtypes.float64 if any(t.dtype == dtypes.float64 for t in ts) else dtypes.float32
    return make_tensor("GlobalNorm", ts, dt, [], {"dtype": dt}, name=name or "global_norm")


def _global_norm_kernel(op, ctx):
    np_dt = op.attrs["dtype"].np

    def run(*xs):
        total = 0.0
        for x in xs:
            a = np.asarray(x).reshape(-1)
            if a.dtype.itemsize < 4:
                a = a.astype(np.float32)
            total += float(np.dot(a, a))
        return np.array(math.sqrt(total), dtype=np_dt)
    return run


def _global_norm_grad(op, dy):
    norm = op.outputs[0]
    scale = dy / norm
    return [x * (scale if x.dtype == scale.dtype else math_ops.cast(scale, x.dtype))
            for x in op.inputs]


OPS.define("GlobalNorm", kernel=_global_norm_kernel, grad=_global_norm_grad)


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scales every tensor of ``t_list`` by ``clip_norm / max(global_norm, clip_norm)``.

    Args:
        t_list: a list or tuple of tensors (``None`` entries are passed through).
        clip_norm: a positive number or scalar tensor.
        use_norm: a precomputed global norm (default: ``global_norm(t_list)``).

    Returns:
        ``(clipped list, global norm)``. If the norm is infinite or NaN, every clipped
        tensor is NaN (as in TF1).

    Raises:
        TypeError: ``t_list`` is not a list or tuple.
        ValueError: ``clip_norm`` is a number that is not positive.
    """
    _check_sequence(t_list)
    if not isinstance(clip_norm, (Tensor,)) and not hasattr(clip_norm, "_as_tensor"):
        if not float(clip_norm) > 0:
            raise ValueError(f"clip_norm must be positive, got {clip_norm!r}")
    t_list = list(t_list)
    norm = global_norm(t_list) if use_norm is None else convert_to_tensor(use_norm)
    dt = norm.dtype
    if isinstance(clip_norm, Tensor) or hasattr(clip_norm, "_as_tensor"):
        clip = convert_to_tensor(clip_norm)
        if clip.dtype != dt:
            clip = math_ops.cast(clip, dt)
    else:
        clip = constant(clip_norm, dtype=dt)
    one = constant(1.0, dtype=dt)
    scale = clip * math_ops.minimum(one / norm, one / clip)
    scale = where(math_ops.is_finite(norm), scale, constant(np.nan, dtype=dt))
    base = name or "clip_by_global_norm"
    out = []
    for i, t in enumerate(t_list):
        if t is None:
            out.append(None)
            continue
        t = convert_to_tensor(t)
        s = scale if t.dtype == dt else math_ops.cast(scale, t.dtype)
        out.append(identity(t * s, name=f"{base}/{base}/_{i}"))
    return out, norm


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``t * clip_norm / max(l2norm(t, axes), clip_norm)`` (norm over ``axes``, default
    all)."""
    t = convert_to_tensor(t)
    clip = (math_ops.cast(convert_to_tensor(clip_norm), t.dtype)
            if isinstance(clip_norm, Tensor) or hasattr(clip_norm, "_as_tensor")
            else constant(clip_norm, dtype=t.dtype))
    l2sum = math_ops.reduce_sum(t * t, axes, keepdims=True)
    positive = math_ops.greater(l2sum, constant(0, dtype=t.dtype))
    l2sum_safe = where(positive, l2sum, ones_like(l2sum))
    l2norm = where(positive, math_ops.sqrt(l2sum_safe), l2sum)
    return identity(t * clip / math_ops.maximum(l2norm, clip), name=name or "clip_by_norm")


__all__ = ["global_norm", "clip_by_global_norm", "clip_by_norm"]
