"""``tf.nn`` statistics composites over core ops: ``weighted_moments``,
``sufficient_statistics``, ``normalize_moments`` and ``log_poisson_loss`` (gradients come
from the ops they are made of; the means are stopped in the variances, as TF's)."""
import math

from estimator_npu.engine.ops import array_ops, math_ops, reduction_ops
from estimator_npu.engine.ops.core import convert_to_tensor, stop_gradient


def _keep(keep_dims, keepdims):
    return bool(keepdims if keep_dims is None else keep_dims)


def weighted_moments(x, axes, frequency_weights, name=None, keep_dims=None, keepdims=None):
    """``(mean, variance)`` of ``x`` over ``axes`` with ``frequency_weights`` (broadcast to
    ``x``)."""
    x = convert_to_tensor(x)
    w = math_ops.cast(frequency_weights, x.dtype)
    total = math_ops.reduce_sum(w * x, axis=axes, keepdims=True)
    weight_sum = math_ops.reduce_sum(w + array_ops.zeros_like(x), axis=axes, keepdims=True)
    inv = math_ops.reciprocal(weight_sum)
    mean = total * inv
    var = math_ops.reduce_sum(w * math_ops.squared_difference(x, stop_gradient(mean)),
                              axis=axes, keepdims=True) * inv
    if not _keep(keep_dims, keepdims):
        mean, var = array_ops.squeeze(mean, axes), array_ops.squeeze(var, axes)
    return mean, var


def sufficient_statistics(x, axes, shift=None, keep_dims=None, name=None, keepdims=None):
    """``(count, sum of x - shift, sum of (x - shift)**2, shift)`` over ``axes``."""
    x = convert_to_tensor(x)
    keep = _keep(keep_dims, keepdims)
    dims = x.shape.values
    if dims is not None and all(dims[a] is not None for a in axes):
        count = math_ops.cast(math.prod(dims[a] for a in axes), x.dtype)
    else:
        shp = math_ops.cast(array_ops.shape(x), x.dtype)
        count = reduction_ops.reduce_prod(array_ops.gather(shp, list(axes)))
    m = x if shift is None else x - math_ops.cast(shift, x.dtype)
    m_ss = math_ops.reduce_sum(m, axis=axes, keepdims=keep)
    v_ss = math_ops.reduce_sum(math_ops.square(m), axis=axes, keepdims=keep)
    return count, m_ss, v_ss, shift


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """``(mean, variance)`` from ``sufficient_statistics``' sums."""
    inv = math_ops.reciprocal(counts)
    shifted_mean = mean_ss * inv
    mean = shifted_mean if shift is None else shifted_mean + shift
    return mean, variance_ss * inv - math_ops.square(shifted_mean)


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """``exp(log_input) - log_input * targets``, plus Stirling's term for targets > 1 when
    ``compute_full_loss``."""
    log_input = convert_to_tensor(log_input)
    targets = math_ops.cast(targets, log_input.dtype)
    loss = math_ops.exp(log_input) - log_input * targets
    if compute_full_loss:
        stirling = targets * math_ops.log(targets) - targets + \
            0.5 * math_ops.log(2.0 * math.pi * targets)
        small = math_ops.logical_and(math_ops.greater_equal(targets, 0.0),
                                     math_ops.less_equal(targets, 1.0))
        loss = loss + array_ops.where_v2(small, array_ops.zeros_like(targets), stirling)
    return loss
