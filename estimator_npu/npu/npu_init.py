"""``npu_bridge.npu_init``: every adapter name in one module (``from ... import *``).

The names are those the adapter's ``npu_init`` exports: the estimator, config, optimizer,
loss-scale and hook classes, the modules ``npu_ops``, ``util``, ``hccl_ops``,
``npu_unary_ops``, ``keras_to_npu`` and ``npu_rnn`` (imported when first used: keras is large),
``config_pb2``, ``rewriter_config_pb2`` and ``RewriterConfig``, the hccl rank functions,
the session/run-config helpers (``npu_config_proto``, ``npu_session_config_init``,
``npu_run_config_init``, ``npu_hooks_append``, ``npu_tf_optimizer``, ...), and, as the
adapter's star import gives them too, ``tf``, ``os``, ``session``, ``session_run_hook``
(``SessionRunHook`` and friends) and ``backend`` (the Keras backend).
"""
import importlib as _importlib
import os  # noqa: F401  (the adapter's star import exports it)

from estimator_npu.core.protobuf import config_pb2, rewriter_config_pb2  # noqa: F401
from estimator_npu.core.protobuf.rewriter_config_pb2 import RewriterConfig
from estimator_npu.estimator import RunConfig
from estimator_npu.hooks import SessionRunHook
from estimator_npu.npu import *  # noqa: F401,F403
from estimator_npu.npu import NPUEstimator, NPURunConfig, hccl_ops, npu_ops, util  # noqa
from estimator_npu.npu.hccl import (create_group, destroy_group,  # noqa: F401
                                    get_group_rank_from_world_rank, get_local_rank_id,
                                    get_local_rank_size, get_rank_id, get_rank_size,
                                    get_world_rank_from_group_rank, set_split_strategy_by_idx,
                                    set_split_strategy_by_size)
from estimator_npu.npu.npu_config import DumpConfig, DynamicInputConfig, ProfilingConfig  # noqa
from estimator_npu.npu.npu_estimator import NPUEstimatorSpec  # noqa: F401
from estimator_npu.npu.npu_hook import (NPUBroadcastGlobalVariablesHook,  # noqa: F401
                                        NPUCheckpointSaverHook, NPUOutputTensorHook)
from estimator_npu.npu.npu_plugin import npu_close  # noqa: F401
from estimator_npu.npu.npu_unary_ops import npu_unary_ops  # noqa: F401
from estimator_npu.train.distributed_optimizer import NPUDistributedOptimizer

KerasDistributeOptimizer = NPUDistributedOptimizer


def _npu_config_proto(config_proto):
    config_proto.allow_soft_placement = True
    config_proto.log_device_placement = False
    config_proto.graph_options.rewrite_options.remapping = RewriterConfig.OFF
    config_proto.graph_options.optimizer_options.global_jit_level = \
        config_pb2.OptimizerOptions.OFF


def npu_config_proto(config_proto=None):
    """``config_proto`` (a new ``ConfigProto`` if None) set up as the adapter does: soft
    placement, remapping off, XLA off."""
    if not isinstance(config_proto, config_pb2.ConfigProto):
        config_proto = config_pb2.ConfigProto()
    _npu_config_proto(config_proto)
    return config_proto


def npu_session_config_init(session_config=None):
    """``npu_config_proto`` plus an ``NpuOptimizer`` custom-optimizer entry."""
    if not isinstance(session_config, config_pb2.ConfigProto):
        session_config = config_pb2.ConfigProto()
    custom_op = session_config.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.name = "NpuOptimizer"
    _npu_config_proto(session_config)
    return session_config


def npu_run_config_init(run_config=None):
    """``run_config`` (a new ``RunConfig`` if None) with its session config passed through
    ``npu_session_config_init``."""
    if not isinstance(run_config, RunConfig):
        run_config = RunConfig()
    return run_config.replace(
        session_config=npu_session_config_init(run_config.session_config))


def npu_graph_options(graph_options=None):
    if not isinstance(graph_options, config_pb2.GraphOptions):
        graph_options = config_pb2.GraphOptions()
    graph_options.optimizer_options.global_jit_level = config_pb2.OptimizerOptions.OFF
    return graph_options


def npu_optimizer_options(optimizer_options=None):
    if not isinstance(optimizer_options, config_pb2.OptimizerOptions):
        optimizer_options = config_pb2.OptimizerOptions()
    optimizer_options.global_jit_level = config_pb2.OptimizerOptions.OFF
    return optimizer_options


def npu_hooks_append(hooks_list=None):
    """``hooks_list`` (a new list if not a list) plus a broadcast of the global variables
    from rank 0 (``RANK_ID`` names this process's rank, as in the adapter)."""
    if not isinstance(hooks_list, list):
        hooks_list = []
    hooks_list.append(NPUBroadcastGlobalVariablesHook(0, int(os.getenv("RANK_ID", "0"))))
    return hooks_list


def npu_tf_optimizer(opt):
    """``NPUDistributedOptimizer(opt)``."""
    return NPUDistributedOptimizer(opt)


def npu_keras_optimizer(opt):
    return KerasDistributeOptimizer(opt)


class NpuEmptyHook(SessionRunHook):
    """A hook that does nothing."""


def init_resource():
    """``(session, shutdown_op)`` as the adapter returns them; nothing to start here."""
    session = _importlib.import_module("estimator_npu").Session(
        config=npu_session_config_init())
    return session, npu_ops.shutdown_system()


def set_keras_session_npu_config(config=None):
    """A ``Session`` with ``npu_session_config_init(config)``, made the Keras backend's
    session (``tf.keras.backend.set_session``) and returned, as the adapter does; scripts
    close it with ``close_session`` at the end."""
    session = _importlib.import_module("estimator_npu").Session(
        config=npu_session_config_init(config))
    _importlib.import_module("estimator_npu.keras.backend").set_session(session)
    return session


def shutdown_resource(sess, npu_shutdown):
    sess.run(npu_shutdown)


def close_session(sess):
    sess.close()


def get_npu_rank_id():
    return get_rank_id()


def get_npu_local_rank_id():
    return get_local_rank_id()


def get_npu_rank_size():
    return get_rank_size()


# Adapter modules the star import exports (Oct-ResNet calls keras_to_npu bare).
_LAZY_MODULES = ("keras_to_npu", "npu_rnn")


def __getattr__(name):
    # ``tf``: the module scripts see as tensorflow (the alias while one is installed).
    if name == "tf":
        import sys
        if any(getattr(f, "provides_tensorflow_aliases", False) for f in sys.meta_path):
            return _importlib.import_module("tensorflow")
        return _importlib.import_module("estimator_npu")
    if name == "session":
        return _importlib.import_module("estimator_npu")
    if name in _LAZY_MODULES:
        return _importlib.import_module(f"estimator_npu.npu.{name}")
    if name == "session_run_hook":  # tensorflow.python.training.session_run_hook
        return _importlib.import_module("estimator_npu.train")
    if name == "backend":  # tensorflow.python.keras.backend
        return _importlib.import_module("estimator_npu.keras.backend")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted({n for n in dir() if not n.startswith("_")} - {"RunConfig", "SessionRunHook"}
                 | {"tf", "session", "session_run_hook", "backend", *_LAZY_MODULES})
