"""``tf.contrib.slim.prefetch_queue.prefetch_queue``: a FIFO queue that queue-runner
threads keep filled with values of ``tensors`` (TF's multi-tower CIFAR-10 trainer puts
its batches there and dequeues one per tower).

``prefetch_queue(tensors, capacity=8, num_threads=1, dynamic_pad=False, shared_name=None,
name=None)``: ``tensors`` is a list or a dict of tensors; the queue (a ``PaddingFIFOQueue``
when ``dynamic_pad``) has their dtypes and static shapes (and the dict's keys as its
names), ``num_threads`` copies of its enqueue op go to a ``QueueRunner`` in the
``QUEUE_RUNNERS`` collection, and a ``fraction_of_<capacity>_full`` scalar summary
records its fill level, as in TF.
"""
from estimator_npu.engine import dtypes as _dtypes
from estimator_npu.engine.graph import name_scope
from estimator_npu.engine.ops import math_ops
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.queues.queue_ops import FIFOQueue, PaddingFIFOQueue
from estimator_npu.queues.queue_runner import QueueRunner, add_queue_runner
from estimator_npu.train.summary_ops import scalar

__all__ = ["prefetch_queue"]


def prefetch_queue(tensors, capacity=8, num_threads=1, dynamic_pad=False, shared_name=None,
                   name=None):
    """The queue (dequeue from it); see the module docstring."""
    if isinstance(tensors, dict):
        names = list(tensors)
        tensor_list = [convert_to_tensor(tensors[k]) for k in names]
        vals = dict(zip(names, tensor_list))
    elif isinstance(tensors, (list, tuple)) and tensors:
        names = None
        tensor_list = vals = [convert_to_tensor(t) for t in tensors]
    else:
        raise TypeError(f"prefetch_queue: tensors must be a non-empty list or dict of "
                        f"tensors, got {tensors!r}")
    if int(num_threads) < 1 or int(capacity) < 1:
        raise ValueError(f"prefetch_queue: capacity and num_threads must be >= 1, got "
                         f"{capacity!r} and {num_threads!r}")
    with name_scope(name or "prefetch_queue"):
        kind = PaddingFIFOQueue if dynamic_pad else FIFOQueue
        queue = kind(capacity=int(capacity), dtypes=[t.dtype for t in tensor_list],
                     shapes=[t.shape for t in tensor_list], names=names,
                     shared_name=shared_name)
        enqueue_op = queue.enqueue(vals)
        add_queue_runner(QueueRunner(queue, [enqueue_op] * int(num_threads)))
        scalar("fraction_of_%d_full" % int(capacity),
               math_ops.cast(queue.size(), _dtypes.float32) * (1.0 / int(capacity)))
    return queue
