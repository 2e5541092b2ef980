"""Transformations that run user functions: map, filter, flat_map, interleave.

A user function receives ``Tensor``s, as in TF. It is traced once into a private
``Graph`` whose placeholders match the element structure, and each element (or batch,
when the map follows ``batch``) is then run through a compiled plan of that graph::

    g = Graph(); with g.as_default(): out = fn(*placeholders)   # once, at map() time
    plan = Session(graph=g).compile(flat(out), placeholders)   # once per thread
    for element in input: yield plan.fn(*element)               # per element

Any engine op may be used, ``py_func``/``numpy_function`` included. Constants of another
graph are copied in when the function uses them; other tensors of another graph cannot be
captured: pass values through the dataset instead.
"""
import collections
import concurrent.futures
import os
import threading

import numpy as np

from estimator_npu.data import rowwise
from estimator_npu.data.base import AUTOTUNE, Env, IndexStream, Node, all_captures
from estimator_npu.data.structure import Spec, components
from estimator_npu.engine import plan as _plan
from estimator_npu.engine.graph import Graph
from estimator_npu.engine.ops.core import constant, placeholder
from estimator_npu.engine.session import Session
from estimator_npu.engine.threads import usable_cores


class TracedFunction:
    """A user function traced once into a private graph and replayed on numpy values.

    Args:
        fn: the user function; a tuple element is passed as positional arguments, any
            other element as one argument.
        spec: the input element ``Spec``.
        what: the transformation name, for messages.
        finish: ``finish(result, graph) -> list of target tensors``, called inside the
            private graph to turn the function's result into the tensors to compute.
    """

    def __init__(self, fn, spec, what, finish):
        if not callable(fn):
            raise TypeError(f"{what}: the function must be callable, got "
                            f"{type(fn).__name__}: {fn!r}")
        self.what = what
        self.spec = spec
        self.graph = Graph()
        self.graph.capture_foreign = _ConstantCapture(self.graph, what)
        with self.graph.as_default():
            self.inputs = [placeholder(t, s, name=f"args_{i}")
                           for i, (t, s) in enumerate(zip(spec.types, spec.shapes))]
            args = spec.pack(self.inputs)
            self.result = fn(*args) if type(args) is tuple else fn(args)
            self.targets = finish(self.result, self.graph)
        for t in self.targets:
            if t.graph is not self.graph:
                raise ValueError(f"{what}: the function returned or captured tensor "
                                 f"{t.name} of another graph; a dataset function may only "
                                 "use its arguments and the ops it creates")
        self._local = threading.local()

    @classmethod
    def from_graph(cls, graph, inputs, targets, what, spec):
        """A traced function made of an existing private graph."""
        self = cls.__new__(cls)
        self.what, self.spec, self.graph = what, spec, graph
        self.inputs, self.targets, self.result = inputs, targets, None
        self._local = threading.local()
        return self

    def _compiled(self):
        plan = getattr(self._local, "plan", None)
        if plan is None:
            sess = Session(graph=self.graph)
            plan = sess.compile(self.targets, self.inputs)
            plan.check_initialized()
            self._local.session = sess
            self._local.plan = plan
        return plan

    def __call__(self, flat):
        plan = getattr(self._local, "plan", None) or self._compiled()
        try:
            return plan.fn(*flat)
        except Exception as exc:  # noqa: BLE001 - re-raised naming the failing op
            _plan.reraise_from_plan(plan, exc)


class _ConstantCapture:
    """Copies the constants of other graphs a dataset function uses into its own graph,
    once each (``IMAGENET_MEAN = tf.constant(...)`` at module level, as TF captures it);
    any other outer tensor stays an error."""

    def __init__(self, graph, what):
        self._graph, self._what, self._copies = graph, what, {}

    def __call__(self, tensor):
        if tensor.op.type != "Const":
            raise ValueError(f"{self._what}: the function uses tensor {tensor.name} "
                             f"({tensor.op.type}) of another graph; a dataset function may "
                             f"only use its arguments, constants and the ops it creates")
        if tensor not in self._copies:
            with self._graph.as_default():
                self._copies[tensor] = constant(tensor.op.attrs["value"], dtype=tensor.dtype)
        return self._copies[tensor]


def _tensor_components(result, what, graph):
    if isinstance(result, list):
        result = tuple(result)  # TF1 converts a returned list into a tuple
    structure, comps = components(result, what)
    out = []
    for c in comps:
        if isinstance(c, np.ndarray):
            c = constant(c, dtype=c.dtype)
        elif c.graph is not graph:
            raise ValueError(f"{what}: the function returned tensor {c.name} of another "
                             "graph; a dataset function may only use its arguments and the "
                             "ops it creates")
        out.append(c)
    return structure, out


_UNSET = object()


