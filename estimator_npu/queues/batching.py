"""``tf.train.batch`` / ``shuffle_batch`` and their ``_join`` and ``maybe_`` forms.

Each builds a queue (``FIFOQueue``, ``PaddingFIFOQueue`` with ``dynamic_pad``, or
``RandomShuffleQueue``), enqueue ops run by a ``QueueRunner`` (``num_threads`` copies of
one op, or one op per tensor list for the ``_join`` forms) and one dequeue op named after
the scope (``batch:0``, ``shuffle_batch:1`` ...), as TF1 does::

    images, labels = tf.train.shuffle_batch([image, label], batch_size=128,
                                            capacity=2000, min_after_dequeue=1000)
    # images: shape (128, 24, 24, 3); the dequeue waits for 128 elements

``allow_smaller_final_batch=True`` dequeues with ``dequeue_up_to``: the batch dimension
is unknown (``?``) and, once the input ends, the last batch holds what is left; without
it, leftovers fewer than ``batch_size`` are dropped and the dequeue raises
``OutOfRangeError``. ``tensors`` may be a list (one dequeued tensor for a one-element
list, as TF) or a dict (a dict comes back).
"""
from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import get_default_graph
from estimator_npu.engine.ops.array_ops import boolean_mask, expand_dims
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.engine.ops.math_ops import cast, maximum
from estimator_npu.engine.shape import TensorShape, as_shape
from estimator_npu.queues.queue_ops import FIFOQueue, PaddingFIFOQueue, RandomShuffleQueue
from estimator_npu.queues.queue_runner import QueueRunner, add_queue_runner
from estimator_npu.train.summary_ops import scalar as scalar_summary


def _as_tensor_list(tensors):
    if isinstance(tensors, dict):
        return [tensors[k] for k in sorted(tensors)]
    if isinstance(tensors, (list, tuple)):
        return list(tensors)
    return [tensors]


def _as_original_type(original, dequeued):
    if isinstance(original, dict):
        if not isinstance(dequeued, list):
            dequeued = [dequeued]
        return {k: dequeued[i] for i, k in enumerate(sorted(original))}
    return dequeued


def _validate(tensor_list, what):
    if not tensor_list:
        raise ValueError(f"Expected at least one tensor in {what}().")
    out = []
    for t in tensor_list:
        if type(t).__name__ == "SparseTensor":
            raise NotImplementedError(f"estimator_npu does not implement SparseTensor inputs "
                                      f"of tf.train.{what} (yet)")
        out.append(convert_to_tensor(t))
    return out


def _validate_join(tensor_list_list, what):
    lists = [_validate(_as_tensor_list(tl), what) for tl in tensor_list_list]
    if not lists:
        raise ValueError(f"Expected at least one input in {what}().")
    return lists


def _dtypes(lists):
    types = [t.dtype for t in lists[0]]
    for tl in lists[1:]:
        other = [t.dtype for t in tl]
        if other != types:
            raise TypeError(f"Expected types to be consistent: {[d.name for d in other]} vs. "
                            f"{[d.name for d in types]}.")
    return types


def _shapes(lists, shapes, enqueue_many):
    if shapes is not None:
        return [as_shape(s) for s in shapes]
    out = []
    for i in range(len(lists[0])):
        merged = TensorShape(None)
        for tl in lists:
            s = tl[i].shape
            if s.ndims is None:
                raise ValueError(f"Cannot infer Tensor's rank: {tl[i]}")
            if enqueue_many:
                if s.ndims == 0:
                    raise ValueError(f"enqueue_many needs tensors of rank >= 1, got {tl[i]}")
                s = TensorShape(s.dims[1:])
            merged = merged.merge_with(s)
        out.append(merged)
    return out


def _keep_input(keep_input, enqueue_many):
    keep = convert_to_tensor(keep_input, dtype=dtypes.bool)
    rank = keep.shape.ndims
    if rank not in (0, 1):
        raise ValueError(f"`keep_input` must be 0 or 1 dimensions, got {keep.shape}")
    if rank == 1 and not enqueue_many:
        raise ValueError("`keep_input` cannot be a vector when `enqueue_many=False`.")
    return keep


def _selected(tensor_list, keep, enqueue_many):
    """The tensors to enqueue and whether to enqueue them as many: a vector ``keep``
    selects rows; a computed scalar one keeps the element or not (0 or 1 rows)."""
    if keep.op.type == "Const" and keep.shape.ndims == 0 and bool(keep.op.attrs.get(
            "value", True)):
        return tensor_list, enqueue_many
    if keep.shape.ndims == 0:
        tensor_list = [expand_dims(t, 0) for t in tensor_list]
        keep = expand_dims(keep, 0)
        if enqueue_many:
            raise NotImplementedError("estimator_npu does not implement a computed scalar "
                                      "keep_input with enqueue_many=True (yet)")
    return [boolean_mask(t, keep) for t in tensor_list], True


def _enqueue_ops(queue, lists, threads, enqueue_many, keep):
    ops = []
    for tl in lists:
        tl, many = _selected(tl, keep, enqueue_many)
        op = (queue.enqueue_many if many else queue.enqueue)(tl)
        ops.extend([op] * threads)
    add_queue_runner(QueueRunner(queue, ops))


def _dequeue(queue, batch_size, allow_smaller_final_batch, scope):
    if allow_smaller_final_batch:
        return queue.dequeue_up_to(batch_size, name=scope)
    return queue.dequeue_many(batch_size, name=scope)


