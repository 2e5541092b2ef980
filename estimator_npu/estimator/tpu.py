"""``tf.estimator.tpu``: the ``TPUEstimator`` names (re-exports of ``tpu_estimator``)."""
from estimator_npu.estimator.tpu_estimator import (InputPipelineConfig, RunConfig,  # noqa: F401
                                                   TPUConfig, TPUEstimator, TPUEstimatorSpec)

__all__ = ["InputPipelineConfig", "RunConfig", "TPUConfig", "TPUEstimator", "TPUEstimatorSpec"]
