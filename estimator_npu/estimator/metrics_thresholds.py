"""More of ``tf.metrics``: confusion counts at thresholds (``*_at_thresholds``,
``precision_at_thresholds``, ``recall_at_thresholds``), ``sensitivity_at_specificity``,
``specificity_at_sensitivity``, ``mean_tensor``, ``percentage_below``,
``mean_cosine_distance`` and ``mean_relative_error``, as TF1's ``metrics_impl``.

A prediction is positive at threshold ``t`` when it is ``> t``; the counts accumulate in
float32 local variables of shape ``[len(thresholds)]``."""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import control_dependencies
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.core import constant, convert_to_tensor, identity
from estimator_npu.engine.ops.math_extra_ops import cumsum
from estimator_npu.engine.ops.state_ops import assign_add
from estimator_npu.engine.variable_scope import variable_scope
from estimator_npu.estimator.metrics import (_EPSILON, _finish, _metric_variable, _safe_div,
                                             _squeeze_to_match, _weights, auc_thresholds,
                                             mean)

_NAMES = {"tp": "true_positives", "fn": "false_negatives", "tn": "true_negatives",
          "fp": "false_positives"}


def _confusion(labels, predictions, thresholds, weights, keys):
    """``{key: (variable, update)}`` of the counts ``keys`` at ``thresholds``."""
    labels = convert_to_tensor(labels)
    predictions = math_ops.to_float(convert_to_tensor(predictions))
    labels, predictions = _squeeze_to_match(labels, predictions)
    n = len(thresholds)
    pos = array_ops.reshape(math_ops.to_float(math_ops.cast(labels, dtypes.bool)), [1, -1])
    w = array_ops.reshape(_weights(predictions, weights), [1, -1])
    above = math_ops.to_float(math_ops.greater(
        array_ops.reshape(predictions, [1, -1]),
        constant(np.asarray(thresholds, np.float32).reshape(n, 1))))
    parts = {"tp": (pos, above), "fn": (pos, 1.0 - above), "tn": (1.0 - pos, 1.0 - above),
             "fp": (1.0 - pos, above)}
    out = {}
    for key in keys:
        var = _metric_variable([n], _NAMES[key])
        a, b = parts[key]
        out[key] = (var, assign_add(var, math_ops.reduce_sum(a * b * w, axis=1)))
    return out


def _count_at(key, labels, predictions, thresholds, weights, metrics_collections,
              updates_collections, name):
    with variable_scope(name, f"{_NAMES[key]}_at_thresholds"):
        var, update = _confusion(labels, predictions, list(thresholds), weights, [key])[key]
        return _finish(identity(var), update, metrics_collections, updates_collections)


def true_positives_at_thresholds(labels, predictions, thresholds, weights=None,
                                 metrics_collections=None, updates_collections=None,
                                 name=None):
    return _count_at("tp", labels, predictions, thresholds, weights, metrics_collections,
                     updates_collections, name)


def false_positives_at_thresholds(labels, predictions, thresholds, weights=None,
                                  metrics_collections=None, updates_collections=None,
                                  name=None):
    return _count_at("fp", labels, predictions, thresholds, weights, metrics_collections,
                     updates_collections, name)


def true_negatives_at_thresholds(labels, predictions, thresholds, weights=None,
                                 metrics_collections=None, updates_collections=None,
                                 name=None):
    return _count_at("tn", labels, predictions, thresholds, weights, metrics_collections,
                     updates_collections, name)


def false_negatives_at_thresholds(labels, predictions, thresholds, weights=None,
                                  metrics_collections=None, updates_collections=None,
                                  name=None):
    return _count_at("fn", labels, predictions, thresholds, weights, metrics_collections,
                     updates_collections, name)


def _ratio_at(num, other, default, labels, predictions, thresholds, weights,
              metrics_collections, updates_collections, name):
    with variable_scope(name, default):
        c = _confusion(labels, predictions, list(thresholds), weights, [num, other])

        def ratio(a, b, op_name):
            return math_ops.divide(a, _EPSILON + a + b, name=op_name)
        value = ratio(c[num][0], c[other][0], "value")
        update = ratio(c[num][1], c[other][1], "update_op")
        return _finish(value, update, metrics_collections, updates_collections)


def precision_at_thresholds(labels, predictions, thresholds, weights=None,
                            metrics_collections=None, updates_collections=None, name=None):
    """``tp / (tp + fp + 1e-7)`` at each threshold."""
    return _ratio_at("tp", "fp", "precision_at_thresholds", labels, predictions, thresholds,
                     weights, metrics_collections, updates_collections, name)


def recall_at_thresholds(labels, predictions, thresholds, weights=None,
                         metrics_collections=None, updates_collections=None, name=None):
    """``tp / (tp + fn + 1e-7)`` at each threshold."""
    return _ratio_at("tp", "fn", "recall_at_thresholds", labels, predictions, thresholds,
                     weights, metrics_collections, updates_collections, name)


