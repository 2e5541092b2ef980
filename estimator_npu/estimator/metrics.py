"""Streaming metrics (``tf.metrics``): each returns ``(value, update_op)``.

The state lives in local variables (collections ``LOCAL_VARIABLES`` and
``METRIC_VARIABLES``), zeroed by the session's ``local_init_op``. Running ``update_op``
once per batch accumulates; ``value`` reads the result over all batches so far::

    acc, acc_update = metrics.accuracy(labels, predictions)
    for batch in data: sess.run(acc_update, feed(batch))
    sess.run(acc)      # accuracy over every example seen

Ratios are 0 while their denominator is 0. ``weights`` (broadcastable to the values)
weigh each example.
"""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import GraphKeys, add_to_collections, control_dependencies
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.core import constant, convert_to_tensor
from estimator_npu.engine.ops.state_ops import Variable, assign_add
from estimator_npu.engine.variable_scope import variable_scope

_EPSILON = 1e-7


def _metric_variable(shape, name):
    return Variable(np.zeros(shape, np.float32), trainable=False, name=name,
                    collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES])


def _safe_div(numerator, denominator, name):
    """``numerator / denominator``, 0 where ``denominator`` is 0."""
    positive = math_ops.greater(denominator, 0.0)
    safe = array_ops.where(positive, denominator, array_ops.ones_like(denominator))
    return array_ops.where(positive, math_ops.divide(numerator, safe),
                           array_ops.zeros_like(numerator), name=name)


def _squeeze_to_match(labels, predictions):
    """Drops a trailing size-1 dim so that ``[N, 1]`` labels match ``[N]`` predictions."""
    lr, pr = labels.shape.ndims, predictions.shape.ndims
    if lr is not None and pr is not None:
        if lr == pr + 1 and labels.shape.values[-1] == 1:
            labels = array_ops.squeeze(labels, [-1])
        elif pr == lr + 1 and predictions.shape.values[-1] == 1:
            predictions = array_ops.squeeze(predictions, [-1])
    return labels, predictions


def _weights(values, weights):
    """``weights`` as float32 broadcast to the shape of ``values`` (``None``: all ones)."""
    ones = array_ops.ones_like(values, dtype=dtypes.float32)
    if weights is None:
        return ones
    return ones * math_ops.to_float(convert_to_tensor(weights))


def _finish(value, update_op, metrics_collections, updates_collections):
    if metrics_collections:
        add_to_collections(metrics_collections, value)
    if updates_collections:
        add_to_collections(updates_collections, update_op)
    return value, update_op


def mean(values, weights=None, metrics_collections=None, updates_collections=None,
         name=None):
    """The (weighted) mean of every value seen: ``sum(w * v) / sum(w)``."""
    with variable_scope(name, "mean"):
        values = math_ops.to_float(convert_to_tensor(values))
        w = _weights(values, weights)
        total = _metric_variable([], "total")
        count = _metric_variable([], "count")
        update_total = assign_add(total, math_ops.reduce_sum(values * w))
        update_count = assign_add(count, math_ops.reduce_sum(w))
        value = _safe_div(total, count, "value")
        update_op = _safe_div(update_total, update_count, "update_op")
    return _finish(value, update_op, metrics_collections, updates_collections)


def accuracy(labels, predictions, weights=None, metrics_collections=None,
             updates_collections=None, name=None):
    """The fraction of ``predictions`` equal to ``labels``."""
    labels = convert_to_tensor(labels)
    predictions = convert_to_tensor(predictions)
    labels, predictions = _squeeze_to_match(labels, predictions)
    if predictions.dtype != labels.dtype:
        predictions = math_ops.cast(predictions, labels.dtype)
    is_correct = math_ops.to_float(math_ops.equal(predictions, labels))
    return mean(is_correct, weights, metrics_collections, updates_collections,
                name=name or "accuracy")


def mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                       updates_collections=None, name=None):
    """The mean of ``(labels - predictions) ** 2``."""
    labels = math_ops.to_float(convert_to_tensor(labels))
    predictions = math_ops.to_float(convert_to_tensor(predictions))
    labels, predictions = _squeeze_to_match(labels, predictions)
    squared = math_ops.squared_difference(labels, predictions)
    return mean(squared, weights, metrics_collections, updates_collections,
                name=name or "mean_squared_error")


def _as_bool_pair(labels, predictions):
    labels = convert_to_tensor(labels)
    predictions = convert_to_tensor(predictions)
    labels, predictions = _squeeze_to_match(labels, predictions)
    return (math_ops.cast(labels, dtypes.bool), math_ops.cast(predictions, dtypes.bool))


def _counter(condition, w, name):
    """A metric variable counting (weighted) true elements of ``condition``."""
    var = _metric_variable([], name)
    return var, assign_add(var, math_ops.reduce_sum(math_ops.to_float(condition) * w))


def _ratio_metric(kind, labels, predictions, weights, metrics_collections,
                  updates_collections, name):
    """precision = tp / (tp + fp), recall = tp / (tp + fn); nonzero values are True."""
    with variable_scope(name, kind):
        labels, predictions = _as_bool_pair(labels, predictions)
        w = _weights(predictions, weights)
        tp, tp_update = _counter(math_ops.logical_and(labels, predictions), w,
                                 "true_positives")
        other = (math_ops.logical_and(math_ops.logical_not(labels), predictions)
                 if kind == "precision"
                 else math_ops.logical_and(labels, math_ops.logical_not(predictions)))
        miss, miss_update = _counter(other, w, "false_positives" if kind == "precision"
                                     else "false_negatives")
        value = _safe_div(tp, tp + miss, "value")
        update_op = _safe_div(tp_update, tp_update + miss_update, "update_op")
    return _finish(value, update_op, metrics_collections, updates_collections)


def precision(labels, predictions, weights=None, metrics_collections=None,
              updates_collections=None, name=None):
    """true positives / predicted positives (values are cast to bool: nonzero is True)."""
    return _ratio_metric("precision", labels, predictions, weights, metrics_collections,
                         updates_collections, name)


def recall(labels, predictions, weights=None, metrics_collections=None,
           updates_collections=None, name=None):
    """true positives / actual positives (values are cast to bool: nonzero is True)."""
    return _ratio_metric("recall", labels, predictions, weights, metrics_collections,
                         updates_collections, name)


def auc_thresholds(num_thresholds=200, thresholds=None):
    """TF1's thresholds: evenly spaced in (0, 1) plus ``-1e-7`` and ``1 + 1e-7``."""
    if thresholds is None:
        if not isinstance(num_thresholds, int) or num_thresholds < 2:
            raise ValueError(f"num_thresholds must be an int > 1, got {num_thresholds!r}")
        inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    else:
        inner = sorted(float(t) for t in thresholds)
    return np.array([0.0 - _EPSILON] + inner + [1.0 + _EPSILON], np.float32)


