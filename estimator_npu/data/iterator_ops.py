"""Iterators: the graph ops through which a session pulls dataset elements.

An iterator is a per-session resource (``ctx.resource``) holding a Python iterator over
the pipeline. Two op types reach it:

* ``MakeIterator`` (``iterator.initializer``): its inputs are the tensors the dataset
  captured (placeholders, constants...); its kernel evaluates the pipeline with their
  values and (re)starts the Python iterator. Running it again with new feeds restarts
  the pipeline on the new data.
* ``IteratorGetNext`` (``iterator.get_next()``): one multi-output op, one output per
  element component; each run pulls the next element. At the end it raises
  ``errors.OutOfRangeError``; before any initializer ran, ``FailedPreconditionError``.
  A one-shot iterator has no initializer: its ``IteratorGetNext`` takes the captured
  tensors as inputs and starts the pipeline on first use.

Example::

    ds = Dataset.from_tensor_slices((x_ph, y_ph)).shuffle(1000, seed=1).batch(128)
    it = ds.make_initializable_iterator()
    images, labels = it.get_next()
    sess.run(it.initializer, feed_dict={x_ph: x, y_ph: y})
    while True:
        try:
            sess.run(train_op)          # pulls one batch through IteratorGetNext
        except errors.OutOfRangeError:
            break

For the device loop: every ``IteratorGetNext`` op carries
``op.attrs["iterator_kind"]`` (``"initializable"`` or ``"one_shot"``), and running it
inside a repeated plan pulls one element per run.
"""
import threading

from estimator_npu import errors
from estimator_npu.data import iterator_state
from estimator_npu.data.base import Env, all_captures
from estimator_npu.data.structure import Spec
from estimator_npu.engine.graph import get_default_graph
from estimator_npu.engine.ops.core import make_op
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily

OPS = OpFamily(__name__)  # this family's op definitions (data)

ONE_SHOT = "one_shot"
INITIALIZABLE = "initializable"


class IteratorState:
    """The per-session state of one iterator: the running Python iterator, if any, and a
    lock so that concurrent ``Session.run`` calls pull distinct elements."""

    __slots__ = ("name", "it", "started", "lock", "consumed", "env", "node", "pending")

    def __init__(self, name):
        self.name = name
        self.it = None
        self.started = False
        self.lock = threading.Lock()
        # for checkpoints (``iterator_state``): elements delivered since the start, the
        # running pipeline, and a saved state to resume from at the next start
        self.consumed = 0
        self.env = None
        self.node = None
        self.pending = None

    def reset(self, it):
        self.close()
        self.it = it
        self.started = True

    def checkpoint_state(self):
        """What ``Saver`` saves for this iterator (``None`` if it never started)."""
        with self.lock:
            return iterator_state.capture(self)

    def close(self):
        old, self.it = self.it, None
        close = getattr(old, "close", None)
        if close is not None:
            close()


def _state(ctx, op):
    name = op.attrs["shared_name"]
    state = ctx.resource(("data.Iterator", name), lambda: IteratorState(name))
    # a checkpoint restored before this iterator existed left its state here (``Saver``)
    pending = ctx.resource(("pending_state", "data.Iterator"), dict).pop(name, None)
    if pending is not None:
        state.pending = pending
    return state


def _start(op, node, captured, values, state=None):
    env = Env(dict(zip(captured, values)))
    try:
        node.validate(env)
        skip = 0 if state is None else iterator_state.prepare(state, node, env)
        it = iter(node.elements(env))
        if skip:
            iterator_state.advance(state, it, skip)
        return it
    except errors.OpError as e:
        _name_op(e, op)


def _name_op(e, op):
    """Re-raises the pipeline's ``OpError`` ``e`` as raised by ``op``."""
    if e.op is None:
        raise type(e)(None, op, f"{op.name}: {e.message}") from None
    raise e


def _make_iterator_kernel(op, ctx):
    state = _state(ctx, op)
    node, captured = op.attrs["dataset"], op.attrs["captured"]

    def make_iterator(*values):
        with state.lock:
            state.reset(None)
            state.reset(_start(op, node, captured, values, state))
    return make_iterator


def _get_next_kernel(op, ctx):
    state = _state(ctx, op)
    single = len(op.outputs) == 1
    one_shot = op.attrs["iterator_kind"] == ONE_SHOT
    node, captured = op.attrs.get("dataset"), op.attrs.get("captured", ())

    def get_next(*values):
        with state.lock:
            it = state.it
            if it is None:
                if not one_shot or state.started:
                    raise errors.FailedPreconditionError(
                        None, op, f"GetNext() failed because the iterator '{state.name}' "
                        "has not been initialized. Run its initializer operation "
                        "(`sess.run(iterator.initializer)`) before getting the next element.")
                state.reset(_start(op, node, captured, values, state))
                it = state.it
            try:
                elem = next(it)
                state.consumed += 1
            except StopIteration:
                raise errors.OutOfRangeError(None, op, "End of sequence") from None
            except errors.OpError as e:
                _name_op(e, op)
        return elem[0] if single else elem
    return get_next


