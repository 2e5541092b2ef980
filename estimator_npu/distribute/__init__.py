"""Data-parallel training across processes: collectives, collective graph ops, segments.

Package-level names::

    rank(), size(), local_rank(), local_size(), is_distributed()
    allreduce(tensor, reduction="sum"), broadcast(tensor, root_rank=0), allgather(tensor)
                                      # graph ops (``ops``): they run when the graph runs
    broadcast_variables(session, variables, root_rank=0)     # op-free, values in place

Modules:

* ``collective``: the same collectives on numpy arrays, in place (``allreduce(array,
  op)``, non-blocking ``iallreduce``, ``broadcast``, ``allgather``, ``barrier``), with an
  mpi4py backend under an MPI launcher and a single-process backend otherwise.
* ``ops``: the graph ops (``HcomAllReduce``, ``HcomBroadcast``, ``HcomAllGather``).
* ``hccl``: gradient segments (``set_split_strategy_by_size`` / ``_by_idx``).
* ``sync``: ``broadcast_variables``.
* ``launcher``: the ``estimator-npu-run -n N script.py`` console script.
* ``strategy``: ``tf.distribute``'s one-replica strategies (``MirroredStrategy`` on a
  host without GPUs, ``OneDeviceStrategy``), ``ReduceOp``, ``InputContext``, the scope
  and replica-context queries.

The optimizer wrapper (``train.distributed_optimizer.NPUDistributedOptimizer``) and the
broadcast hook (``hooks.broadcast_hook.NPUBroadcastGlobalVariablesHook``) live in the
layers above and use these.
"""
from estimator_npu.distribute import collective, hccl  # noqa: F401
from estimator_npu.distribute.collective import (get_backend, is_distributed,  # noqa: F401
                                                 local_rank, local_size, rank, size,
                                                 use_backend)
from estimator_npu.distribute.ops import allgather, allreduce, broadcast  # noqa: F401
from estimator_npu.distribute.sync import broadcast_variables  # noqa: F401
from estimator_npu.distribute.strategy import (InputContext, MirroredStrategy,  # noqa: F401
                                               OneDeviceStrategy, ReduceOp, ReplicaContext,
                                               Strategy, get_replica_context, get_strategy,
                                               has_strategy, in_cross_replica_context)

__all__ = ["rank", "size", "local_rank", "local_size", "is_distributed", "allreduce",
           "broadcast", "allgather", "broadcast_variables", "get_backend", "use_backend",
           "collective", "hccl", "Strategy", "MirroredStrategy", "OneDeviceStrategy",
           "ReduceOp", "InputContext", "ReplicaContext", "get_strategy", "has_strategy",
           "get_replica_context", "in_cross_replica_context"]


def _register_op_families():
    """Adds this layer's op families (each module's ``OPS``) to the engine's op table: the
    one place the distribute layer registers ops."""
    from estimator_npu.engine import registry
    from estimator_npu.distribute import ops
    registry.register_families([ops.OPS])


_register_op_families()