def auc(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None,
        updates_collections=None, curve="ROC", name=None, summation_method="trapezoidal",
        thresholds=None):
    """The area under the ROC (or PR) curve, as TF1 computes it.

    Confusion counts are accumulated at ``num_thresholds`` thresholds (a prediction is
    positive when it is ``> threshold``); the curve through those points is integrated
    with the trapezoidal rule (``summation_method="minoring"``/``"majoring"``: lower or
    upper Riemann sums). ``predictions`` should be probabilities in [0, 1].

    Raises:
        ValueError: an unknown ``curve`` or ``summation_method``, or ``num_thresholds < 2``.
    """
    if curve not in ("ROC", "PR"):
        raise ValueError(f"curve must be 'ROC' or 'PR', got {curve!r}")
    if summation_method not in ("trapezoidal", "minoring", "majoring",
                                "careful_interpolation"):
        raise ValueError("summation_method must be 'trapezoidal', 'minoring', 'majoring' or "
                         f"'careful_interpolation', got {summation_method!r}")
    points = auc_thresholds(num_thresholds, thresholds)
    n = len(points)
    with variable_scope(name, "auc"):
        labels = convert_to_tensor(labels)
        predictions = math_ops.to_float(convert_to_tensor(predictions))
        labels, predictions = _squeeze_to_match(labels, predictions)
        label_pos = array_ops.reshape(math_ops.to_float(math_ops.cast(labels, dtypes.bool)),
                                      [1, -1])
        w = array_ops.reshape(_weights(predictions, weights), [1, -1])
        pred_pos = math_ops.to_float(math_ops.greater(
            array_ops.reshape(predictions, [1, -1]), constant(points.reshape(n, 1))))
        label_neg, pred_neg = 1.0 - label_pos, 1.0 - pred_pos
        counts, updates = {}, []
        for key, a, b in (("tp", label_pos, pred_pos), ("fn", label_pos, pred_neg),
                          ("tn", label_neg, pred_neg), ("fp", label_neg, pred_pos)):
            var = _metric_variable([n], {"tp": "true_positives", "fn": "false_negatives",
                                         "tn": "true_negatives", "fp": "false_positives"}[key])
            counts[key] = var
            updates.append(assign_add(var, math_ops.reduce_sum(a * b * w, axis=1)))
        value = _area(counts["tp"], counts["fn"], counts["tn"], counts["fp"], n, curve,
                      summation_method, "value")
        with control_dependencies(updates):
            update_op = _area(*updates, n, curve, summation_method, "update_op")
    return _finish(value, update_op, metrics_collections, updates_collections)


def _interpolated_pr_auc(tp, fn, fp, n, name):
    """PR AUC interpolated between thresholds (Davis & Goadrich 2006), as TF1's
    ``summation_method='careful_interpolation'``."""
    from estimator_npu.engine.ops.math_extra_ops import div_no_nan
    dtp = tp[:n - 1] - tp[1:]
    p = tp + fp
    slope = div_no_nan(dtp, math_ops.maximum(p[:n - 1] - p[1:], 0.0))
    intercept = tp[1:] - slope * p[1:]
    both = math_ops.logical_and(math_ops.greater(p[:n - 1], 0.0), math_ops.greater(p[1:], 0.0))
    ratio = array_ops.where(both, div_no_nan(p[:n - 1], math_ops.maximum(p[1:], 0.0)),
                            array_ops.ones_like(p[1:]))
    return math_ops.reduce_sum(div_no_nan(slope * (dtp + intercept * math_ops.log(ratio)),
                                          math_ops.maximum(tp[1:] + fn[1:], 0.0)), name=name)


def _area(tp, fn, tn, fp, n, curve, summation_method, name):
    if summation_method == "careful_interpolation" and curve == "PR":
        return _interpolated_pr_auc(tp, fn, fp, n, name)
    # as TF1: epsilon in both numerator and denominator of recall and precision (an empty
    # threshold has precision 1)
    recall_ = math_ops.divide(tp + _EPSILON, tp + fn + _EPSILON)
    if curve == "ROC":
        x, y = math_ops.divide(fp, fp + tn + _EPSILON), recall_
    else:
        x, y = recall_, math_ops.divide(tp + _EPSILON, tp + fp + _EPSILON)
    dx = x[:n - 1] - x[1:]
    if summation_method in ("trapezoidal", "careful_interpolation"):
        height = (y[:n - 1] + y[1:]) / 2.0
    elif summation_method == "minoring":
        height = math_ops.minimum(y[:n - 1], y[1:])
    else:
        height = math_ops.maximum(y[:n - 1], y[1:])
    return math_ops.reduce_sum(dx * height, name=name)


__all__ = ["accuracy", "auc", "mean", "mean_squared_error", "precision", "recall"]
