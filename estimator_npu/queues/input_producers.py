"""``tf.train.*_input_producer``: queues of filenames, indices or slices filled by a
``QueueRunner``, and ``limit_epochs`` / ``count_up_to`` that end them after N epochs.

    files = tf.train.string_input_producer(["a.bin", "b.bin"], num_epochs=2)
    # a FIFOQueue of filenames: a, b, a, b (each epoch shuffled unless shuffle=False);
    # then the queue closes and a reader's read raises OutOfRangeError

As in TF, the epoch count is a local variable (``<scope>/limit_epochs/epochs``): run
``tf.local_variables_initializer()`` before starting the queue runners. Each producer
adds a ``fraction_of_<capacity>_full`` scalar summary.
"""
import glob
import threading

import numpy as np

from estimator_npu import errors
from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import GraphKeys, get_default_graph
from estimator_npu.engine.ops.array_ops import gather
from estimator_npu.engine.ops.array_ops import range as range_
from estimator_npu.engine.ops.array_ops import shape as shape_of
from estimator_npu.engine.ops.core import constant, convert_to_tensor, identity, make_op
from estimator_npu.engine.ops.math_ops import cast
from estimator_npu.engine.ops.random_ops import random_shuffle
from estimator_npu.engine.ops.state_ops import Variable, variable_op
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.shape import TensorShape, as_shape
from estimator_npu.queues.queue_ops import FIFOQueue
from estimator_npu.queues.queue_runner import QueueRunner, add_queue_runner
from estimator_npu.train.summary_ops import scalar as scalar_summary

OPS = OpFamily(__name__)  # this family's op definitions (data)


def _count_up_to_kernel(op, ctx):
    store = ctx.store(op.attrs["var"])
    limit = op.attrs["limit"]
    name = op.attrs["var"].name
    lock = ctx.resource(("queues.count_up_to", op), threading.Lock)

    def count_up_to():
        with lock:
            a = store.value
            if a is None:
                raise errors.FailedPreconditionError(
                    None, op, f"Attempting to use uninitialized value {name}")
            old = a.copy()
            if old >= limit:
                raise errors.OutOfRangeError(None, op, f"Reached limit of {limit}")
            a += 1
            return old
    return count_up_to


OPS.define("CountUpTo", kernel=_count_up_to_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)


def count_up_to(ref, limit, name=None):
    """Increments the integer variable ``ref`` and returns its old value; once it reached
    ``limit`` the op raises ``OutOfRangeError`` instead (``tf.count_up_to``)."""
    vop = variable_op(ref)
    vt = vop.outputs[0]
    if vt.dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"count_up_to needs an int32 or int64 variable, got {vt.dtype.name} "
                        f"({vop.name})")
    return make_op("CountUpTo", [], [(vt.dtype, vt.shape)], {"var": vop, "limit": int(limit)},
                   name=name or "CountUpTo").outputs[0]


def _matching_files_kernel(op, ctx):
    def matching_files(pattern):
        patterns = [p.decode() if isinstance(p, bytes) else str(p)
                    for p in np.asarray(pattern, dtype=object).reshape(-1)]
        found = sorted({f for p in patterns for f in glob.glob(p)})
        return np.array([f.encode() for f in found], dtype=object)
    return matching_files


OPS.define("MatchingFiles", kernel=_matching_files_kernel, grad=NOT_DIFFERENTIABLE,
           stateful=True)


def matching_files(pattern, name=None):
    """The sorted names of the files matching the glob ``pattern`` (a string or a vector of
    them), as a 1-D string tensor (``tf.matching_files``)."""
    p = convert_to_tensor(pattern, dtype=dtypes.string)
    return make_op("MatchingFiles", [p], [(dtypes.string, TensorShape([None]))],
                   name=name or "MatchingFiles").outputs[0]


def match_filenames_once(pattern, name=None):
    """A local variable holding the files matching ``pattern`` when the local variables are
    initialized (run ``tf.local_variables_initializer()``)."""
    g = get_default_graph()
    with g.name_scope(name or "matching_filenames") as scope:
        return Variable(matching_files(pattern), name=scope, trainable=False,
                        validate_shape=False, collections=[GraphKeys.LOCAL_VARIABLES])


