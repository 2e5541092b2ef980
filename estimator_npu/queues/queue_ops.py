"""TF1 queues as stateful graph ops: ``tf.FIFOQueue``, ``tf.RandomShuffleQueue``,
``tf.PaddingFIFOQueue`` (also under ``tf.queue``).

The queue op (``FIFOQueueV2`` ...) outputs the queue's handle; ``QueueEnqueueV2``,
``QueueDequeueManyV2``, ``QueueCloseV2``, ``QueueSizeV2`` ... take it as their first input
and act on the session's ``QueueState`` (``queue_state``), so each session has its own
queue contents. Op names and static shapes follow TF1::

    q = tf.FIFOQueue(capacity=3, dtypes=[tf.int32], shapes=[[]])
    enq = q.enqueue_many([[1, 2, 3]])      # op 'fifo_queue_EnqueueMany'
    x = q.dequeue_many(2)                  # Tensor 'fifo_queue_DequeueMany:0', shape (2,)
    sess.run(enq); sess.run(x)             # -> [1, 2]
    sess.run(q.close()); sess.run(x)       # OutOfRangeError: closed, 1 element left

Dequeue ops are ``input_source`` ops: in a training plan they run before any update, so a
closed, exhausted queue ends the step before it changes a variable. They carry the attr
``waits_for_input``: the session does not time (govern the BLAS threads of) plans that wait.
"""
import itertools

import numpy as np

from estimator_npu import errors
from estimator_npu.engine import dtypes as dtypes_lib
from estimator_npu.engine.ops.core import convert_to_tensor, make_op
from estimator_npu.engine.ops.random_ops import get_seed
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.shape import TensorShape, as_shape
from estimator_npu.queues.queue_state import QueueState

OPS = OpFamily(__name__)  # this family's op definitions (data)
HANDLE = dtypes_lib.variant  # the dtype of queue (and reader) handles


def runtime_name(ctx, op):
    """TF's session-wide resource name: ``_<n>_<op name>``."""
    counter = ctx.resource(("queues.names", None), itertools.count)
    return f"_{next(counter)}_{op.name}"


def _queue_kernel(op, ctx):
    a = op.attrs

    def make():
        rng = None
        if op.type == "RandomShuffleQueueV2":
            rng = np.random.default_rng(a["seed2"])
        return QueueState(op, runtime_name(ctx, op), a["capacity"],
                          [dt.np for dt in a["component_types"]], a["shape_dims"],
                          a.get("min_after_dequeue", 0), rng,
                          padded=op.type == "PaddingFIFOQueueV2")
    state = ctx.resource(("queues.Queue", op), make)
    return lambda: state


for _t in ("FIFOQueueV2", "RandomShuffleQueueV2", "PaddingFIFOQueueV2"):
    OPS.define(_t, kernel=_queue_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)


def _enqueue_kernel(op, ctx):
    many = op.type == "QueueEnqueueManyV2"
    return lambda q, *c: q.enqueue(op, c, many)


def _dequeue_kernel(op, ctx):
    single = len(op.outputs) == 1
    if op.type == "QueueDequeueV2":
        def dequeue(q):
            out = q.dequeue(op)
            return out[0] if single else out
        return dequeue
    up_to = op.type == "QueueDequeueUpToV2"

    def dequeue_many(q, n):
        if not q.padded and any(s is None or None in s for s in q.shapes):
            raise errors.InvalidArgumentError(
                None, op, f"{q.kind}'s DequeueMany and DequeueUpTo require the components "
                "to have specified shapes.")
        out = q.dequeue(op, n, up_to)
        return out[0] if single else out
    return dequeue_many


def _close_kernel(op, ctx):
    cancel = op.attrs["cancel_pending_enqueues"]
    return lambda q: q.close_queue(cancel)


OPS.define("QueueEnqueueV2", kernel=_enqueue_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)
OPS.define("QueueEnqueueManyV2", kernel=_enqueue_kernel, grad=NOT_DIFFERENTIABLE,
           stateful=True)
for _t in ("QueueDequeueV2", "QueueDequeueManyV2", "QueueDequeueUpToV2"):
    OPS.define(_t, kernel=_dequeue_kernel, grad=NOT_DIFFERENTIABLE, stateful=True,
               input_source=True)
OPS.define("QueueCloseV2", kernel=_close_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)
OPS.define("QueueSizeV2", kernel=lambda op, ctx: lambda q: np.int32(q.size()),
           grad=NOT_DIFFERENTIABLE, stateful=True)
OPS.define("QueueIsClosedV2", kernel=lambda op, ctx: lambda q: np.bool_(q.closed),
           grad=NOT_DIFFERENTIABLE, stateful=True)


def _as_dtypes(dtypes):
    if not isinstance(dtypes, (list, tuple)):
        dtypes = [dtypes]
    return [dtypes_lib.as_dtype(d) for d in dtypes]


