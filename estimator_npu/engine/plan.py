"""Execution plans: a pruned, ordered list of kernels compiled into one Python function.

``compile_plan(ctx, targets, feeds)`` walks the graph once from the fetched tensors and
ops back to the fed tensors, orders the needed ops topologically, asks each op's registry
entry for its kernel, and generates straight-line source code such as::

    def _plan(f0):
        v3 = s3.value                 # variable read (inlined)
        v5 = k5(f0, v3)               # MatMul
        ...
        return (v9, None)

Replaying a plan is one Python call with no graph traversal and no dict lookups per op.
"""
import sys

import numpy as np

from estimator_npu import errors
from estimator_npu.engine import precision, registry
from estimator_npu.engine.graph import GraphKeys, Operation, Tensor


class Plan:
    """A compiled execution plan for one (fetch targets, fed tensors) signature."""

    __slots__ = ("fn", "ops", "line_ops", "var_reads", "checked", "source", "fetch_alias")

    def __init__(self, fn, ops, line_ops, var_reads, source, fetch_alias):
        self.fn = fn
        self.ops = ops
        self.line_ops = line_ops
        self.var_reads = var_reads
        self.checked = False
        self.source = source
        self.fetch_alias = fetch_alias

    def check_initialized(self):
        for store in self.var_reads:
            if store.value is None:
                raise errors.FailedPreconditionError(
                    None, store.op, "Attempting to use uninitialized value "
                    f"{store.op.name}")
        self.checked = True

    def failing_op(self, tb):
        """The op whose line raised, from a traceback into the generated function."""
        op = None
        while tb is not None:
            if tb.tb_frame.f_code is self.fn.__code__:
                op = self.line_ops.get(tb.tb_lineno)
            tb = tb.tb_next
        return op


def needed_ops(targets, fed, extra_deps=None):
    """Ops that must run to compute ``targets`` (tensors/ops) given ``fed`` tensors, in
    topological order. ``extra_deps`` maps an op to more ops that must run before it."""
    order = []
    state = {}  # op -> 1 visiting, 2 done
    stack = []
    for t in reversed(targets):
        if isinstance(t, Tensor):
            if t in fed:
                continue
            stack.append((t.op, False))
        else:
            stack.append((t, False))
    while stack:
        op, expanded = stack.pop()
        if expanded:
            state[op] = 2
            order.append(op)
            continue
        st = state.get(op)
        if st == 2:
            continue
        if st == 1:
            raise errors.InvalidArgumentError(None, op, f"Graph has a cycle through {op.name}")
        state[op] = 1
        stack.append((op, True))
        deps = [c for c in op.control_inputs]
        deps.extend(t.op for t in op.inputs if t not in fed)
        if extra_deps:
            deps.extend(extra_deps.get(op, ()))
        for d in reversed(deps):
            if state.get(d) != 2:
                if state.get(d) == 1:
                    raise errors.InvalidArgumentError(None, op,
                                                      f"Graph has a cycle through {d.name}")
                stack.append((d, False))
    return order


def _initializers_first(targets, fed, order):
    """Re-orders so that a variable initialized in this plan is read only after its
    initializer ran (``tf.Variable(a * 2)`` initializes from ``a``'s initial value).

    Returns the order and the variable ops initialized by the plan.
    """
    inits = {op.attrs["var"]: op for op in order
             if op.type == "Assign" and op.attrs.get("is_initializer")}
    if not inits:
        return order, set()
    extra = {v: [a] for v, a in inits.items() if v in set(order)}
    return needed_ops(targets, fed, extra), set(inits)


def _snapshot_reads(order, targets, fed, initialized, reorder):
    """Fetch snapshots: a fetched value is the value at the time of its read.

    When the plan has a stateful op (an update), ops that depend on no stateful op (reads
    of variables not initialized by this plan, and pure math on them or on feeds) move
    before all the others, as TF's executor runs independent reads first; each keeps its
    relative order (``reorder=False`` keeps the order: the device loop must run first).
    Then every fetched tensor that may alias variable storage and is produced before a
    stateful op gets copied right after it is computed, so a later in-place update can
    not change it. Plans without a stateful op are returned unchanged (no copy).

    The global step is the exception, as observed in TF (ref and resource variables
    alike): a fetched global step is its value at the end of the run, so its reads are
    neither moved nor copied, and ``compile_plan`` reads it again when returning.

    Returns:
        ``(order, snap, step_reads)``: the order, the fetched tensors to copy when
        computed, and the global-step variable ops.
    """
    step_reads = set()
    for op in order:
        if op.type == "VariableV2" and not step_reads:
            step_reads = {getattr(v, "op", v) for v in
                          op.graph.get_collection(GraphKeys.GLOBAL_STEP)}
            break
    tainted = set()
    for op in order:
        if (registry.get(op.type).stateful or op in initialized or op in step_reads
                or any(t not in fed and t.op in tainted for t in op.inputs)
                or any(c in tainted for c in op.control_inputs)):
            tainted.add(op)
    if not any(registry.get(op.type).stateful for op in order):
        return order, set(), step_reads
    if reorder:
        order = [op for op in order if op not in tainted] + \
            [op for op in order if op in tainted]
    position = {op: i for i, op in enumerate(order)}
    last_update = max(i for i, op in enumerate(order) if registry.get(op.type).stateful)
    snap = {t for t in targets if isinstance(t, Tensor) and t not in fed
            and registry.get(t.op.type).may_alias and position[t.op] < last_update
            and t.op not in step_reads}
    return order, snap, step_reads


