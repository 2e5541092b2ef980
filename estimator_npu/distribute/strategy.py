"""``tf.distribute`` strategies for one replica per process.

TF1 scripts pick a strategy by the devices they find (``MirroredStrategy()`` on a machine
without GPUs, ``OneDeviceStrategy("/cpu:0")``) and hand it to
``RunConfig(train_distribute=...)`` or build a Keras model under ``strategy.scope()``. On
this machine both mean what TF 2.15 does on a CPU-only host: one replica, on the CPU, so the
numbers are those of the plain graph. Data parallelism across processes is this layer's MPI
side (``estimator-npu-run -n N``, ``NPUDistributedOptimizer``); a strategy given several
devices says so instead of silently training one replica::

    strategy = tf.distribute.MirroredStrategy()
    strategy.num_replicas_in_sync            # 1
    with strategy.scope():                   # has_strategy() is True inside
        ...
    strategy.run(fn, args=(x,))              # fn(x) in the replica context
    strategy.reduce(tf.distribute.ReduceOp.SUM, value, axis=None)

What the Estimator does with a strategy (TF's ``_train_model_distributed``: the
``input_context`` argument of input_fn, the model_fn in the replica context, the logged
step read before the update) lives in ``estimator/estimator.py``; it uses this module's
``replica_scope`` and ``InputContext``.
"""
import contextlib
import enum
import logging
import threading

from estimator_npu.engine.device_spec import DeviceSpec

_LOG = logging.getLogger("estimator_npu")
_STATE = threading.local()


class ReduceOp(enum.Enum):
    """``tf.distribute.ReduceOp``: how ``Strategy.reduce`` combines replicas."""
    SUM = "SUM"
    MEAN = "MEAN"


class InputContext:
    """``tf.distribute.InputContext``: what an ``input_fn(input_context)`` learns about the
    input pipelines (one here) and the replicas that share the global batch."""

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self.num_input_pipelines = num_input_pipelines
        self.input_pipeline_id = input_pipeline_id
        self.num_replicas_in_sync = num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size):
        """``global_batch_size`` split over the replicas; ``ValueError`` if it does not
        divide evenly."""
        if global_batch_size % self.num_replicas_in_sync:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible "
                             f"by `num_replicas_in_sync` {self.num_replicas_in_sync}")
        return global_batch_size // self.num_replicas_in_sync

    def __repr__(self):
        return (f"tf.distribute.InputContext(input pipeline id {self.input_pipeline_id}, "
                f"total: {self.num_input_pipelines})")


class ReplicaContext:
    """``tf.distribute.ReplicaContext`` of the only replica."""

    def __init__(self, strategy):
        self.strategy = strategy
        self.num_replicas_in_sync = 1
        self.replica_id_in_sync_group = 0

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """``merge_fn(strategy, *args, **kwargs)`` in the cross-replica context."""
        with _entered(self.strategy, None):
            return merge_fn(self.strategy, *args, **(kwargs or {}))

    def all_reduce(self, reduce_op, value):
        """The reduction over the one replica: ``value`` itself."""
        _check_reduce_op(reduce_op)
        return value


class StrategyExtended:
    """``strategy.extended``: the devices and the per-replica call."""

    def __init__(self, strategy, devices):
        self._strategy = strategy
        self.worker_devices = devices
        self.parameter_devices = devices

    def call_for_each_replica(self, fn, args=(), kwargs=None):
        return self._strategy.run(fn, args=args, kwargs=kwargs)

    def update(self, var, fn, args=(), kwargs=None, group=True):
        """``fn(var, *args, **kwargs)``: the update of a variable on its one copy."""
        return fn(var, *args, **(kwargs or {}))

    def value_container(self, value):
        return value


