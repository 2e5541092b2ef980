"""``tf.contrib.metrics``: TF1's ``streaming_*`` metric names over ``tf.metrics``.

Each ``streaming_X(predictions, labels, ...)`` is TF 1.15's deprecated wrapper: the same
``(value, update_op)`` pair as ``tf.metrics.X(labels, predictions, ...)``, with the
predictions first. ``accuracy`` and ``auc`` etc. are also exported under their plain names,
as contrib.metrics did. Names not listed raise "does not implement tf.contrib.metrics.X".
"""
from estimator_npu import metrics as _m
from estimator_npu.compat.missing import module_getattr as _module_getattr


def _pl(fn):
    def streaming(predictions, labels, weights=None, metrics_collections=None,
                  updates_collections=None, name=None, **kwargs):
        return fn(labels=labels, predictions=predictions, weights=weights,
                  metrics_collections=metrics_collections,
                  updates_collections=updates_collections, name=name, **kwargs)
    streaming.__name__ = "streaming_" + fn.__name__
    streaming.__doc__ = (f"``tf.contrib.metrics.streaming_{fn.__name__}(predictions, labels, "
                         f"...)``: ``tf.metrics.{fn.__name__}(labels, predictions, ...)``.")
    return streaming


streaming_accuracy = _pl(_m.accuracy)
streaming_auc = _pl(_m.auc)
streaming_precision = _pl(_m.precision)
streaming_recall = _pl(_m.recall)
streaming_mean_squared_error = _pl(_m.mean_squared_error)
streaming_mean_absolute_error = _pl(_m.mean_absolute_error)
streaming_root_mean_squared_error = _pl(_m.root_mean_squared_error)
streaming_true_positives = _pl(_m.true_positives)
streaming_false_positives = _pl(_m.false_positives)
streaming_false_negatives = _pl(_m.false_negatives)
streaming_true_negatives = _pl(_m.true_negatives)


def streaming_mean(values, weights=None, metrics_collections=None, updates_collections=None,
                   name=None):
    """``tf.metrics.mean``."""
    return _m.mean(values, weights=weights, metrics_collections=metrics_collections,
                   updates_collections=updates_collections, name=name)


def streaming_mean_iou(predictions, labels, num_classes, weights=None,
                       metrics_collections=None, updates_collections=None, name=None):
    """``tf.metrics.mean_iou(labels, predictions, num_classes, ...)``."""
    return _m.mean_iou(labels, predictions, num_classes, weights=weights,
                       metrics_collections=metrics_collections,
                       updates_collections=updates_collections, name=name)


def streaming_sparse_recall_at_k(predictions, labels, k, class_id=None, weights=None,
                                 metrics_collections=None, updates_collections=None,
                                 name=None):
    """``tf.metrics.recall_at_k(labels, predictions, k, ...)``."""
    return _m.recall_at_k(labels=labels, predictions=predictions, k=k, class_id=class_id,
                          weights=weights, metrics_collections=metrics_collections,
                          updates_collections=updates_collections, name=name)


def streaming_sparse_precision_at_k(predictions, labels, k, class_id=None, weights=None,
                                    metrics_collections=None, updates_collections=None,
                                    name=None):
    """``tf.metrics.precision_at_k(labels, predictions, k, ...)``."""
    return _m.precision_at_k(labels=labels, predictions=predictions, k=k, class_id=class_id,
                             weights=weights, metrics_collections=metrics_collections,
                             updates_collections=updates_collections, name=name)


accuracy = _m.accuracy
auc = _m.auc

__getattr__ = _module_getattr(__name__)
__all__ = sorted(n for n in dir() if n.startswith("streaming_")) + ["accuracy", "auc"]
