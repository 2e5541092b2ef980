"""``tf.contrib.seq2seq.sequence_loss``: weighted per-timestep cross entropy of
``[batch, time, classes]`` logits against ``[batch, time]`` integer targets, averaged or
summed over the batch and/or time axes as TF1's contrib function does."""
from estimator_npu.engine.graph import name_scope
from estimator_npu.engine.ops import array_ops, math_ops, nn_ops
from estimator_npu.engine.ops.composites import count_nonzero
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.engine.ops.math_extra_ops import div_no_nan


def _check_rank(t, rank, what):
    if t.shape.ndims is not None and t.shape.ndims != rank:
        raise ValueError(f"sequence_loss: {what} must be a {rank}D tensor, got shape {t.shape}")


def sequence_loss(logits, targets, weights, average_across_timesteps=True,
                  average_across_batch=True, sum_over_timesteps=False, sum_over_batch=False,
                  softmax_loss_function=None, name=None):
    """The loss; a scalar, a ``[time]`` / ``[batch]`` vector or ``[batch, time]``.

    Averages divide the weighted sum by the sum of the weights; sums divide it by the count
    of non-zero weights (both 0 where the divisor is 0), over the axes the flags name.
    """
    logits, targets = convert_to_tensor(logits), convert_to_tensor(targets)
    weights = convert_to_tensor(weights)
    _check_rank(logits, 3, "logits")
    _check_rank(targets, 2, "targets")
    _check_rank(weights, 2, "weights")
    if (average_across_timesteps and sum_over_timesteps) or \
            (average_across_batch and sum_over_batch):
        raise ValueError("sequence_loss: average_across_* and sum_over_* of the same axis "
                         "cannot both be set")
    with name_scope(name, "sequence_loss"):
        num_classes = array_ops.shape(logits)[2]
        flat_logits = array_ops.reshape(logits, array_ops.stack([-1, num_classes]))
        flat_targets = array_ops.reshape(targets, [-1])
        if softmax_loss_function is None:
            crossent = nn_ops.sparse_softmax_cross_entropy_with_logits(
                labels=flat_targets, logits=flat_logits)
        else:
            crossent = softmax_loss_function(labels=flat_targets, logits=flat_logits)
        crossent = crossent * array_ops.reshape(math_ops.cast(weights, crossent.dtype), [-1])
        weights = math_ops.cast(weights, crossent.dtype)
        if average_across_timesteps and average_across_batch:
            return div_no_nan(math_ops.reduce_sum(crossent), math_ops.reduce_sum(weights))
        if sum_over_timesteps and sum_over_batch:
            return div_no_nan(math_ops.reduce_sum(crossent),
                              count_nonzero(weights, dtype=crossent.dtype))
        crossent = array_ops.reshape(crossent, array_ops.shape(logits)[0:2])
        if average_across_timesteps or average_across_batch:
            axis = [0] if average_across_batch else [1]
            return div_no_nan(math_ops.reduce_sum(crossent, axis=axis),
                              math_ops.reduce_sum(weights, axis=axis))
        if sum_over_timesteps or sum_over_batch:
            axis = [0] if sum_over_batch else [1]
            return div_no_nan(math_ops.reduce_sum(crossent, axis=axis),
                              count_nonzero(weights, axis=axis, dtype=crossent.dtype))
        return crossent


__all__ = ["sequence_loss"]
