"""``tf.estimator``: ``Estimator``, ``EstimatorSpec``, ``ModeKeys``, ``RunConfig``, warm start.

The hook names TF1 also exports here (``tf.estimator.SessionRunHook``,
``tf.estimator.CheckpointSaverHook``, ...) come from ``estimator_npu.hooks``.
"""
from estimator_npu.estimator import metrics  # noqa: F401
from estimator_npu.estimator.estimator import Estimator  # noqa: F401
from estimator_npu.estimator.model_fn import EstimatorSpec, ModeKeys  # noqa: F401
from estimator_npu.estimator.npu_run_config import NPURunConfig  # noqa: F401
from estimator_npu.estimator.run_config import RunConfig  # noqa: F401
from estimator_npu.estimator.warm_starting import WarmStartSettings  # noqa: F401
from estimator_npu.estimator import experimental  # noqa: F401,E402
from estimator_npu.estimator import export  # noqa: F401,E402
from estimator_npu.estimator import tpu  # noqa: F401,E402 - tf.estimator.tpu
from estimator_npu.estimator.export import (BestExporter, Exporter,  # noqa: F401,E402
                                            FinalExporter, LatestExporter)
from estimator_npu.estimator.training import EvalSpec, TrainSpec, train_and_evaluate  # noqa
from estimator_npu.hooks import (CheckpointSaverHook, CheckpointSaverListener,  # noqa: F401
                                 FeedFnHook, FinalOpsHook, LoggingTensorHook,
                                 NanLossDuringTrainingError, NanTensorHook, ProfilerHook,
                                 ProgressHook, SecondOrStepTimer, SessionRunArgs,
                                 SessionRunContext,
                                 SessionRunHook, SessionRunValues, StepCounterHook,
                                 StopAtStepHook, SummarySaverHook)

__all__ = ["Estimator", "EstimatorSpec", "ModeKeys", "RunConfig", "WarmStartSettings",
           "SessionRunHook", "SessionRunArgs", "SessionRunContext", "SessionRunValues",
           "CheckpointSaverHook", "CheckpointSaverListener", "SummarySaverHook",
           "StepCounterHook", "LoggingTensorHook", "StopAtStepHook", "NanTensorHook",
           "NanLossDuringTrainingError", "FinalOpsHook", "FeedFnHook", "ProfilerHook",
           "ProgressHook", "SecondOrStepTimer", "metrics", "TrainSpec", "EvalSpec",
           "train_and_evaluate", "experimental", "export", "Exporter", "LatestExporter",
           "FinalExporter", "BestExporter", "tpu"]
from estimator_npu.estimator.canned import (BaselineClassifier, BaselineRegressor,  # noqa: E402
                                            DNNClassifier, DNNLinearCombinedClassifier,
                                            DNNLinearCombinedRegressor, DNNRegressor,
                                            LinearClassifier, LinearRegressor)
__all__ += ["DNNClassifier", "DNNRegressor", "LinearClassifier", "LinearRegressor",
            "DNNLinearCombinedClassifier", "DNNLinearCombinedRegressor",
            "BaselineClassifier", "BaselineRegressor"]
