"""Subgraphs: Python functions traced into the graph as branches and loop bodies.

``trace(fn, arg_specs, name)`` calls ``fn`` on fresh argument tensors inside a *trace
frame*. Ops built there belong to the frame (``op._frame``); a tensor from outside that
such an op consumes becomes an explicit *capture*: a ``SubgraphArg`` proxy inside the frame,
and one more input of the control-flow op that owns the subgraph. Constants and variables
are used directly (a body reads the variable's current value every iteration)::

    sub = trace(lambda i: i + x, [(tf.int32, [])], "while/body")
    sub.args        # [while/body/arg:0]
    sub.captures    # [(x, while/body/capture:0)]
    sub.outputs     # [while/body/add:0]
    fn = sub.compile(ctx)           # a plan: fn(*arg_values, *capture_values) -> outputs

A subgraph compiles to its own plan once; replaying a loop body is one Python call.

Gradients (``gradient_of``): the body's VJP is traced once as a second subgraph, fed with
the cotangents, the captures and the forward values it needs (``saved``): the forward
plan records those values per run (per iteration of a loop), so the backward pass never
recomputes the forward ops (random masks and stateful reads stay consistent).
"""
from estimator_npu.engine import dtypes, registry
from estimator_npu.engine.graph import Operation, Tensor, get_default_graph
from estimator_npu.engine.plan import needed_ops
from estimator_npu.utils import nest

OPS = registry.OpFamily(__name__)  # this family's op definitions (data)


class TraceFrame:
    """The ops of one subgraph being traced, and the outer tensors they capture."""

    def __init__(self, graph, parent, name):
        self.graph = graph
        self.parent = parent
        self.name = name
        self.captures = {}       # tensor seen inside -> proxy tensor
        self.capture_list = []   # [(outer tensor, proxy tensor)] in capture order

    def _encloses(self, frame):
        f = self
        while f is not None:
            if f is frame:
                return True
            f = f.parent
        return False

    def resolve(self, t):
        """The tensor ops of this frame use in place of ``t``."""
        op = t.op
        f = op._frame
        if f is self:
            return t
        if not op.inputs:
            d = registry.get(op.type)
            if d.constant or d.reads_variable:
                return t
        if f is not None and not self._encloses(f):
            raise ValueError(f"Tensor {t.name} was created inside '{f.name}' and cannot be "
                             f"used in '{self.name}': return it from the branch or loop body "
                             "instead.")
        p = self.captures.get(t)
        if p is None:
            outer = self.parent.resolve(t) if self.parent is not None and f is not \
                self.parent else t
            p = self.graph.create_op("SubgraphArg", [], {"role": "capture"},
                                     [(t.dtype, t.shape)], name="capture").outputs[0]
            p.op._frame = self  # may be built while an inner frame is being traced
            self.captures[t] = p
            self.capture_list.append((outer, p))
        return p


def _leaf_value(x):
    """Outputs of a traced function: tensors, operations (run for effect) or values."""
    if isinstance(x, (Tensor, Operation)):
        return x
    as_flow = getattr(x, "_as_subgraph_value", None)
    if as_flow is not None:
        return as_flow()
    from estimator_npu.engine.ops.core import convert_to_tensor
    return convert_to_tensor(x)


class Subgraph:
    """A traced function: argument tensors, outputs, captures and what they need."""

    def __init__(self, frame, args, outputs, control_outputs, structure):
        self.frame = frame
        self.name = frame.name
        self.args = list(args)
        self.outputs = list(outputs)
        self.control_outputs = list(control_outputs)
        self.structure = structure
        self._grad = None
        self.outer_control = []

    @property
    def captures(self):
        return self.frame.capture_list

    @property
    def proxies(self):
        return [p for _, p in self.frame.capture_list]

    @property
    def feeds(self):
        return self.args + self.proxies

    def ops(self):
        """The ops that run when the subgraph runs, in order (for inspection)."""
        return needed_ops(self.outputs + self.control_outputs, set(self.feeds))

    def variables(self):
        """The variable ops the subgraph reads (inputs of its op, for gradients)."""
        return [op for op in self.ops() if registry.get(op.type).reads_variable]

    def compile(self, ctx, saved=()):
        """The plan ``fn(*args, *captures) -> (*outputs, *saved)``."""
        targets = self.outputs + list(saved) + self.control_outputs
        return ctx.compile(targets, self.feeds)


class RepeatedBody:
    """A body given by graph targets rather than a traced function: the device loop's
    training op, replayed ``k`` times by ``IterationLoop``. Same interface as ``Subgraph``
    (``name``, ``ops()``, ``compile(ctx)``), so plans, ``explain`` and inspection treat
    both loops alike."""

    def __init__(self, targets, feeds, name):
        self.targets = list(targets)
        self.feeds = list(feeds)
        self.name = name
        self.outputs = []
        self.control_outputs = list(targets)

    def ops(self):
        return needed_ops(self.targets, set(self.feeds))

    def variables(self):
        return [op for op in self.ops() if registry.get(op.type).reads_variable]

    def compile(self, ctx, saved=()):
        return ctx.compile(self.targets, self.feeds)


