"""The TF1 loss functions of ``tf.losses``: each builds a per-element loss and hands it to
``compute_weighted_loss`` (weights, reduction, the ``LOSSES`` collection)."""
from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import GraphKeys, name_scope
from estimator_npu.engine.ops import array_ops, math_ops, nn_ops
from estimator_npu.engine.ops.core import convert_to_tensor, stop_gradient
from estimator_npu.engine.ops.math_extra_ops import div_no_nan
from estimator_npu.losses.collection import add_loss
from estimator_npu.losses.reduction import Reduction
from estimator_npu.losses.weighted import check_weights, compute_weighted_loss, num_present

_DEFAULT = Reduction.SUM_BY_NONZERO_WEIGHTS


def _pair(labels, predictions, what, name_labels="labels", name_pred="predictions"):
    if labels is None:
        raise ValueError(f"{what}: {name_labels} must not be None.")
    if predictions is None:
        raise ValueError(f"{what}: {name_pred} must not be None.")
    predictions = math_ops.cast(convert_to_tensor(predictions), dtypes.float32)
    labels = math_ops.cast(convert_to_tensor(labels), dtypes.float32)
    if not predictions.shape.is_compatible_with(labels.shape):
        raise ValueError(f"{what}: Shapes {predictions.shape} and {labels.shape} are "
                         "incompatible")
    return labels, predictions


def absolute_difference(labels, predictions, weights=1.0, scope=None,
                        loss_collection=GraphKeys.LOSSES, reduction=_DEFAULT):
    """``|predictions - labels|``, weighted and reduced."""
    with name_scope(scope or "absolute_difference"):
        labels, predictions = _pair(labels, predictions, "absolute_difference")
        losses = math_ops.abs(math_ops.subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction)


def mean_squared_error(labels, predictions, weights=1.0, scope=None,
                       loss_collection=GraphKeys.LOSSES, reduction=_DEFAULT):
    """``(predictions - labels) ** 2``, weighted and reduced."""
    with name_scope(scope or "mean_squared_error"):
        labels, predictions = _pair(labels, predictions, "mean_squared_error")
        losses = math_ops.squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction)


def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None,
               loss_collection=GraphKeys.LOSSES, reduction=_DEFAULT):
    """``0.5 e^2`` for ``|e| <= delta``, else ``delta (|e| - 0.5 delta)``."""
    with name_scope(scope or "huber_loss"):
        labels, predictions = _pair(labels, predictions, "huber_loss")
        err = math_ops.abs(math_ops.subtract(predictions, labels))
        quadratic = math_ops.minimum(err, delta)
        linear = math_ops.subtract(err, quadratic)
        losses = 0.5 * quadratic * quadratic + delta * linear
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction)


def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None,
             loss_collection=GraphKeys.LOSSES, reduction=_DEFAULT):
    """``-labels log(p + eps) - (1 - labels) log(1 - p + eps)``."""
    with name_scope(scope or "log_loss"):
        labels, predictions = _pair(labels, predictions, "log_loss")
        losses = math_ops.negative(labels * math_ops.log(predictions + epsilon)) - \
            (1.0 - labels) * math_ops.log(1.0 - predictions + epsilon)
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction)


def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
               reduction=_DEFAULT):
    """``relu(1 - (2 labels - 1) logits)`` for 0/1 ``labels``."""
    with name_scope(scope or "hinge_loss"):
        labels, logits = _pair(labels, logits, "hinge_loss", name_pred="logits")
        signs = 2.0 * labels - 1.0
        losses = nn_ops.relu(1.0 - signs * logits)
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction)


def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None,
                    loss_collection=GraphKeys.LOSSES, reduction=_DEFAULT, dim=None):
    """``1 - sum(labels * predictions, axis)`` (inputs assumed unit-normalized)."""
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    if axis is None:
        raise ValueError("You must specify 'axis'.")
    with name_scope(scope or "cosine_distance_loss"):
        labels, predictions = _pair(labels, predictions, "cosine_distance")
        losses = 1.0 - math_ops.reduce_sum(predictions * labels, axis=[axis], keepdims=True)
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction)


def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0,
                          scope=None, loss_collection=GraphKeys.LOSSES, reduction=_DEFAULT):
    """Sigmoid cross entropy; ``label_smoothing`` moves labels towards 1/2."""
    if multi_class_labels is None:
        raise ValueError("sigmoid_cross_entropy: multi_class_labels must not be None.")
    if logits is None:
        raise ValueError("sigmoid_cross_entropy: logits must not be None.")
    with name_scope(scope or "sigmoid_cross_entropy_loss"):
        logits = convert_to_tensor(logits)
        labels = math_ops.cast(convert_to_tensor(multi_class_labels), logits.dtype)
        if not logits.shape.is_compatible_with(labels.shape):
            raise ValueError(f"sigmoid_cross_entropy: Shapes {logits.shape} and "
                             f"{labels.shape} are incompatible")
        if label_smoothing > 0:
            labels = labels * (1.0 - label_smoothing) + 0.5 * label_smoothing
        losses = nn_ops.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits,
                                                          name="xentropy")
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction)


