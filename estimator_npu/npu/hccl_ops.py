"""Collective graph ops (``npu_bridge.hccl.hccl_ops``): all-reduce, broadcast, all-gather."""
from estimator_npu.distribute.ops import allgather, allreduce, broadcast  # noqa: F401
