"""``tf.tpu``: ``CrossShardOptimizer`` (one shard on the host; ``estimator.tpu_estimator``)."""
from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.estimator.tpu_estimator import CrossShardOptimizer  # noqa: F401

__all__ = ["CrossShardOptimizer"]
__getattr__ = _module_getattr(__name__)
