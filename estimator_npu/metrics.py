"""``tf.metrics``: streaming metrics as ``(value, update_op)`` pairs over local variables."""
from estimator_npu.estimator.metrics import (accuracy, auc, mean,  # noqa: F401
                                             mean_squared_error, precision, recall)

from estimator_npu.estimator.metrics_extra import (false_negatives,  # noqa: F401,E402
                                                   false_positives, mean_absolute_error,
                                                   mean_iou, mean_per_class_accuracy,
                                                   precision_at_k, recall_at_k,
                                                   root_mean_squared_error, true_negatives,
                                                   true_positives)

from estimator_npu.estimator.metrics_thresholds import (  # noqa: F401,E402
    false_negatives_at_thresholds, false_positives_at_thresholds, mean_cosine_distance,
    mean_relative_error, mean_tensor, percentage_below, precision_at_thresholds,
    recall_at_thresholds, sensitivity_at_specificity, specificity_at_sensitivity,
    true_negatives_at_thresholds, true_positives_at_thresholds)

__all__ = ["accuracy", "auc", "mean", "mean_squared_error", "precision", "recall",
           "false_negatives", "false_positives", "mean_absolute_error", "mean_iou",
           "mean_per_class_accuracy", "precision_at_k", "recall_at_k",
           "root_mean_squared_error", "true_negatives", "true_positives",
           "false_negatives_at_thresholds", "false_positives_at_thresholds",
           "mean_cosine_distance", "mean_relative_error", "mean_tensor", "percentage_below",
           "precision_at_thresholds", "recall_at_thresholds", "sensitivity_at_specificity",
           "specificity_at_sensitivity", "true_negatives_at_thresholds",
           "true_positives_at_thresholds"]
