"""Collective graph ops (the adapter's ``hccl_ops``): all-reduce, broadcast, all-gather.

Each op calls the collective interface (``collective``) when its kernel runs, so it must
run on every worker, in the same order: build the same graph on every worker and fetch
the same things (what a data-parallel script does anyway). In a single process the ops
are identities (``allgather`` adds a leading axis of 1)::

    bad = tf.reduce_sum(tf.cast(tf.logical_not(tf.is_finite(g)), tf.float32))
    total_bad = distribute.allreduce(bad, reduction="sum")    # same value on every worker
    finite = tf.equal(total_bad, 0.0)                          # so every worker agrees

=============  ================  =========================================================
op type        function          gradient
=============  ================  =========================================================
HcomAllReduce  ``allreduce``     ``sum``: ``allreduce(dy, "sum")``; ``mean``: ``allreduce(
                                 dy, "mean")`` (the adjoint); ``max``/``min``/``prod``:
                                 none (``LookupError`` when differentiated)
HcomBroadcast  ``broadcast``     not differentiable
HcomAllGather  ``allgather``     not differentiable
=============  ================  =========================================================
"""
import numpy as np

from estimator_npu.distribute import collective
from estimator_npu.engine.ops.core import convert_to_tensor, make_tensor
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.shape import TensorShape

OPS = OpFamily(__name__)  # this family's op definitions (data)

WORLD_GROUP = "hccl_world_group"


def _check_group(group):
    if group != WORLD_GROUP:
        raise ValueError(f"group must be {WORLD_GROUP!r} (the only group), got {group!r}")


def _check_numeric(x, what):
    if x.dtype.np.kind not in "biufcV":
        raise TypeError(f"{what}: tensor {x.name} has dtype {x.dtype.name}; collectives "
                        "accept numeric and bool tensors")


def allreduce(tensor, reduction="sum", fusion=1, fusion_id=-1, group=WORLD_GROUP, name=None):
    """The reduction of ``tensor`` over all workers (same shape and dtype everywhere).

    Args:
        tensor: a numeric tensor.
        reduction: ``"sum"``, ``"mean"``, ``"max"``, ``"min"`` or ``"prod"``.
        fusion, fusion_id: accepted for porting (the adapter's fusion hints); ignored.
        group: only ``"hccl_world_group"``.
        name: op name (default ``"HcomAllReduce"``).

    Raises:
        ValueError: unknown ``reduction`` or ``group``.
        TypeError: a non-numeric tensor, or ``mean`` of an integer tensor.
    """
    _check_group(group)
    x = convert_to_tensor(tensor)
    _check_numeric(x, "allreduce")
    if reduction not in collective.REDUCE_OPS:
        raise ValueError(f"allreduce: reduction must be one of {collective.REDUCE_OPS}, got "
                         f"{reduction!r}")
    if reduction == "mean" and not (x.dtype.is_floating or x.dtype.np.kind == "c"):
        raise TypeError(f"allreduce: reduction='mean' needs a floating tensor, got "
                        f"{x.dtype.name} ({x.name})")
    return make_tensor("HcomAllReduce", [x], x.dtype, x.shape, {"reduction": reduction},
                       name=name or "HcomAllReduce")


def _allreduce_kernel(op, ctx):
    reduction = op.attrs["reduction"]

    def run(x):
        out = np.array(x, order="C", copy=True)  # a fresh array: inputs may be views
        collective.allreduce(out, reduction)
        return out
    return run


def _allreduce_grad(op, dy):
    reduction = op.attrs["reduction"]
    if reduction not in ("sum", "mean"):
        raise LookupError(f"No gradient defined for operation '{op.name}' (op type: "
                          f"HcomAllReduce with reduction={reduction!r}; only 'sum' and "
                          "'mean' are differentiable)")
    return [allreduce(dy, reduction)]


OPS.define("HcomAllReduce", kernel=_allreduce_kernel, grad=_allreduce_grad, stateful=True)


def broadcast(tensor, root_rank=0, fusion=0, fusion_id=-1, group=WORLD_GROUP, name=None):
    """The value of ``tensor`` on worker ``root_rank``, on every worker.

    Args:
        tensor: a tensor, or a list of tensors (the adapter's form): then a list of the
            broadcast tensors is returned.
        root_rank: the worker whose value wins, in ``[0, size())``.
        fusion, fusion_id: accepted for porting; ignored.
        group: only ``"hccl_world_group"``.

    Raises:
        TypeError: ``root_rank`` not an int, a non-numeric tensor.
        ValueError: ``root_rank`` outside ``[0, size())``, unknown ``group``.
    """
    _check_group(group)
    root = collective._check_root(root_rank, "broadcast")
    if isinstance(tensor, (list, tuple)):
        return [broadcast(t, root, group=group, name=name) for t in tensor]
    x = convert_to_tensor(tensor)
    _check_numeric(x, "broadcast")
    return make_tensor("HcomBroadcast", [x], x.dtype, x.shape, {"root_rank": root},
                       name=name or "HcomBroadcast")


def _broadcast_kernel(op, ctx):
    root = op.attrs["root_rank"]

    def run(x):
        out = np.array(x, order="C", copy=True)
        collective.broadcast(out, root)
        return out
    return run


OPS.define("HcomBroadcast", kernel=_broadcast_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)


def allgather(tensor, rank_size=None, group=WORLD_GROUP, name=None):
    """Every worker's ``tensor`` concatenated along axis 0, in rank order.

    Args:
        tensor: a tensor of rank >= 1 with the same shape on every worker.
        rank_size: accepted for porting (the adapter asks for it); when given it must be
            the number of workers.
        group: only ``"hccl_world_group"``.
    """
    _check_group(group)
    n = collective.size()
    if rank_size is not None and rank_size != n:
        raise ValueError(f"allgather: rank_size={rank_size!r} but there are {n} workers")
    x = convert_to_tensor(tensor)
    _check_numeric(x, "allgather")
    if x.shape.ndims == 0:
        raise ValueError(f"allgather: tensor {x.name} must have rank >= 1 (it is "
                         "concatenated along axis 0), got a scalar")
    shape = x.shape
    if shape.values is not None:
        first = None if shape.values[0] is None else shape.values[0] * n
        shape = TensorShape((first,) + shape.values[1:])
    return make_tensor("HcomAllGather", [x], x.dtype, shape, name=name or "HcomAllGather")


def _allgather_kernel(op, ctx):
    def run(x):
        out = collective.allgather(x)
        return out.reshape((-1,) + out.shape[2:])
    return run


OPS.define("HcomAllGather", kernel=_allgather_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)

__all__ = ["allreduce", "broadcast", "allgather"]
