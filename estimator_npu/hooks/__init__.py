"""Hooks and monitored sessions: the ``SessionRunHook`` protocol, built-in hooks, timers.

The TF1 export paths (``tf.train.SessionRunHook``, ``tf.train.CheckpointSaverHook``,
``tf.train.MonitoredTrainingSession``, ...) re-export these names.
"""
from estimator_npu.hooks.basic_hooks import (FeedFnHook, FinalOpsHook,  # noqa: F401
                                             LoggingTensorHook, NanLossDuringTrainingError,
                                             NanTensorHook, StepCounterHook, StopAtStepHook)
from estimator_npu.hooks.monitored_session import (MonitoredSession,  # noqa: F401
                                                   MonitoredTrainingSession,
                                                   SingularMonitoredSession, default_runner,
                                                   sort_hooks)
from estimator_npu.hooks.profiler_hook import ProfilerHook  # noqa: F401
from estimator_npu.hooks.progress import ProgressHook  # noqa: F401
from estimator_npu.hooks.saver_hooks import (CheckpointSaverHook,  # noqa: F401
                                             CheckpointSaverListener, SummarySaverHook)
from estimator_npu.hooks.scaffold import (ChiefSessionCreator, Scaffold,  # noqa: F401
                                          WorkerSessionCreator)
from estimator_npu.hooks.session_run_hook import (PRIORITY_EDITOR, PRIORITY_READER,  # noqa
                                                  PRIORITY_WRITER, SessionRunArgs,
                                                  SessionRunContext, SessionRunHook,
                                                  StepAccount,
                                                  SessionRunValues, get_global_step)
from estimator_npu.hooks.timer import (NeverTriggerTimer, SecondOrStepTimer,  # noqa: F401
                                       fire_steps)

__all__ = [
    "SessionRunHook", "SessionRunArgs", "SessionRunContext", "SessionRunValues", "StepAccount",
    "PRIORITY_WRITER", "PRIORITY_EDITOR", "PRIORITY_READER",
    "SecondOrStepTimer", "NeverTriggerTimer", "fire_steps",
    "CheckpointSaverHook", "CheckpointSaverListener", "SummarySaverHook", "StepCounterHook",
    "LoggingTensorHook", "StopAtStepHook", "NanTensorHook", "NanLossDuringTrainingError",
    "FinalOpsHook", "FeedFnHook", "ProgressHook", "ProfilerHook",
    "MonitoredSession", "SingularMonitoredSession", "MonitoredTrainingSession", "Scaffold",
    "ChiefSessionCreator", "WorkerSessionCreator", "default_runner", "sort_hooks",
    "get_global_step",
]
