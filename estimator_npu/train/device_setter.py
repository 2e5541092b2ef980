"""``tf.train.replica_device_setter`` and ``tf.contrib.training``'s placement strategies: TF1's
between-graph replication helpers.

Nothing is placed here (everything runs on the host), but the device strings are recorded as
TF records them: a variable made under ``tf.device(tf.train.replica_device_setter(...))`` gets
``/job:ps/task:N`` (``Variable.device``), so ``Saver(sharded=True)`` writes one data file per
parameter server as TF does, and scripts that read ``v.device`` see TF's strings.
"""
from estimator_npu.engine.device_spec import DeviceSpec

# the op types TF's setter puts on a parameter server (variables and mutable tables)
STANDARD_PS_OPS = ("Variable", "VariableV2", "AutoReloadVariable", "MutableHashTable",
                   "MutableHashTableV2", "MutableHashTableOfTensors",
                   "MutableHashTableOfTensorsV2", "MutableDenseHashTable",
                   "MutableDenseHashTableV2", "VarHandleOp", "BoostedTreesEnsembleResourceHandleOp",
                   "BoostedTreesQuantileStreamResourceHandleOp")

class _RoundRobinStrategy:
    def __init__(self, num_tasks):
        self._num_tasks, self._next = num_tasks, 0

    def __call__(self, unused_op):
        task, self._next = self._next, (self._next + 1) % self._num_tasks
        return task


def byte_size_load_fn(op):
    """The load of a variable op for ``GreedyLoadBalancingStrategy``: its bytes (0 when its
    shape is not fully known)."""
    out = op.outputs[0]
    n = out.shape.num_elements() if out.shape.is_fully_defined() else None
    return 0 if n is None else n * out.dtype.size


class GreedyLoadBalancingStrategy:
    """Puts each variable on the parameter server with the least load so far
    (``load_fn(op)``, by default its bytes); ties go to the lowest task."""

    def __init__(self, num_tasks, load_fn=None):
        self._num_tasks, self._load_fn = int(num_tasks), load_fn or byte_size_load_fn
        self._loads = [0] * self._num_tasks

    def __call__(self, op):
        task = min(range(self._num_tasks), key=lambda i: (self._loads[i], i))
        self._loads[task] += self._load_fn(op)
        return task


def replica_device_setter(ps_tasks=0, ps_device="/job:ps", worker_device="/job:worker",
                          merge_devices=True, cluster=None, ps_ops=None, ps_strategy=None):
    """A device function for ``tf.device``: variables (``ps_ops``) go to
    ``ps_device/task:<ps_strategy(op)>`` (round robin by default), everything else to
    ``worker_device``, each merged with the device the op already has. ``None`` when there
    are no parameter-server tasks (TF's rule: then ``tf.device(None)`` places nothing)."""
    if cluster is not None:
        jobs = cluster.as_dict() if hasattr(cluster, "as_dict") else dict(cluster)
        ps_job = DeviceSpec.from_string(ps_device or "").job
        ps_tasks = len(jobs.get(ps_job, ())) if ps_job else 0
    if not ps_tasks:
        return None
    if not merge_devices:
        raise ValueError("replica_device_setter(merge_devices=False) is deprecated in TF and "
                         "not implemented; leave merge_devices=True")
    ps_ops = tuple(STANDARD_PS_OPS if ps_ops is None else ps_ops)
    strategy = ps_strategy or _RoundRobinStrategy(int(ps_tasks))
    if not callable(strategy):
        raise TypeError(f"replica_device_setter: ps_strategy must be callable, got "
                        f"{strategy!r}")

    def device_function(op):
        current = DeviceSpec.from_string(getattr(op, "device", "") or "")
        if ps_device and op.type in ps_ops:
            spec = DeviceSpec.from_string(ps_device)
            if spec.job and (not current.job or current.job == spec.job):
                spec = spec.replace(task=strategy(op))
            return spec.make_merged_spec(current).to_string()
        return DeviceSpec.from_string(worker_device or "").make_merged_spec(
            current).to_string()

    return device_function