def compile_plan(ctx, targets, feeds):
    """Compiles a plan computing ``targets`` (Tensor or Operation each) from ``feeds``.

    Args:
        ctx: the session runtime handed to kernel factories.
        targets: list of Tensors / Operations; the plan returns one value per target
            (``None`` for operations).
        feeds: list of fed Tensors; the plan function takes their values positionally.
    """
    fed = {t: f"f{i}" for i, t in enumerate(feeds)}
    order, initialized = _initializers_first(targets, fed, needed_ops(targets, fed))
    first = [op for op in order if op.attrs.get("run_first")]
    first += [op for op in order if op.type == "IteratorGetNext"]
    if first:
        # Ops marked run_first (the device loop) and their ancestors run before the rest,
        # so every other fetch sees the state after them; then the input pipeline's
        # get_next, so that the end of input stops a step before it changes anything.
        pre = set(needed_ops(first, fed))
        order = [op for op in order if op in pre] + [op for op in order if op not in pre]
    order, snap, step_reads = _snapshot_reads(order, targets, fed, initialized,
                                              reorder=not first)
    ns = {}
    names = dict(fed)
    memo = precision.PlanMemo(fed)
    lines = ["def _plan(" + ", ".join(fed[t] for t in feeds) + "):"]
    line_ops = {}
    var_reads = []
    counter = [0]
    snapped = {}  # fetched tensor -> the name of its snapshot
    end_reads = {}  # fetched global step -> the expression reading it at the end

    def bind(obj):
        counter[0] += 1
        key = f"c{counter[0]}"
        ns[key] = obj
        return key

    for op in order:
        opdef = registry.get(op.type)
        if opdef.inline is not None:
            expr = opdef.inline(op, ctx, bind)
            if op in step_reads:
                end_reads[op.outputs[0]] = expr
            if op.type == "VariableV2" and op not in initialized:
                var_reads.append(ctx.store(op))
            names[op.outputs[0]] = v = f"v{op._id}"
            lines.append(f"    {v} = {expr}")
            line_ops[len(lines)] = op
            _emit_snapshots(op, names, snap, snapped, lines, bind)
            continue
        kernel = opdef.kernel(op, ctx)
        if kernel is None:
            continue
        kernel = precision.adapt_kernel(op, kernel, ctx.precision_mode, memo)
        k = bind(kernel)
        args = ", ".join(names[t] for t in op.inputs)
        outs = [f"v{op._id}_{i}" for i in range(len(op.outputs))]
        for t, o in zip(op.outputs, outs):
            names[t] = o
        if not outs:
            lines.append(f"    {k}({args})")
        elif len(outs) == 1:
            lines.append(f"    {outs[0]} = {k}({args})")
        else:
            lines.append(f"    {', '.join(outs)}, = {k}({args})")
        line_ops[len(lines)] = op
        _emit_snapshots(op, names, snap, snapped, lines, bind)
    rets = []
    alias = []
    for t in targets:
        if isinstance(t, Tensor):
            rets.append(snapped.get(t) or end_reads.get(t) or names[t])
            alias.append(t not in fed and t not in snapped
                         and registry.get(t.op.type).may_alias)
        else:
            rets.append("None")
            alias.append(False)
    lines.append("    return (" + "".join(r + ", " for r in rets) + ")")
    source = "\n".join(lines)
    code = compile(source, f"<plan {len(order)} ops>", "exec")
    exec(code, ns)  # noqa: S102 - source generated above from op names only
    return Plan(ns["_plan"], order, line_ops, var_reads, source, alias)


def _copy_if_array(value):
    return value.copy() if isinstance(value, np.ndarray) else value


def _emit_snapshots(op, names, snap, snapped, lines, bind):
    """Adds ``sN = copy(vN)`` right after ``op`` for its outputs in ``snap``."""
    if not snap:
        return
    for i, t in enumerate(op.outputs):
        if t in snap:
            name = snapped[t] = f"s{op._id}_{i}"
            lines.append(f"    {name} = {bind(_copy_if_array)}({names[t]})")


def reraise_from_plan(plan, exc):
    """Re-raises ``exc`` (raised inside ``plan``) as an ``OpError`` naming the failing op."""
    if isinstance(exc, errors.OpError):
        raise exc
    op = plan.failing_op(sys.exc_info()[2])
    where = f"{op.name} ({op.type})" if op is not None else "execution plan"
    raise errors.InvalidArgumentError(None, op, f"{where}: {type(exc).__name__}: {exc}") \
        from exc


__all__ = ["Plan", "compile_plan", "needed_ops", "Operation"]