def _at_rate(target, what, compute, default, labels, predictions, weights, num_thresholds,
             metrics_collections, updates_collections, name):
    if not 0.0 <= float(target) <= 1.0:
        raise ValueError(f"`{what}` must be in the range [0, 1], got {target!r}")
    with variable_scope(name, default):
        c = _confusion(labels, predictions, auc_thresholds(num_thresholds), weights,
                       ["tp", "tn", "fp", "fn"])
        value = compute(*(c[k][0] for k in ("tp", "tn", "fp", "fn")), "value")
        with control_dependencies([c[k][1] for k in c]):
            update = compute(*(identity(c[k][1]) for k in ("tp", "tn", "fp", "fn")),
                             "update_op")
        return _finish(value, update, metrics_collections, updates_collections)


def sensitivity_at_specificity(labels, predictions, specificity, weights=None,
                               num_thresholds=200, metrics_collections=None,
                               updates_collections=None, name=None):
    """The sensitivity at the threshold whose specificity is closest to ``specificity``
    (the first such threshold)."""
    def compute(tp, tn, fp, fn, op_name):
        spec = math_ops.divide(tn, tn + fp + _EPSILON)
        i = math_ops.cast(math_ops.argmin(math_ops.abs(spec - float(specificity)), 0),
                          dtypes.int32)
        return math_ops.divide(array_ops.gather(tp, i),
                               array_ops.gather(tp, i) + array_ops.gather(fn, i) + _EPSILON,
                               name=op_name)
    return _at_rate(specificity, "specificity", compute, "sensitivity_at_specificity", labels,
                    predictions, weights, num_thresholds, metrics_collections,
                    updates_collections, name)


def specificity_at_sensitivity(labels, predictions, sensitivity, weights=None,
                               num_thresholds=200, metrics_collections=None,
                               updates_collections=None, name=None):
    """The specificity at the threshold whose sensitivity is closest to ``sensitivity``
    (the last such threshold, as TF)."""
    def compute(tp, tn, fp, fn, op_name):
        dist = math_ops.abs(math_ops.divide(tp, tp + fn + _EPSILON) - float(sensitivity))
        at_min = math_ops.to_float(math_ops.equal(dist, math_ops.reduce_min(dist)))
        i = math_ops.cast(math_ops.argmax(cumsum(at_min), 0), dtypes.int32)
        return math_ops.divide(array_ops.gather(tn, i),
                               array_ops.gather(tn, i) + array_ops.gather(fp, i) + _EPSILON,
                               name=op_name)
    return _at_rate(sensitivity, "sensitivity", compute, "specificity_at_sensitivity", labels,
                    predictions, weights, num_thresholds, metrics_collections,
                    updates_collections, name)


def mean_tensor(values, weights=None, metrics_collections=None, updates_collections=None,
                name=None):
    """The element-wise (weighted) running mean of ``values`` (fixed static shape)."""
    with variable_scope(name, "mean"):
        values = math_ops.to_float(convert_to_tensor(values))
        if not values.shape.is_fully_defined():
            raise ValueError(f"mean_tensor: values must have a fully defined static shape, "
                             f"got {values.shape}")
        shape = values.shape.as_list()
        w = _weights(values, weights)
        total = _metric_variable(shape, "total_tensor")
        count = _metric_variable(shape, "count_tensor")
        update_total = assign_add(total, values * w)
        update_count = assign_add(count, w)
        value = _safe_div(total, count, "value")
        update = _safe_div(update_total, update_count, "update_op")
        return _finish(value, update, metrics_collections, updates_collections)


def percentage_below(values, threshold, weights=None, metrics_collections=None,
                     updates_collections=None, name=None):
    """The (weighted) fraction of ``values`` below ``threshold``."""
    below = math_ops.to_float(math_ops.less(convert_to_tensor(values), float(threshold)))
    return mean(below, weights, metrics_collections, updates_collections,
                name or "percentage_below_threshold")


def mean_cosine_distance(labels, predictions, dim, weights=None, metrics_collections=None,
                         updates_collections=None, name=None):
    """``1 - mean(sum(labels * predictions, dim))`` (unit-normalised inputs expected)."""
    labels = math_ops.to_float(convert_to_tensor(labels))
    predictions = math_ops.to_float(convert_to_tensor(predictions))
    radial = math_ops.reduce_sum(labels * predictions, axis=[dim], keepdims=True)
    value, update = mean(radial, weights, None, None, name or "mean_cosine_distance")
    return _finish(1.0 - value, 1.0 - update, metrics_collections, updates_collections)


def mean_relative_error(labels, predictions, normalizer, weights=None,
                        metrics_collections=None, updates_collections=None, name=None):
    """The mean of ``|labels - predictions| / normalizer`` (0 where ``normalizer`` is 0)."""
    labels = math_ops.to_float(convert_to_tensor(labels))
    predictions = math_ops.to_float(convert_to_tensor(predictions))
    norm = math_ops.to_float(convert_to_tensor(normalizer))
    zero = math_ops.equal(norm, 0.0)
    rel = array_ops.where(zero, array_ops.zeros_like(labels), math_ops.abs(
        labels - predictions) / array_ops.where(zero, array_ops.ones_like(norm), norm))
    return mean(rel, weights, metrics_collections, updates_collections,
                name or "mean_relative_error")