def trace(fn, arg_specs, name, args_structure=None, graph=None):
    """Traces ``fn`` into a ``Subgraph``.

    Args:
        fn: called with one tensor per ``arg_specs`` entry (packed into
            ``args_structure`` by ``nest.pack_sequence_as`` when given, with leaves turned
            back into objects by ``args_structure``'s ``_from_subgraph_value`` hooks).
        arg_specs: ``[(dtype, shape)]`` of the arguments.
        name: the frame's name, used in error messages (``"while/body"``).

    Returns:
        ``(subgraph, result)``: the subgraph and the structure ``fn`` returned.
    """
    g = graph or get_default_graph()
    parent = g._frames[-1] if g._frames else None
    frame = TraceFrame(g, parent, name)
    g._frames.append(frame)
    start = len(g._ops)
    try:
        with g.control_dependencies(None):
            args = [g.create_op("SubgraphArg", [], {"role": "arg"}, [spec], name="arg")
                    .outputs[0] for spec in arg_specs]
            if args_structure is not None:
                call_args = pack_like(args_structure, args)
                result = fn(*call_args) if isinstance(call_args, (list, tuple)) else \
                    fn(call_args)
            else:
                result = fn(*args)
            flat = [_leaf_value(x) for x in nest.flatten(result)]
            outputs, control = [], []
            for x in flat:
                if isinstance(x, Operation):
                    control.append(x)
                else:
                    outputs.append(frame.resolve(x))
    finally:
        g._frames.pop()
    sub = Subgraph(frame, args, outputs, control, result)
    # Control dependencies on ops outside the frame (``with tf.control_dependencies([outer])``
    # inside a body) run once, before the control-flow op, not inside every iteration.
    for op in g._ops[start:]:
        if op._frame is frame:
            for c in list(op.control_inputs):
                if c._frame is not frame:
                    op.control_inputs.remove(c)
                    if c not in sub.outer_control:
                        sub.outer_control.append(c)
    return sub, result


def flatten_values(structure):
    """Flat leaves of ``structure`` as tensors (TensorArrays become their flows)."""
    from estimator_npu.engine.ops.core import convert_to_tensor
    out = []
    for x in nest.flatten(structure):
        as_flow = getattr(x, "_as_subgraph_value", None)
        out.append(as_flow() if as_flow is not None else convert_to_tensor(x))
    return out


def pack_like(structure, flat):
    """Packs tensors into ``structure``; TensorArray leaves are rebuilt on the new flows."""
    leaves = nest.flatten(structure)
    rebuilt = []
    for leaf, t in zip(leaves, flat):
        make = getattr(leaf, "_from_subgraph_value", None)
        rebuilt.append(make(t) if make is not None else t)
    return nest.pack_sequence_as(structure, rebuilt)


def zeros_for(t):
    """A zero cotangent for tensor ``t`` (an empty TensorArray gradient for flows)."""
    from estimator_npu.engine.ops import array_ops, tensor_array_ops
    if t.dtype == dtypes.variant:
        return tensor_array_ops.zero_flow_grad()
    return array_ops.zeros_like(t)


class GradientSubgraph:
    """The VJP of a subgraph, traced once per forward subgraph.

    ``fn(*saved, *captures, *dys) -> (*d_args, *d_captures, *d_variables)`` where ``saved``
    are the forward values the gradient ops read.
    """

    def __init__(self, sub):
        from estimator_npu.engine.gradients import gradients
        g = sub.frame.graph
        self.diff_out = [i for i, t in enumerate(sub.outputs) if t.dtype.is_differentiable]
        self.variables = [op.outputs[0] for op in sub.variables()]
        xs = sub.args + sub.proxies + self.variables
        start = len(g._ops)
        saved_frames, g._frames = g._frames, []
        try:
            with g.control_dependencies(None), g.name_scope(sub.name + "_grad/"):
                self.dys = [g.create_op("SubgraphArg", [], {"role": "cotangent"},
                                        [(sub.outputs[i].dtype, sub.outputs[i].shape)],
                                        name="dy").outputs[0] for i in self.diff_out]
                ys = [sub.outputs[i] for i in self.diff_out]
                grads = gradients(ys, xs, grad_ys=self.dys, name="g") if ys else [None] * len(xs)
                self.grads = [gr if gr is not None else (zeros_for(x) if x.dtype.is_differentiable
                                                         else None)
                              for gr, x in zip(grads, xs)]
        finally:
            g._frames = saved_frames
        proxies = set(sub.proxies)
        saved = []
        seen = set()
        for op in g._ops[start:]:
            for t in op.inputs:
                if t.op._frame is sub.frame and t not in proxies and t not in seen and \
                        t not in self.dys:
                    d = registry.get(t.op.type)
                    if not (t.op.inputs == () and (d.constant or d.reads_variable)):
                        seen.add(t)
                        saved.append(t)
        for gr in self.grads:  # a gradient that is a forward value itself
            if gr is not None and gr.op._frame is sub.frame and gr not in seen and \
                    gr not in proxies:
                seen.add(gr)
                saved.append(gr)
        self.saved = saved
        self.n_args = len(sub.args)
        self.n_caps = len(sub.proxies)

    def compile(self, ctx, sub):
        targets = [gr for gr in self.grads if gr is not None]
        feeds = self.saved + sub.proxies + self.dys
        plan = ctx.compile(targets, feeds)
        present = [gr is not None for gr in self.grads]
        return plan, present


def gradient_of(sub):
    """The (memoized) ``GradientSubgraph`` of ``sub``."""
    if sub._grad is None:
        sub._grad = GradientSubgraph(sub)
    return sub._grad


def merged_shape(a, b):
    """The most specific shape compatible with both branch output shapes."""
    from estimator_npu.engine.shape import TensorShape
    if a.values is None or b.values is None or len(a.values) != len(b.values):
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(a.values, b.values)])


def _subgraph_arg_kernel(op, ctx):
    from estimator_npu import errors
    raise errors.InvalidArgumentError(
        None, op, f"{op.name} is an argument of a branch or loop body; it has a value only "
        "while that subgraph runs")


OPS.define("SubgraphArg", kernel=_subgraph_arg_kernel, grad=registry.NOT_DIFFERENTIABLE)