class Strategy:
    """One replica on the CPU; the base of the named strategies (and the default one that
    ``get_strategy()`` returns outside any scope)."""

    _default = False

    def __init__(self, device="/cpu:0"):
        DeviceSpec.from_string(device)      # a malformed device string raises here
        # a GPU named here is placed on the CPU, as TF's soft placement does on this host
        self.extended = StrategyExtended(self, ("/replica:0/task:0/device:CPU:0",))

    @property
    def num_replicas_in_sync(self):
        return 1

    @contextlib.contextmanager
    def scope(self):
        """Variables and models built inside belong to this strategy (``has_strategy()``)."""
        with _entered(self, None):
            yield self

    def run(self, fn, args=(), kwargs=None, options=None):
        """``fn(*args, **kwargs)`` in the replica context (TF's ``experimental_run_v2``)."""
        with _entered(self, ReplicaContext(self)):
            return fn(*args, **(kwargs or {}))

    experimental_run_v2 = run

    def reduce(self, reduce_op, value, axis=None):
        """The replicas' ``value`` combined (one replica: itself), then reduced over
        ``axis`` when one is given, as ``reduce_sum`` / ``reduce_mean`` would."""
        op = _check_reduce_op(reduce_op)
        if axis is None:
            return value
        from estimator_npu.engine.ops import math_ops
        reduce = math_ops.reduce_sum if op is ReduceOp.SUM else math_ops.reduce_mean
        return reduce(value, axis=axis)

    def experimental_distribute_dataset(self, dataset, options=None):
        return dataset

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        return dataset_fn(InputContext())

    experimental_distribute_datasets_from_function = distribute_datasets_from_function

    def experimental_local_results(self, value):
        return (value,)

    def __repr__(self):
        return f"<{type(self).__name__} devices={self.extended.worker_devices}>"


class MirroredStrategy(Strategy):
    """``tf.distribute.MirroredStrategy`` (and ``tf.contrib.distribute``'s, with
    ``num_gpus``): as TF on a host without GPUs, one replica on the CPU. ``devices`` may
    name one device; several raise (use MPI processes instead)."""

    def __init__(self, devices=None, cross_device_ops=None, num_gpus=None,
                 num_gpus_per_worker=None, auto_shard_dataset=False, cross_tower_ops=None):
        devices = list(devices) if devices is not None else ["/cpu:0"]
        if num_gpus is not None and num_gpus > 1:       # tf.contrib.distribute's argument
            devices = [f"/gpu:{i}" for i in range(num_gpus)]
        if len(devices) != 1:
            raise ValueError(
                f"MirroredStrategy(devices={devices!r}): estimator_npu runs one replica per "
                "process; for data parallelism run the script under `estimator-npu-run -n N` "
                "with NPUDistributedOptimizer (docs/distributed.md)")
        super().__init__(devices[0])
        _LOG.info("Using MirroredStrategy with devices %s", self.extended.worker_devices)


class OneDeviceStrategy(Strategy):
    """``tf.distribute.OneDeviceStrategy(device)``."""

    def __init__(self, device):
        super().__init__(device)


def _check_reduce_op(reduce_op):
    if isinstance(reduce_op, str):
        reduce_op = reduce_op.upper()
    try:
        return ReduceOp(reduce_op.value if isinstance(reduce_op, ReduceOp) else reduce_op)
    except ValueError:
        raise ValueError(f"reduce_op must be tf.distribute.ReduceOp.SUM or .MEAN, "
                         f"got {reduce_op!r}") from None


def _stack():
    if not hasattr(_STATE, "stack"):
        _STATE.stack = []
    return _STATE.stack


@contextlib.contextmanager
def _entered(strategy, replica_context):
    _stack().append((strategy, replica_context))
    try:
        yield
    finally:
        _stack().pop()


def replica_scope(strategy):
    """The replica context of ``strategy`` (the Estimator calls model_fn in it)."""
    return _entered(strategy, ReplicaContext(strategy))


_DEFAULT = Strategy()
_DEFAULT._default = True


def has_strategy():
    """Whether code runs under a strategy's scope (or inside its replica context)."""
    return bool(_stack())


def get_strategy():
    """The current strategy, or the default one-replica strategy outside any scope."""
    return _stack()[-1][0] if _stack() else _DEFAULT


def in_cross_replica_context():
    """True in a strategy's scope outside ``run``, False elsewhere (as TF)."""
    return bool(_stack()) and _stack()[-1][1] is None


def get_replica_context():
    """The replica context, or None in the cross-replica context."""
    if not _stack():
        return ReplicaContext(_DEFAULT)
    return _stack()[-1][1]
