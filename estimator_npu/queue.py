"""``tf.queue``: TF1's queue classes (defined in ``estimator_npu.queues``)."""
from estimator_npu.queues.queue_ops import (FIFOQueue, PaddingFIFOQueue,  # noqa: F401
                                            QueueBase, RandomShuffleQueue)

__all__ = ["FIFOQueue", "PaddingFIFOQueue", "QueueBase", "RandomShuffleQueue"]