OPS.define("MakeIterator", kernel=_make_iterator_kernel, grad=NOT_DIFFERENTIABLE,
           stateful=True)
OPS.define("IteratorGetNext", kernel=_get_next_kernel, grad=NOT_DIFFERENTIABLE, stateful=True,
           input_source=True,
           may_alias=True)


class Iterator:
    """A TF1 ``tf.data.Iterator``: ``get_next()`` tensors and an ``initializer`` op.

    Attributes:
        kind: ``"one_shot"`` or ``"initializable"`` (also for ``from_structure``).
    """

    def __init__(self, spec, kind, shared_name, graph, node=None, captured=()):
        self._spec = spec
        self.kind = kind
        self._graph = graph
        self._name = shared_name or graph.unique_name("Iterator")
        self._node = node
        self._captured = list(captured)
        self._initializer = None

    # ----- construction -----
    @classmethod
    def _for_dataset(cls, dataset, kind, shared_name=None):
        node = dataset._node
        captured = all_captures(node)
        graph = captured[0].graph if captured else get_default_graph()
        if kind == ONE_SHOT:
            _check_no_placeholder(captured)
        it = cls(node.spec, kind, shared_name, graph, node, captured)
        if kind == INITIALIZABLE:
            it._initializer = it._make_initializer_op(node, captured)
        return it

    @classmethod
    def from_structure(cls, output_types, output_shapes=None, shared_name=None,
                       output_classes=None):
        """A reinitializable iterator for any dataset with this structure; initialize it
        with ``make_initializer(dataset)``."""
        spec = Spec.from_nests(output_types, output_shapes)
        return cls(spec, INITIALIZABLE, shared_name, get_default_graph())

    def _make_initializer_op(self, node, captured, name=None):
        with self._graph.as_default():
            return make_op("MakeIterator", list(captured), [],
                           {"dataset": node, "captured": tuple(captured),
                            "shared_name": self._name},
                           name=name or "MakeIterator")

    # ----- public API -----
    @property
    def initializer(self):
        """The op that (re)starts this iterator on its dataset."""
        if self._initializer is None:
            raise ValueError(f"Iterator '{self._name}' does not have an initializer"
                             + (" (one-shot iterators initialize themselves)"
                                if self.kind == ONE_SHOT else
                                "; use make_initializer(dataset)"))
        return self._initializer

    def make_initializer(self, dataset, name=None):
        """An op that starts this iterator on ``dataset`` (same structure and types)."""
        node = dataset._node
        if not self._spec.is_compatible_with(node.spec):
            raise TypeError(f"Expected a dataset with types {self.output_types} and shapes "
                            f"{self.output_shapes}, got types {node.spec.output_types()} "
                            f"and shapes {node.spec.output_shapes()}")
        if self.kind == ONE_SHOT:
            raise ValueError("A one-shot iterator cannot be re-initialized")
        return self._make_initializer_op(node, all_captures(node), name)

    def get_next(self, name=None):
        """The next element as a structure of tensors (one ``IteratorGetNext`` op)."""
        attrs = {"iterator_kind": self.kind, "shared_name": self._name,
                 "output_types": tuple(self._spec.types)}
        inputs = []
        if self.kind == ONE_SHOT:
            attrs["dataset"] = self._node
            attrs["captured"] = tuple(self._captured)
            inputs = list(self._captured)
        with self._graph.as_default():
            op = make_op("IteratorGetNext", inputs,
                         list(zip(self._spec.types, self._spec.shapes)), attrs,
                         name=name or "IteratorGetNext")
        return self._spec.pack(op.outputs)

    @property
    def name(self):
        return self._name

    @property
    def output_types(self):
        return self._spec.output_types()

    @property
    def output_shapes(self):
        return self._spec.output_shapes()

    @property
    def output_classes(self):
        return self._spec.output_classes()

    def __repr__(self):
        return f"<data.Iterator '{self._name}' kind={self.kind} types={self.output_types}>"


def _check_no_placeholder(captured):
    from estimator_npu.engine.plan import needed_ops
    for op in needed_ops(captured, {}):
        if op.type == "Placeholder":
            raise ValueError(f"make_one_shot_iterator: the dataset depends on placeholder "
                             f"'{op.name}', which a one-shot iterator cannot be fed; use "
                             "make_initializable_iterator() and feed its initializer")


def make_one_shot_iterator(dataset):
    """``tf.data.make_one_shot_iterator(dataset)``."""
    return Iterator._for_dataset(dataset, ONE_SHOT)


def make_initializable_iterator(dataset, shared_name=None):
    """``tf.data.make_initializable_iterator(dataset, shared_name)``."""
    return Iterator._for_dataset(dataset, INITIALIZABLE, shared_name)


__all__ = ["Iterator", "make_one_shot_iterator", "make_initializable_iterator"]
