"""``estimator_npu.train``: the TF1 ``tf.train`` names of the training layer.

Optimizers (public TF1 classes over the pure rules of ``update_rules``), learning-rate
schedules, the global step, ``Saver`` and checkpoint files, summaries, ``Coordinator``
and ``Supervisor``. The session-run hook names (``tf.train.SessionRunHook``,
``CheckpointSaverHook``, ``MonitoredTrainingSession`` ...) live in the hooks layer, above
this one; they are re-exported here lazily (PEP 562 ``__getattr__``) so that no module
of this layer imports ``estimator_npu.hooks``.
"""
from estimator_npu.train import update_rules  # noqa: F401
from estimator_npu.train import apply_op_graph_def, graph_def_ops  # noqa: F401  (TF forms)
from estimator_npu.train import loss_scale_graph_def  # noqa: F401  (TF forms)
from estimator_npu.train.checkpoint_io import (CheckpointReader, CheckpointState,  # noqa
                                               NewCheckpointReader, checkpoint_exists,
                                               get_checkpoint_mtimes, get_checkpoint_state,
                                               latest_checkpoint, list_variables,
                                               load_checkpoint, load_variable,
                                               update_checkpoint_state)
from estimator_npu.train.checkpoint_utils import init_from_checkpoint  # noqa: F401
from estimator_npu.train.cluster_spec import ClusterSpec  # noqa: F401
from estimator_npu.train.coordinator import Coordinator, LooperThread  # noqa: F401
from estimator_npu.train.device_setter import replica_device_setter  # noqa: F401
from estimator_npu.core.example.example_pb2 import Example, SequenceExample  # noqa: F401
from estimator_npu.core.example.feature_pb2 import (BytesList, Feature, FeatureList,  # noqa
                                                    FeatureLists, Features, FloatList,
                                                    Int64List)
from estimator_npu.train.learning_rate_decay import (cosine_decay, exponential_decay,  # noqa
                                                     inverse_time_decay, linear_warmup,
                                                     natural_exp_decay, piecewise_constant,
                                                     polynomial_decay)
from estimator_npu.train.meta_graph import (export_meta_graph, import_meta_graph,  # noqa
                                            write_graph)
from estimator_npu.train.optimizer import Optimizer  # noqa: F401
from estimator_npu.train.optimizers_extra import (AdadeltaOptimizer, FtrlOptimizer,  # noqa
                                                  ProximalAdagradOptimizer,
                                                  ProximalGradientDescentOptimizer)
from estimator_npu.train.moving_averages import ExponentialMovingAverage  # noqa: F401
from estimator_npu.train.cosine_schedules import (cosine_decay_restarts,  # noqa: F401
                                                  linear_cosine_decay)
from estimator_npu.train.optimizers import (AdagradOptimizer, AdamOptimizer,  # noqa: F401
                                            GradientDescentOptimizer, LAMBOptimizer,
                                            MomentumOptimizer, RMSPropOptimizer)
from estimator_npu.train.saver import Saver  # noqa: F401
from estimator_npu.train.summary_writer import summary_iterator  # noqa: F401
from estimator_npu.train.supervisor import Supervisor  # noqa: F401
from estimator_npu.train.training_util import (assert_global_step,  # noqa: F401
                                               create_global_step, get_global_step,
                                               get_or_create_global_step, global_step)

# TF1 ``tf.train`` names defined by ``estimator_npu.hooks``, resolved on first access.
_HOOK_NAMES = frozenset([
    "SessionRunHook", "SessionRunArgs", "SessionRunContext", "SessionRunValues",
    "CheckpointSaverHook", "CheckpointSaverListener", "SummarySaverHook", "StepCounterHook",
    "LoggingTensorHook", "StopAtStepHook", "NanTensorHook", "NanLossDuringTrainingError",
    "FinalOpsHook", "FeedFnHook", "ProfilerHook", "SecondOrStepTimer", "MonitoredSession",
    "SingularMonitoredSession", "MonitoredTrainingSession", "Scaffold",
    "ChiefSessionCreator", "WorkerSessionCreator",
])

# TF1 ``tf.train`` names of queue-based input, defined by ``estimator_npu.queues`` (a layer
# above this one), resolved on first access like the hook names.
_QUEUE_NAMES = frozenset([
    "QueueRunner", "add_queue_runner", "start_queue_runners", "queue_runner", "batch",
    "batch_join", "maybe_batch", "maybe_batch_join", "shuffle_batch", "shuffle_batch_join",
    "maybe_shuffle_batch", "maybe_shuffle_batch_join", "input_producer",
    "string_input_producer", "range_input_producer", "slice_input_producer", "limit_epochs",
    "match_filenames_once",
])

__all__ = sorted(n for n in dir() if not n.startswith("_"))


def __getattr__(name):
    if name in _HOOK_NAMES:
        from estimator_npu import hooks  # the one upward reference, resolved lazily
        return getattr(hooks, name)
    if name in _QUEUE_NAMES:
        from estimator_npu import queues  # resolved lazily, as the hook names
        return getattr(queues, name)
    raise AttributeError(f"module 'estimator_npu.train' has no attribute {name!r}")


def __dir__():
    return sorted(set(__all__) | _HOOK_NAMES | _QUEUE_NAMES)


def _register_op_families():
    """Adds this layer's op families (each module's ``OPS``) to the engine's op table: the
    one place the train layer registers ops."""
    from estimator_npu.engine import registry
    from estimator_npu.train import (apply_op, checkpoint_utils, loss_scale, sparse_apply,
                                     summary_ops)
    registry.register_families([apply_op.OPS, checkpoint_utils.OPS, loss_scale.OPS,
                                summary_ops.OPS, sparse_apply.OPS])


_register_op_families()
