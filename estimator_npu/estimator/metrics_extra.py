"""More TF1 streaming metrics: absolute/RMS errors, confusion counts, ``mean_iou``,
``mean_per_class_accuracy`` and ``precision_at_k`` / ``recall_at_k`` (single-label
examples), each a ``(value, update_op)`` pair over local variables as in ``metrics``."""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import GraphKeys
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.core import convert_to_tensor, identity
from estimator_npu.engine.ops.nn_extra_ops import top_k
from estimator_npu.engine.ops.scatter_ops import unsorted_segment_sum
from estimator_npu.engine.ops.state_ops import Variable, assign_add
from estimator_npu.engine.variable_scope import variable_scope
from estimator_npu.estimator.metrics import (_as_bool_pair, _counter, _finish, _safe_div,
                                             _squeeze_to_match, _weights, mean)


def _variable(shape, name, dtype=np.float32):
    return Variable(np.zeros(shape, dtype), trainable=False, name=name,
                    collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES])


def mean_absolute_error(labels, predictions, weights=None, metrics_collections=None,
                        updates_collections=None, name=None):
    """The mean of ``|labels - predictions|``."""
    labels = math_ops.to_float(convert_to_tensor(labels))
    predictions = math_ops.to_float(convert_to_tensor(predictions))
    labels, predictions = _squeeze_to_match(labels, predictions)
    return mean(math_ops.abs(predictions - labels), weights, metrics_collections,
                updates_collections, name=name or "mean_absolute_error")


def root_mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                            updates_collections=None, name=None):
    """``sqrt`` of the streaming mean squared error."""
    labels = math_ops.to_float(convert_to_tensor(labels))
    predictions = math_ops.to_float(convert_to_tensor(predictions))
    labels, predictions = _squeeze_to_match(labels, predictions)
    mse, update = mean(math_ops.squared_difference(labels, predictions), weights,
                       name=name or "root_mean_squared_error")
    return _finish(math_ops.sqrt(mse), math_ops.sqrt(update), metrics_collections,
                   updates_collections)


def _count_metric(kind, labels, predictions, weights, metrics_collections,
                  updates_collections, name):
    with variable_scope(name, kind):
        labels, predictions = _as_bool_pair(labels, predictions)
        w = _weights(predictions, weights)
        neg = math_ops.logical_not
        cond = {"true_positives": math_ops.logical_and(labels, predictions),
                "false_positives": math_ops.logical_and(neg(labels), predictions),
                "false_negatives": math_ops.logical_and(labels, neg(predictions)),
                "true_negatives": math_ops.logical_and(neg(labels), neg(predictions))}[kind]
        var, update = _counter(cond, w, "count")
        value = identity(var)
    return _finish(value, update, metrics_collections, updates_collections)


def true_positives(labels, predictions, weights=None, metrics_collections=None,
                   updates_collections=None, name=None):
    return _count_metric("true_positives", labels, predictions, weights,
                         metrics_collections, updates_collections, name)


def false_positives(labels, predictions, weights=None, metrics_collections=None,
                    updates_collections=None, name=None):
    return _count_metric("false_positives", labels, predictions, weights,
                         metrics_collections, updates_collections, name)


def false_negatives(labels, predictions, weights=None, metrics_collections=None,
                    updates_collections=None, name=None):
    return _count_metric("false_negatives", labels, predictions, weights,
                         metrics_collections, updates_collections, name)


def true_negatives(labels, predictions, weights=None, metrics_collections=None,
                   updates_collections=None, name=None):
    return _count_metric("true_negatives", labels, predictions, weights,
                         metrics_collections, updates_collections, name)


def _flat_ints(x):
    return array_ops.reshape(math_ops.cast(convert_to_tensor(x), dtypes.int32), [-1])


def _confusion_update(labels, predictions, num_classes, weights, var):
    """Adds the weighted confusion counts ``cm[label, prediction]`` to ``var``."""
    lab, pred = _flat_ints(labels), _flat_ints(predictions)
    w = array_ops.reshape(_weights(convert_to_tensor(predictions), weights), [-1])
    idx = lab * num_classes + pred
    counts = unsorted_segment_sum(math_ops.cast(w, var.dtype), idx, num_classes * num_classes)
    return assign_add(var, array_ops.reshape(counts, [num_classes, num_classes]))


def mean_iou(labels, predictions, num_classes, weights=None, metrics_collections=None,
             updates_collections=None, name=None):
    """Mean over classes present (in labels or predictions) of
    ``TP / (TP + FP + FN)``; ``update_op`` returns the updated confusion matrix."""
    num_classes = int(num_classes)
    with variable_scope(name, "mean_iou"):
        cm = _variable([num_classes, num_classes], "total_confusion_matrix", np.float64)
        update = _confusion_update(labels, predictions, num_classes, weights, cm)
        value = _mean_iou(math_ops.cast(cm, dtypes.float32))
    return _finish(value, update, metrics_collections, updates_collections)