def _as_shapes(shapes, n, what):
    if shapes is None:
        return [TensorShape(None)] * n
    if isinstance(shapes, TensorShape) or (isinstance(shapes, (list, tuple)) and shapes and
                                           not isinstance(shapes[0], (list, tuple,
                                                                      TensorShape))):
        shapes = [shapes] if n == 1 else shapes
    shapes = [as_shape(s) for s in shapes]
    if len(shapes) != n:
        raise ValueError(f"{what}: shapes must have the same length as dtypes ({n}), got "
                         f"{len(shapes)}")
    return shapes


class QueueBase:
    """A queue of the graph: the ops that enqueue, dequeue, close and measure it."""

    _op_type = None
    _default_name = None

    def __init__(self, dtypes, shapes, names, queue_ref):
        self._dtypes = dtypes
        self._shapes = shapes
        self._names = names
        self._queue_ref = queue_ref
        self._name = queue_ref.op.name.split("/")[-1]

    @classmethod
    def _build(cls, capacity, dtypes, shapes, names, shared_name, name, **attrs):
        dtypes = _as_dtypes(dtypes)
        if names is not None:
            names = list(names) if isinstance(names, (list, tuple)) else [names]
            if len(names) != len(dtypes):
                raise ValueError(f"Queue names must have the same length as dtypes "
                                 f"({len(dtypes)}), got {names}")
        shapes = _as_shapes(shapes, len(dtypes), cls.__name__)
        if cls._op_type == "PaddingFIFOQueueV2" and any(s.ndims is None for s in shapes):
            raise ValueError(f"PaddingFIFOQueue: every shape must have a known rank (None "
                             f"for a dimension to pad), got {shapes}")
        if cls._op_type != "PaddingFIFOQueueV2" and any(
                s.ndims is not None and not s.is_fully_defined() for s in shapes):
            raise ValueError(f"All shapes must be fully defined: {shapes}")
        dims = [None if s.ndims is None else tuple(s.as_list()) for s in shapes]
        attrs.update(capacity=int(capacity), component_types=dtypes, shapes=shapes,
                     shape_dims=dims, shared_name=shared_name or "", container="")
        op = make_op(cls._op_type, [], [(HANDLE, TensorShape([]))], attrs,
                     name=name or cls._default_name)
        q = cls.__new__(cls)
        QueueBase.__init__(q, dtypes, shapes, names, op.outputs[0])
        return q

    # ------------------------------------------------------------------ properties
    @property
    def queue_ref(self):
        return self._queue_ref

    @property
    def name(self):
        return self._queue_ref.op.name

    @property
    def dtypes(self):
        return list(self._dtypes)

    @property
    def shapes(self):
        return list(self._shapes)

    @property
    def names(self):
        return None if self._names is None else list(self._names)

    # ------------------------------------------------------------------ ops
    def _components(self, vals, many):
        if self._names is not None:
            if not isinstance(vals, dict):
                raise ValueError(f"Queue {self.name} has names {self._names}: enqueue a dict "
                                 f"with those keys, got {type(vals).__name__}")
            if sorted(vals) != sorted(self._names):
                raise ValueError(f"Keys in dictionary to enqueue {sorted(vals)} do not match "
                                 f"the names of queue {self.name}: {sorted(self._names)}")
            vals = [vals[k] for k in self._names]
        elif isinstance(vals, dict):
            raise ValueError(f"Queue {self.name} has no names: enqueue a list or tuple, not "
                             "a dict")
        elif not isinstance(vals, (list, tuple)):
            vals = [vals]
        if len(vals) != len(self._dtypes):
            raise ValueError(f"Queue {self.name} holds {len(self._dtypes)} components, got "
                             f"{len(vals)} values to enqueue")
        out = []
        for i, (v, dt, shape) in enumerate(zip(vals, self._dtypes, self._shapes)):
            t = convert_to_tensor(v, dtype=dt, name=f"component_{i}")
            got = t.shape
            if many:
                if got.ndims == 0:
                    raise ValueError(f"Shapes must be at least rank 1 to enqueue_many, got "
                                     f"{got} for component {i} of queue {self.name}")
                got = TensorShape(got.dims[1:]) if got.ndims is not None else got
            if not got.is_compatible_with(shape):
                raise ValueError(f"Shapes {got} and {shape} are incompatible (component {i} "
                                 f"of queue {self.name})")
            out.append(t)
        return out

    def enqueue(self, vals, name=None):
        """The op that enqueues one element (``vals``: a list, tuple, dict or tensor)."""
        comps = self._components(vals, many=False)
        return make_op("QueueEnqueueV2", [self._queue_ref] + comps, [],
                       {"Tcomponents": self._dtypes},
                       name=name or f"{self._name}_enqueue")

    def enqueue_many(self, vals, name=None):
        """The op that enqueues the slices of ``vals`` along their first dimension."""
        comps = self._components(vals, many=True)
        return make_op("QueueEnqueueManyV2", [self._queue_ref] + comps, [],
                       {"Tcomponents": self._dtypes},
                       name=name or f"{self._name}_EnqueueMany")

    def _dequeue_return(self, outs):
        if self._names is not None:
            return dict(zip(self._names, outs))
        return outs[0] if len(outs) == 1 else list(outs)

    def _batch_shapes(self, n):
        return [TensorShape(None) if s.ndims is None else TensorShape([n] + s.as_list())
                for s in self._shapes]

    def dequeue(self, name=None):
        """One element (a tensor, a list of tensors, or a dict when the queue has names)."""
        op = make_op("QueueDequeueV2", [self._queue_ref],
                     list(zip(self._dtypes, self._shapes)),
                     {"component_types": self._dtypes, "waits_for_input": True},
                     name=name or f"{self._name}_Dequeue")
        return self._dequeue_return(op.outputs)

    def _dequeue_n(self, op_type, n, name, default, static_n):
        n_t = convert_to_tensor(n, dtype=dtypes_lib.int32, name="n")
        op = make_op(op_type, [self._queue_ref, n_t],
                     list(zip(self._dtypes, self._batch_shapes(static_n))),
                     {"component_types": self._dtypes, "waits_for_input": True},
                     name=name or default)
        return self._dequeue_return(op.outputs)

    def dequeue_many(self, n, name=None):
        """``n`` elements stacked along a new first dimension (waits for all ``n``)."""
        static = n if isinstance(n, (int, np.integer)) else None
        return self._dequeue_n("QueueDequeueManyV2", n, name, f"{self._name}_DequeueMany",
                               static)

    def dequeue_up_to(self, n, name=None):
        """Like ``dequeue_many``, but a closed queue gives what it has left (at least 1)."""
        return self._dequeue_n("QueueDequeueUpToV2", n, name, f"{self._name}_DequeueUpTo",
                               None)

    def close(self, cancel_pending_enqueues=False, name=None):
        """The op that closes the queue (pending enqueues are cancelled if asked)."""
        return make_op("QueueCloseV2", [self._queue_ref], [],
                       {"cancel_pending_enqueues": bool(cancel_pending_enqueues)},
                       name=name or f"{self._name}_Close")

    def size(self, name=None):
        return make_op("QueueSizeV2", [self._queue_ref], [(dtypes_lib.int32, TensorShape([]))],
                       name=name or f"{self._name}_Size").outputs[0]

    def is_closed(self, name=None):
        return make_op("QueueIsClosedV2", [self._queue_ref],
                       [(dtypes_lib.bool, TensorShape([]))],
                       name=name or f"{self._name}_Is_Closed").outputs[0]

    @staticmethod
    def from_list(index, queues):
        raise NotImplementedError("estimator_npu does not implement QueueBase.from_list (yet)")


