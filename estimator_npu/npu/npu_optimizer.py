"""``npu_bridge.estimator.npu.npu_optimizer``: ``NPUOptimizer``, ``NPUDistributedOptimizer``."""
from estimator_npu.train.distributed_optimizer import NPUDistributedOptimizer  # noqa: F401
from estimator_npu.train.npu_optimizer import NPUOptimizer  # noqa: F401
from estimator_npu.distribute.ops import allreduce as _allreduce  # noqa: E402


def allreduce(tensor, var, average=True):
    """The adapter's gradient all-reduce: the mean (``average``) or sum of ``tensor``
    over every rank (the tensor itself with one process); ``var`` is the variable it is
    the gradient of, kept for the adapter's signature."""
    summed = _allreduce(tensor, reduction="sum")
    if not average:
        return summed
    from estimator_npu.distribute.collective import size
    return summed / float(size()) if size() > 1 else summed