def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES, reduction=_DEFAULT):
    """Softmax cross entropy over the last axis; ``label_smoothing`` gives
    ``labels * (1 - s) + s / num_classes``. No gradient flows into the labels."""
    if onehot_labels is None:
        raise ValueError("softmax_cross_entropy: onehot_labels must not be None.")
    if logits is None:
        raise ValueError("softmax_cross_entropy: logits must not be None.")
    with name_scope(scope or "softmax_cross_entropy_loss"):
        logits = convert_to_tensor(logits)
        labels = math_ops.cast(convert_to_tensor(onehot_labels), logits.dtype)
        if not logits.shape.is_compatible_with(labels.shape):
            raise ValueError(f"softmax_cross_entropy: Shapes {logits.shape} and "
                             f"{labels.shape} are incompatible")
        if label_smoothing > 0:
            n = labels.shape.values[-1] if labels.shape.ndims else None
            n = math_ops.cast(array_ops.shape(labels)[-1], logits.dtype) if n is None else \
                float(n)
            labels = labels * (1.0 - label_smoothing) + label_smoothing / n
        labels = stop_gradient(labels, name="labels_stop_gradient")
        losses = nn_ops.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits,
                                                             name="xentropy")
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction)


def _squeeze_last_if(t, other_rank, diff):
    """Drops a trailing size-1 dim of ``t`` when its rank is ``other_rank - diff + 1``."""
    if t.shape.ndims is not None and other_rank is not None and \
            t.shape.ndims == other_rank - diff + 1 and t.shape.values[-1] in (1, None):
        return array_ops.squeeze(t, [-1])
    return t


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None,
                                 loss_collection=GraphKeys.LOSSES, reduction=_DEFAULT):
    """Cross entropy with integer class ``labels`` (``[batch]`` or ``[batch, 1]``)."""
    if labels is None:
        raise ValueError("sparse_softmax_cross_entropy: labels must not be None.")
    if logits is None:
        raise ValueError("sparse_softmax_cross_entropy: logits must not be None.")
    with name_scope(scope or "sparse_softmax_cross_entropy_loss"):
        logits = convert_to_tensor(logits)
        labels = convert_to_tensor(labels)
        labels = _squeeze_last_if(labels, logits.shape.ndims, 1)
        weights = convert_to_tensor(weights)
        if weights.shape.ndims not in (None, 0):
            weights = _squeeze_last_if(weights, logits.shape.ndims, 1)
        losses = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                                  logits=logits,
                                                                  name="xentropy")
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction)


def mean_pairwise_squared_error(labels, predictions, weights=1.0, scope=None,
                                loss_collection=GraphKeys.LOSSES):
    """Mean over all pairs ``(i, j)`` of one example of ``((p_i - p_j) - (l_i - l_j))^2``,
    weighted per example and summed over the batch."""
    with name_scope(scope or "mean_pairwise_squared_error"):
        labels, predictions = _pair(labels, predictions, "mean_pairwise_squared_error")
        weights = math_ops.cast(convert_to_tensor(weights), dtypes.float32)
        diffs = math_ops.subtract(predictions, labels)
        nd = diffs.shape.ndims
        if nd is None:
            raise ValueError("mean_pairwise_squared_error needs inputs of known rank")
        check_weights(weights, diffs)
        axes = list(range(1, nd))
        n = num_present(diffs, weights, per_batch=True)
        sum_sq = math_ops.reduce_sum(math_ops.square(diffs), axis=axes, keepdims=True)
        term1 = 2.0 * div_no_nan(sum_sq, math_ops.maximum(n - 1.0, 0.0))
        sum_diff = math_ops.reduce_sum(diffs, axis=axes, keepdims=True)
        term2 = 2.0 * div_no_nan(math_ops.square(sum_diff),
                                 math_ops.maximum(n * (n - 1.0), 0.0))
        loss = math_ops.reduce_sum(math_ops.multiply(term1 - term2, weights))
        mean_loss = array_ops.where(math_ops.greater(math_ops.reduce_sum(n), 0.0), loss,
                                    array_ops.zeros_like(loss), name="value")
        add_loss(mean_loss, loss_collection)
        return mean_loss
