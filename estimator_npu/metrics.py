"""``tf.metrics``: streaming metrics as ``(value, update_op)`` pairs over local variables."""
from estimator_npu.estimator.metrics import (accuracy, auc, mean,  # noqa: F401
                                             mean_squared_error, precision, recall)

from estimator_npu.estimator.metrics_extra import (false_negatives,  # noqa: F401,E402
                                                   false_positives, mean_absolute_error,
                                                   mean_iou, mean_per_class_accuracy,
                                                   precision_at_k, recall_at_k,
                                                   root_mean_squared_error, true_negatives,
                                                   true_positives)

__all__ = ["accuracy", "auc", "mean", "mean_squared_error", "precision", "recall",
           "false_negatives", "false_positives", "mean_absolute_error", "mean_iou",
           "mean_per_class_accuracy", "precision_at_k", "recall_at_k",
           "root_mean_squared_error", "true_negatives", "true_positives"]