class FIFOQueue(QueueBase):
    """A queue that dequeues elements in the order they were enqueued."""

    _op_type = "FIFOQueueV2"
    _default_name = "fifo_queue"

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None,
                 name="fifo_queue"):
        q = self._build(capacity, dtypes, shapes, names, shared_name, name)
        QueueBase.__init__(self, q._dtypes, q._shapes, q._names, q._queue_ref)


class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose ``dequeue_many`` pads each component to the batch's largest shape
    (``None`` dimensions; zeros, or empty strings)."""

    _op_type = "PaddingFIFOQueueV2"
    _default_name = "padding_fifo_queue"

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None,
                 name="padding_fifo_queue"):
        q = self._build(capacity, dtypes, shapes, names, shared_name, name)
        QueueBase.__init__(self, q._dtypes, q._shapes, q._names, q._queue_ref)


class RandomShuffleQueue(QueueBase):
    """A queue that dequeues a random one of its elements, keeping at least
    ``min_after_dequeue`` of them until it is closed."""

    _op_type = "RandomShuffleQueueV2"
    _default_name = "random_shuffle_queue"

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None,
                 seed=None, shared_name=None, name="random_shuffle_queue"):
        s1, s2 = get_seed(seed)
        seed2 = None if s1 is None else [s1 & 0xFFFFFFFF, s2 & 0xFFFFFFFF]
        q = self._build(capacity, dtypes, shapes, names, shared_name, name,
                        min_after_dequeue=int(min_after_dequeue), seed2=seed2)
        QueueBase.__init__(self, q._dtypes, q._shapes, q._names, q._queue_ref)


__all__ = ["QueueBase", "FIFOQueue", "PaddingFIFOQueue", "RandomShuffleQueue"]
