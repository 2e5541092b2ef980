"""``tf.contrib.tpu``: ``TPUEstimator`` and its configuration, run on the host as TF's
``use_tpu=False`` fallback does (``estimator_npu.estimator.tpu_estimator``)."""
from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.estimator.tpu_estimator import (CrossShardOptimizer,  # noqa: F401
                                                   InputPipelineConfig, RunConfig, TPUConfig,
                                                   TPUEstimator, TPUEstimatorSpec)

__all__ = ["CrossShardOptimizer", "InputPipelineConfig", "RunConfig", "TPUConfig",
           "TPUEstimator", "TPUEstimatorSpec"]
__getattr__ = _module_getattr(__name__)
