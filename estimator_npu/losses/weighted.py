"""``compute_weighted_loss``: weights a per-element loss and reduces it (TF1 semantics:
computed in float32, cast back to the loss's dtype, added to the loss collection)."""
from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import GraphKeys, name_scope
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.engine.ops.math_extra_ops import div_no_nan
from estimator_npu.losses.collection import add_loss
from estimator_npu.losses.reduction import Reduction


def check_weights(weights, losses):
    """Weights must broadcast to the losses as TF1 requires: a scalar, or the same rank
    with each dim 1 or equal to the loss's."""
    ws, ls = weights.shape, losses.shape
    if ws.ndims is None or ls.ndims is None or ws.ndims == 0:
        return
    if ws.ndims != ls.ndims or any(w is not None and v is not None and w not in (1, v)
                                   for w, v in zip(ws.values, ls.values)):
        raise ValueError(f"weights can not be broadcast to values. values.rank={ls.ndims}. "
                         f"weights.rank={ws.ndims}. values.shape={ls}. weights.shape={ws}.")


def num_present(losses, weights, per_batch=False):
    """The number of elements of ``losses`` whose (broadcast) weight is non-zero."""
    present = array_ops.where(math_ops.equal(weights, 0.0), array_ops.zeros_like(weights),
                              array_ops.ones_like(weights))
    present = present * array_ops.ones_like(losses)
    if per_batch:
        nd = losses.shape.ndims
        if nd is None:
            raise ValueError("num_present(per_batch=True) needs losses of known rank")
        axes = list(range(1, nd))
        return math_ops.reduce_sum(present, axis=axes, keepdims=True) if axes else present
    return math_ops.reduce_sum(present)


def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``losses * weights`` reduced by ``reduction``; the result joins ``loss_collection``."""
    Reduction.validate(reduction)
    with name_scope(scope or "weighted_loss"):
        losses = convert_to_tensor(losses)
        input_dtype = losses.dtype
        losses = math_ops.cast(losses, dtypes.float32)
        weights = math_ops.cast(convert_to_tensor(weights), dtypes.float32)
        check_weights(weights, losses)
        weighted = math_ops.multiply(losses, weights)
        if reduction == Reduction.NONE:
            loss = weighted
        else:
            loss = math_ops.reduce_sum(weighted)
            if reduction == Reduction.MEAN:
                loss = div_no_nan(loss, math_ops.reduce_sum(array_ops.ones_like(losses) *
                                                            weights), name="value")
            elif reduction in (Reduction.SUM_BY_NONZERO_WEIGHTS,
                               Reduction.SUM_OVER_NONZERO_WEIGHTS):
                loss = div_no_nan(loss, num_present(losses, weights), name="value")
            elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                n = math_ops.cast(array_ops.size(losses), dtypes.float32)
                loss = div_no_nan(loss, n, name="value")
        loss = math_ops.cast(loss, input_dtype)
        add_loss(loss, loss_collection)
        return loss
