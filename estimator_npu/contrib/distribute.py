"""``tf.contrib.distribute``: TF 1.x's names for the one-replica strategies of
``tf.distribute`` (``MirroredStrategy(num_gpus=...)``, ``OneDeviceStrategy``)."""
from estimator_npu.distribute.strategy import (MirroredStrategy, OneDeviceStrategy,  # noqa: F401
                                               ReduceOp, get_replica_context)