def _batch(tensors, lists, batch_size, keep_input, num_threads, capacity, enqueue_many,
           shapes, dynamic_pad, allow_smaller_final_batch, shared_name, name, what):
    g = get_default_graph()
    with g.name_scope(name or what) as scope:
        lists = _validate_join(lists, what)
        keep = _keep_input(keep_input, enqueue_many)
        types = _dtypes(lists)
        shapes = _shapes(lists, shapes, enqueue_many)
        queue_class = PaddingFIFOQueue if dynamic_pad else FIFOQueue
        queue = queue_class(capacity=capacity, dtypes=types, shapes=shapes,
                            shared_name=shared_name)
        _enqueue_ops(queue, lists, num_threads, enqueue_many, keep)
        scalar_summary(f"fraction_of_{capacity}_full",
                       cast(queue.size(), dtypes.float32) * (1. / capacity))
        return _as_original_type(tensors, _dequeue(queue, batch_size,
                                                   allow_smaller_final_batch, scope))


def _shuffle_batch(tensors, lists, batch_size, capacity, min_after_dequeue, keep_input,
                   num_threads, seed, enqueue_many, shapes, allow_smaller_final_batch,
                   shared_name, name, what):
    g = get_default_graph()
    with g.name_scope(name or what) as scope:
        lists = _validate_join(lists, what)
        keep = _keep_input(keep_input, enqueue_many)
        types = _dtypes(lists)
        shapes = _shapes(lists, shapes, enqueue_many)
        queue = RandomShuffleQueue(capacity=capacity, min_after_dequeue=min_after_dequeue,
                                   seed=seed, dtypes=types, shapes=shapes,
                                   shared_name=shared_name)
        _enqueue_ops(queue, lists, num_threads, enqueue_many, keep)
        full = cast(maximum(0, queue.size() - min_after_dequeue), dtypes.float32) * (
            1. / (capacity - min_after_dequeue))
        scalar_summary(f"fraction_over_{min_after_dequeue}_of_"
                       f"{capacity - min_after_dequeue}_full", full)
        return _as_original_type(tensors, _dequeue(queue, batch_size,
                                                   allow_smaller_final_batch, scope))


def batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None,
          dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches of ``batch_size`` elements of ``tensors``, in order (one thread)."""
    return _batch(tensors, [tensors], batch_size, True, num_threads, capacity, enqueue_many,
                  shapes, dynamic_pad, allow_smaller_final_batch, shared_name, name, "batch")


def maybe_batch(tensors, keep_input, batch_size, num_threads=1, capacity=32,
                enqueue_many=False, shapes=None, dynamic_pad=False,
                allow_smaller_final_batch=False, shared_name=None, name=None):
    """``batch`` of the elements for which ``keep_input`` is true."""
    return _batch(tensors, [tensors], batch_size, keep_input, num_threads, capacity,
                  enqueue_many, shapes, dynamic_pad, allow_smaller_final_batch, shared_name,
                  name, "batch")


def batch_join(tensors_list, batch_size, capacity=32, enqueue_many=False, shapes=None,
               dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None,
               name=None):
    """Batches from several tensor lists, one enqueue thread each."""
    return _batch(tensors_list[0], tensors_list, batch_size, True, 1, capacity, enqueue_many,
                  shapes, dynamic_pad, allow_smaller_final_batch, shared_name, name,
                  "batch_join")


def maybe_batch_join(tensors_list, keep_input, batch_size, capacity=32, enqueue_many=False,
                     shapes=None, dynamic_pad=False, allow_smaller_final_batch=False,
                     shared_name=None, name=None):
    return _batch(tensors_list[0], tensors_list, batch_size, keep_input, 1, capacity,
                  enqueue_many, shapes, dynamic_pad, allow_smaller_final_batch, shared_name,
                  name, "batch_join")


def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1, seed=None,
                  enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                  shared_name=None, name=None):
    """Batches of random elements of a ``RandomShuffleQueue`` holding at least
    ``min_after_dequeue`` elements after each dequeue (until the input ends)."""
    return _shuffle_batch(tensors, [tensors], batch_size, capacity, min_after_dequeue, True,
                          num_threads, seed, enqueue_many, shapes, allow_smaller_final_batch,
                          shared_name, name, "shuffle_batch")


def maybe_shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input,
                        num_threads=1, seed=None, enqueue_many=False, shapes=None,
                        allow_smaller_final_batch=False, shared_name=None, name=None):
    return _shuffle_batch(tensors, [tensors], batch_size, capacity, min_after_dequeue,
                          keep_input, num_threads, seed, enqueue_many, shapes,
                          allow_smaller_final_batch, shared_name, name, "shuffle_batch")


def shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, seed=None,
                       enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                       shared_name=None, name=None):
    return _shuffle_batch(tensors_list[0], tensors_list, batch_size, capacity,
                          min_after_dequeue, True, 1, seed, enqueue_many, shapes,
                          allow_smaller_final_batch, shared_name, name, "shuffle_batch_join")


def maybe_shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue,
                             keep_input, seed=None, enqueue_many=False, shapes=None,
                             allow_smaller_final_batch=False, shared_name=None, name=None):
    return _shuffle_batch(tensors_list[0], tensors_list, batch_size, capacity,
                          min_after_dequeue, keep_input, 1, seed, enqueue_many, shapes,
                          allow_smaller_final_batch, shared_name, name, "shuffle_batch_join")


__all__ = ["batch", "maybe_batch", "batch_join", "maybe_batch_join", "shuffle_batch",
           "maybe_shuffle_batch", "shuffle_batch_join", "maybe_shuffle_batch_join"]
