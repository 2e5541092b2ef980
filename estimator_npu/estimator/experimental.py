"""``tf.estimator.experimental``: early-stopping hooks and the k-means Estimator."""
from estimator_npu.estimator.early_stopping import (make_early_stopping_hook,  # noqa: F401
                                                    read_eval_metrics,
                                                    stop_if_higher_hook, stop_if_lower_hook,
                                                    stop_if_no_decrease_hook,
                                                    stop_if_no_increase_hook)
from estimator_npu.estimator.canned.kmeans import KMeansClustering as KMeans  # noqa: F401

__all__ = ["make_early_stopping_hook", "stop_if_higher_hook", "stop_if_lower_hook",
           "stop_if_no_decrease_hook", "stop_if_no_increase_hook", "KMeans"]