def limit_epochs(tensor, num_epochs=None, name=None):
    """``tensor``, which raises ``OutOfRangeError`` once it was computed ``num_epochs``
    times (``None``: no limit)."""
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    g = get_default_graph()
    with g.name_scope(name or "limit_epochs") as scope:
        zero64 = constant(0, dtype=dtypes.int64)
        epochs = Variable(zero64, name="epochs", trainable=False,
                          collections=[GraphKeys.LOCAL_VARIABLES])
        counter = count_up_to(epochs, num_epochs)
        with g.control_dependencies([counter]):
            return identity(tensor, name=scope)


def input_producer(input_tensor, element_shape=None, num_epochs=None, shuffle=True,
                   seed=None, capacity=32, shared_name=None, summary_name=None, name=None,
                   cancel_op=None):
    """A FIFOQueue fed with the rows of ``input_tensor`` (shuffled each epoch unless
    ``shuffle=False``), ``num_epochs`` times or forever, by a ``QueueRunner``."""
    g = get_default_graph()
    with g.name_scope(name or "input_producer") as scope:
        input_tensor = convert_to_tensor(input_tensor, name="input_tensor")
        rows = input_tensor.shape
        inner = TensorShape(None) if rows.ndims is None else TensorShape(rows.dims[1:])
        if element_shape is not None:
            if not inner.is_compatible_with(as_shape(element_shape)):
                raise ValueError(f"input_producer: element_shape {as_shape(element_shape)} "
                                 f"is incompatible with the rows of {input_tensor.name}, "
                                 f"{inner}")
            inner = inner.merge_with(as_shape(element_shape))
        if not inner.is_fully_defined():
            raise ValueError("Either `input_tensor` must have a fully defined shape or "
                             "`element_shape` must be specified")
        if shuffle:
            input_tensor = random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        q = FIFOQueue(capacity=capacity, dtypes=[input_tensor.dtype], shapes=[inner],
                      shared_name=shared_name, name=scope)
        enq = q.enqueue_many([input_tensor])
        add_queue_runner(QueueRunner(q, [enq], cancel_op=cancel_op))
        if summary_name is not None:
            scalar_summary(summary_name, cast(q.size(), dtypes.float32) * (1. / capacity))
        return q


def string_input_producer(string_tensor, num_epochs=None, shuffle=True, seed=None,
                          capacity=32, shared_name=None, name=None, cancel_op=None):
    """A queue of the strings (filenames) of ``string_tensor`` (see ``input_producer``)."""
    if not hasattr(string_tensor, "dtype") and not len(string_tensor):
        raise ValueError("string_input_producer requires a non-null input tensor")
    g = get_default_graph()
    with g.name_scope(name or "input_producer") as scope:
        string_tensor = convert_to_tensor(string_tensor, dtype=dtypes.string)
        if string_tensor.shape.num_elements() == 0:
            raise ValueError("string_input_producer requires a non-null input tensor")
        return input_producer(string_tensor, element_shape=[], num_epochs=num_epochs,
                              shuffle=shuffle, seed=seed, capacity=capacity,
                              shared_name=shared_name, name=scope,
                              summary_name=f"fraction_of_{capacity}_full", cancel_op=cancel_op)


def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None):
    """A queue of the int32 indices ``0 .. limit - 1`` (see ``input_producer``)."""
    g = get_default_graph()
    with g.name_scope(name or "input_producer") as scope:
        indices = range_(limit)
        return input_producer(indices, [], num_epochs, shuffle, seed, capacity, shared_name,
                              f"fraction_of_{capacity}_full", scope)


def slice_input_producer(tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None):
    """One row of each tensor of ``tensor_list`` at a time (the same row of each), through
    a ``range_input_producer`` of row indices."""
    g = get_default_graph()
    with g.name_scope(name or "input_producer"):
        tensors = [convert_to_tensor(t) for t in tensor_list]
        if not tensors:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        first = tensors[0].shape
        size = first.dims[0] if first.ndims and first.dims[0].value is not None else None
        range_size = int(size) if size is not None else shape_of(tensors[0])[0]
        queue = range_input_producer(range_size, num_epochs=num_epochs, shuffle=shuffle,
                                     seed=seed, capacity=capacity, shared_name=shared_name)
        index = queue.dequeue()
        return [gather(t, index) for t in tensors]


__all__ = ["count_up_to", "matching_files", "match_filenames_once", "limit_epochs", "input_producer", "string_input_producer",
           "range_input_producer", "slice_input_producer"]