class MapNode(Node):
    def __init__(self, node, fn, num_parallel_calls):
        self.inputs = (node,)
        holder = {}

        def finish(result, graph):
            holder["structure"], comps = _tensor_components(result, "map", graph)
            return comps
        self._fn = TracedFunction(fn, node.spec, "map", finish)
        self.spec = Spec(holder["structure"], [t.dtype for t in self._fn.targets],
                         [t.shape for t in self._fn.targets])
        self._npts = [t.np for t in self.spec.types]
        self._parallel = num_parallel_calls
        self._block = _UNSET  # the map on blocks of rows (a copied graph), or None

    def _block_fn(self):
        """The map applied to a block of gathered rows, or ``None`` (see ``rowwise``)."""
        if self._block is _UNSET:
            made = rowwise.batched_graph(self._fn)
            if made is None:
                self._block = None
            else:
                bfn = TracedFunction.from_graph(*made, "map", None)
                self._block = lambda block: self._convert(bfn(block))
        return self._block

    def indexed(self, env):
        ix = self.inputs[0].indexed(env)
        if ix is None:
            return None
        block = self._block_fn()
        if block is None:
            return None
        inner = ix.post
        post = block if inner is None else (lambda rows: block(inner(rows)))
        return IndexStream(ix.arrays, ix.passes, post)

    def _apply(self, elem):
        return self._convert(self._fn(elem))

    def _convert(self, out):
        return tuple([v if type(v) is np.ndarray and v.dtype == t else np.asarray(v, t)
                      for v, t in zip(out, self._npts)])

    def iterate(self, env):
        it = self.inputs[0].elements(env)
        n = self._parallel
        if n is not None:
            # More threads than usable cores only contend for the GIL between numpy calls;
            # scripts ask for 32-216 per map (TF runs them on its cores-sized pool), and
            # nested or interleaved maps would otherwise start hundreds of threads.
            n = min(usable_cores(), n if n != AUTOTUNE else 1 << 30)
        if n is None or n <= 1:
            return map(self._apply, it)
        return ordered_parallel_map(self._apply, it, n)


def ordered_parallel_map(fn, it, workers):
    """``map(fn, it)`` on a thread pool with ``workers`` threads, in input order."""
    pool = concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="data-map")
    pending = collections.deque()
    try:
        for elem in it:
            pending.append(pool.submit(fn, elem))
            if len(pending) >= 2 * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


class FilterNode(Node):
    def __init__(self, node, predicate):
        self.inputs = (node,)
        self.spec = node.spec

        def finish(result, graph):
            _, comps = _tensor_components(result, "filter", graph)
            if len(comps) != 1 or not comps[0].dtype.is_bool or comps[0].shape.values not in (
                    None, ()):
                got = ", ".join(f"{c.dtype.name} {c.shape}" for c in comps)
                raise TypeError("filter: `predicate` must return a scalar boolean tensor, "
                                f"got {got}")
            return comps
        self._fn = TracedFunction(predicate, node.spec, "filter", finish)

    def iterate(self, env):
        fn = self._fn
        for elem in self.inputs[0].elements(env):
            if fn(elem)[0]:
                yield elem


class FlatMapNode(Node):
    """``flat_map`` and ``interleave``: the function maps each element to a dataset."""

    def __init__(self, node, fn, unwrap, what="flat_map", cycle_length=1, block_length=1):
        self.inputs = (node,)
        holder = {}

        def finish(result, graph):
            holder["inner"] = inner = unwrap(result, what)
            return all_captures(inner)
        self._fn = TracedFunction(fn, node.spec, what, finish)
        self._inner = holder["inner"]
        self._captured = self._fn.targets
        self.spec = self._inner.spec
        self._cycle = cycle_length
        self._block = block_length

    def _open(self, elem):
        values = self._fn(elem) if self._captured else ()
        return iter(self._inner.elements(Env(dict(zip(self._captured, values)))))

    def iterate(self, env):
        inputs = self.inputs[0].elements(env)
        if self._cycle == 1:
            for elem in inputs:
                yield from self._open(elem)
            return
        # TF's interleave: a cycle of open iterators, ``block_length`` elements from each
        # in turn; an exhausted iterator's slot takes the next input element.
        cycle = self._cycle if self._cycle != AUTOTUNE else (os.cpu_count() or 1)
        slots = [None] * cycle
        index = block = num_open = 0
        end_of_input = False
        while not end_of_input or num_open:
            cur = slots[index]
            if cur is not None:
                value = next(cur, _END)
                if value is not _END:
                    block += 1
                    if block == self._block:
                        block, index = 0, (index + 1) % cycle
                    yield value
                    continue
                slots[index] = None
                num_open -= 1
                block, index = 0, (index + 1) % cycle
            elif not end_of_input:
                elem = next(inputs, _END)
                if elem is _END:
                    end_of_input = True
                else:
                    slots[index] = self._open(elem)
                    num_open += 1
            else:
                block, index = 0, (index + 1) % cycle


_END = object()
