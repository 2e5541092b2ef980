"""``tf.metrics``: streaming metrics as ``(value, update_op)`` pairs over local variables."""
from estimator_npu.estimator.metrics import (accuracy, auc, mean,  # noqa: F401
                                             mean_squared_error, precision, recall)

__all__ = ["accuracy", "auc", "mean", "mean_squared_error", "precision", "recall"]