def _mean_iou(cm):
    rows = math_ops.reduce_sum(cm, axis=0)
    cols = math_ops.reduce_sum(cm, axis=1)
    diag = math_ops.reduce_sum(cm * array_ops.ones_like(cm) *
                               convert_to_tensor(np.eye(cm.shape[0], dtype=np.float32)),
                               axis=0)
    denom = rows + cols - diag
    valid = math_ops.reduce_sum(math_ops.cast(math_ops.not_equal(denom, 0.0), dtypes.float32))
    denom = array_ops.where(math_ops.greater(denom, 0.0), denom, array_ops.ones_like(denom))
    iou = math_ops.divide(diag, denom)
    return array_ops.where(math_ops.greater(valid, 0.0), math_ops.divide(
        math_ops.reduce_sum(iou), array_ops.where(math_ops.greater(valid, 0.0), valid, 1.0)),
        0.0, name="mean_iou")


def mean_per_class_accuracy(labels, predictions, num_classes, weights=None,
                            metrics_collections=None, updates_collections=None, name=None):
    """The mean over all ``num_classes`` classes of each class's accuracy (0 for a class
    never seen); ``update_op`` returns the per-class accuracies."""
    num_classes = int(num_classes)
    with variable_scope(name, "mean_accuracy"):
        lab, pred = _flat_ints(labels), _flat_ints(predictions)
        w = array_ops.reshape(_weights(convert_to_tensor(predictions), weights), [-1])
        total = _variable([num_classes], "total")
        count = _variable([num_classes], "count")
        correct = math_ops.to_float(math_ops.equal(lab, pred)) * w
        up_total = assign_add(total, unsorted_segment_sum(w, lab, num_classes))
        up_count = assign_add(count, unsorted_segment_sum(correct, lab, num_classes))
        value = math_ops.reduce_mean(_safe_div(count, total, None), name="mean_accuracy")
        update = _safe_div(up_count, up_total, "update_op")
    return _finish(value, update, metrics_collections, updates_collections)


def _at_k(kind, labels, predictions, k, class_id, weights, metrics_collections,
          updates_collections, name):
    with variable_scope(name, f"{kind}_at_{k}"):
        logits = convert_to_tensor(predictions)
        lab = math_ops.cast(convert_to_tensor(labels), dtypes.int32)
        if lab.shape.ndims is not None and lab.shape.ndims == logits.shape.ndims:
            if lab.shape.values[-1] not in (1, None):
                raise NotImplementedError(f"{kind}_at_k: one label per example only "
                                          f"(labels shape {lab.shape})")
            lab = array_ops.squeeze(lab, [-1])
        _, idx = top_k(logits, k)
        hit = math_ops.to_float(math_ops.reduce_any(
            math_ops.equal(idx, array_ops.expand_dims(lab, -1)), axis=-1))
        w = math_ops.cast(_weights(hit, weights), dtypes.float64)
        hit = math_ops.cast(hit, dtypes.float64)
        if class_id is None:
            tp = hit
            other = (1.0 - hit) if kind == "recall" else float(k) - hit
        else:
            is_cls = math_ops.cast(math_ops.equal(lab, int(class_id)), dtypes.float64)
            in_top = math_ops.cast(math_ops.reduce_any(math_ops.equal(idx, int(class_id)),
                                                       axis=-1), dtypes.float64)
            tp = is_cls * in_top
            other = is_cls * (1.0 - in_top) if kind == "recall" else (1.0 - is_cls) * in_top
        tp_var = _variable([], "true_positives", np.float64)
        ot_var = _variable([], "false_negatives" if kind == "recall" else "false_positives",
                           np.float64)
        up_tp = assign_add(tp_var, math_ops.reduce_sum(tp * w))
        up_ot = assign_add(ot_var, math_ops.reduce_sum(other * w))
        value = _safe_div(tp_var, tp_var + ot_var, "value")
        update = _safe_div(up_tp, up_tp + up_ot, "update_op")
    return _finish(value, update, metrics_collections, updates_collections)


def recall_at_k(labels, predictions, k, class_id=None, weights=None,
                metrics_collections=None, updates_collections=None, name=None):
    """The fraction of labels found among the top ``k`` predictions (float64)."""
    return _at_k("recall", labels, predictions, k, class_id, weights, metrics_collections,
                 updates_collections, name)


def precision_at_k(labels, predictions, k, class_id=None, weights=None,
                   metrics_collections=None, updates_collections=None, name=None):
    """The fraction of the top ``k`` predictions that are labels (float64)."""
    return _at_k("precision", labels, predictions, k, class_id, weights, metrics_collections,
                 updates_collections, name)
