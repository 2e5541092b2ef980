"""Execution plans: a pruned, ordered list of kernels compiled into one Python function.

``compile_plan(ctx, targets, feeds)`` runs three passes:

1. **ordering** (``order_ops``): walk the graph once from the fetched tensors and ops back
   to the fed tensors, order the needed ops topologically, then apply the ordering rules
   that op-definition flags ask for (``runs_first``, ``input_source``,
   ``initializes_variable``; see ``registry``);
2. **kernel choice** (``choose_kernels``): each op's registry entry makes its kernel (or an
   inline expression); precision is one wrapper pass over the chosen kernels;
3. **emission** (``emit``): straight-line source with names derived from op names and a
   ``# OpType op/name`` comment per line, registered with ``linecache`` so tracebacks show
   the failing line::

    def _plan(in_x_0):
        t_w = k_w.value                          # VariableV2 w
        t_MatMul = k_MatMul(in_x_0, t_w)         # MatMul MatMul
        return (t_MatMul, )

Replaying a plan is one Python call with no graph traversal and no dict lookups per op.
A kernel that is a ``registry.Inline`` is spliced in as its expression (``t = k_dot(t_a.T,
t_b)``) instead of a call of a closure; one global holds each kernel object, however many
ops use it.
Ops that own subgraphs (cond branches, loop bodies) compile those to plans of their own.
"""
import itertools
import keyword
import linecache
import re
import sys
import types
import weakref

import numpy as np

from estimator_npu import errors
from estimator_npu.engine import plan_rewrites, precision, registry
from estimator_npu.engine.graph import GraphKeys, Operation, Tensor


class Plan:
    """A compiled execution plan for one (fetch targets, fed tensors) signature."""

    __slots__ = ("fn", "ops", "line_ops", "var_reads", "checked", "source", "fetch_alias",
                 "filename", "governor", "release", "__weakref__")

    def __init__(self, fn, ops, line_ops, var_reads, source, fetch_alias, filename=None):
        self.fn = fn
        self.ops = ops
        self.line_ops = line_ops
        self.var_reads = var_reads
        self.checked = False
        self.source = source
        self.fetch_alias = fetch_alias
        self.filename = filename
        self.governor = None  # set by Session for the plans it runs (utils.blas_governor)
        self.release = None  # drops the buffers kept between runs (Session, on a switch)

    def check_initialized(self):
        for store in self.var_reads:
            if store.value is None:
                raise errors.FailedPreconditionError(
                    None, store.op, "Attempting to use uninitialized value "
                    f"{store.op.name}")
        self.checked = True

    def failing_op(self, tb):
        """The op whose line raised, from a traceback into the generated function (the
        innermost plan's op when a branch or loop body plan raised)."""
        op = None
        while tb is not None:
            plan = _PLANS_BY_CODE.get(tb.tb_frame.f_code)
            if plan is not None:
                op = plan.line_ops.get(tb.tb_lineno, op)
            tb = tb.tb_next
        return op


_PLANS_BY_CODE = weakref.WeakValueDictionary()
_plan_ids = itertools.count()


def needed_ops(targets, fed, extra_deps=None, into_subgraphs=False):
    """Ops that must run to compute ``targets`` (tensors/ops) given ``fed`` tensors, in
    topological order. ``extra_deps`` maps an op to more ops that must run before it.

    Branches and loop bodies run inside the plan of the op that owns them, whose inputs
    already include everything they capture; ``into_subgraphs=True`` also lists their ops
    (recursively, each subgraph's ops just before its owner), for inspection."""
    order = _needed(targets, fed, extra_deps)
    if not into_subgraphs:
        return order
    out = []
    for op in order:
        for ops in subgraph_ops(op).values():
            out.extend(o for o in _expand(ops) if o not in out)
        out.append(op)
    return out


def _expand(ops):
    out = []
    for op in ops:
        for inner in subgraph_ops(op).values():
            out.extend(_expand(inner))
        out.append(op)
    return out


def _needed(targets, fed, extra_deps):
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


def subgraph_ops(op):
    """``{subgraph name: [ops]}`` of the branches / bodies an op owns (empty if none)."""
    if not registry.get(op.type).subgraphs:
        return {}
    return {sub.name: sub.ops() for sub in op.attrs.get("subgraphs", ())}


# ------------------------------------------------------------------ pass 1: ordering
def _initializers_first(targets, fed, order):
    """Re-orders so that a variable initialized in this plan is read only after its
    initializer ran (``tf.Variable(a * 2)`` initializes from ``a``'s initial value).

    Returns the order and the variable ops initialized by the plan.
    """
    inits = {op.attrs["var"]: op for op in order
             if registry.get(op.type).initializes_variable and op.attrs.get("is_initializer")}
    if not inits:
        return order, set()
    extra = {v: [a] for v, a in inits.items() if v in set(order)}
    return needed_ops(targets, fed, extra), set(inits)


def order_ops(targets, fed):
    """The ops of a plan in run order, and the variables the plan itself initializes.

    Ops flagged ``runs_first`` (the device loop) and their ancestors run before the rest,
    so every other fetch sees the state after them; then the ``input_source`` ops
    (``get_next``), so that the end of input stops a step before it changes anything.
    """
    order, initialized = _initializers_first(targets, fed, needed_ops(targets, fed))
    defs = [registry.get(op.type) for op in order]
    first = [op for op, d in zip(order, defs) if d.runs_first]
    first += [op for op, d in zip(order, defs) if d.input_source]
    if first:
        pre = set(needed_ops(first, fed))
        order = [op for op in order if op in pre] + [op for op in order if op not in pre]
    return order, initialized


# ------------------------------------------------------------------ pass 2: kernels
class Step:
    """One line of a plan: an op with its inline expression or its kernel."""

    __slots__ = ("op", "inline", "kernel")

    def __init__(self, op, inline=None, kernel=None):
        self.op, self.inline, self.kernel = op, inline, kernel


def choose_kernels(ctx, order, fed, bind, overrides=None, memo=None):
    """Asks each op's registry entry for its kernel (unless ``overrides``, from the plan
    rewrites, already chose one); precision wraps them in one pass (``memo``: the plan's
    ``precision.PlanMemo``, made here when not given)."""
    overrides = overrides or {}
    status = getattr(ctx, "float_status", None)
    memo = precision.PlanMemo(fed, status) if memo is None else memo
    steps = []
    for op in order:
        opdef = registry.get(op.type)
        if opdef.inline is not None:
            steps.append(Step(op, inline=opdef.inline(op, ctx, bind)))
            continue
        kernel = overrides[op] if op in overrides else opdef.kernel(op, ctx)
        if kernel is not None:
            steps.append(Step(op, kernel=kernel))
            if getattr(kernel, "release", None) is not None:  # buffers kept across runs
                memo.releasers.append(kernel.release)
    for s in steps:  # the precision pass: one wrapper per kernel, in run order
        if s.kernel is not None:
            s.kernel = precision.adapt_kernel(s.op, s.kernel, ctx.precision_mode, memo,
                                              status)
    return steps


# ------------------------------------------------------------------ pass 3: emission
class _Names:
    """Python identifiers derived from op and tensor names, unique within one plan."""

    def __init__(self):
        self.used = set()

    def make(self, prefix, name):
        base = prefix + re.sub(r"\W", "_", name)
        if keyword.iskeyword(base) or not base.isidentifier():
            base = "_" + base
        out, i = base, 1
        while out in self.used:
            out = f"{base}_{i}"
            i += 1
        self.used.add(out)
        return out


def emit(ctx, steps, targets, feeds, fed_names, ns, names, initialized, snap=frozenset(),
         step_reads=frozenset()):
    """Generates, compiles and registers the plan function; ``snap`` and ``step_reads``
    come from ``_snapshot_reads`` (fetch snapshots, global-step reads at the end)."""
    lines = ["def _plan(" + ", ".join(fed_names[t] for t in feeds) + "):"]
    line_ops = {}
    var_reads = []
    fresh = {}  # variable tensor -> its read expression
    stale = set()  # variable reads that a stateful op emitted since may have replaced
    snapped = {}  # fetched tensor -> the name of its snapshot
    end_reads = {}  # fetched global step -> the expression reading it at the end
    ident = names["__idents__"]
    codes = {}  # line index -> its code, without the comment
    shared = {}  # id(kernel or bound object) -> its global name: one name per object

    def global_name(obj, name):
        # A kernel used by many ops (np.add, np.dot) is one global, not one per op: a
        # plan of 20k lines otherwise has 20k globals, each LOAD_GLOBAL a different entry
        # of a dict of megabytes (less memory touched per step in big plans).
        key = id(obj)
        if key not in shared:
            own = getattr(obj, "__name__", None)
            if not isinstance(obj, types.FunctionType) and isinstance(own, str) and \
                    own.isidentifier():
                name = own  # numpy's functions: k_add, k_dot
            shared[key] = ident.make("k_", name)
            ns[shared[key]] = obj
        return shared[key]

    def add(code, comment):
        codes[len(lines)] = code
        lines.append(code + comment)

    for s in steps:
        op = s.op
        comment = f"  # {op.type} {op.name}"
        if s.inline is not None:
            if registry.get(op.type).reads_variable:
                if op not in initialized:
                    var_reads.append(ctx.store(op))
                # A consumer reads the variable when it runs (TF1 ref semantics): after
                # a stateful op (an update ordered before it by a control dependency,
                # which may have replaced the stored array) it re-reads the store.
                fresh[op.outputs[0]] = s.inline
            if op in step_reads:
                end_reads[op.outputs[0]] = s.inline
            if registry.get(op.type).constant and s.inline in ns:
                names[op.outputs[0]] = s.inline  # a constant: its readers use the global
                continue
            v = ident.make("t_", op.name)
            names[op.outputs[0]] = v
            add(f"    {v} = {s.inline}", comment)
            line_ops[len(lines)] = op
            _emit_snapshots(op, names, snap, snapped, add, ns, ident)
            continue
        kernel = s.kernel
        if kernel is registry.elided:  # folded into its reader's expression: no line
            continue
        inline = isinstance(kernel, registry.Inline)
        inputs = kernel.inputs if inline and kernel.inputs is not None else op.inputs
        arg_list = [fresh[t] if t in stale else names[t] for t in inputs]
        args = ", ".join(arg_list)
        if registry.get(op.type).stateful:
            stale.update(fresh)
        if inline and len(op.outputs) == 1:
            out = names[op.outputs[0]] = ident.make("t_", op.name)
            bound = {key: global_name(obj, key) for key, obj in kernel.bound.items()}
            add(f"    {out} = {kernel.expression(arg_list, bound)}", comment)
            line_ops[len(lines)] = op
            _emit_snapshots(op, names, snap, snapped, add, ns, ident)
            continue
        if getattr(kernel, "passes_inputs", False) and len(op.outputs) == 1:
            # a rewrite made this op hand its inputs on (one input: itself, else a tuple):
            # an assignment, not a call
            out = names[op.outputs[0]] = ident.make("t_", op.name)
            value = args if len(op.inputs) == 1 else f"({args}, )"
            add(f"    {out} = {value}", comment)
            line_ops[len(lines)] = op
            _emit_snapshots(op, names, snap, snapped, add, ns, ident)
            continue
        k = global_name(kernel, op.name)
        if len(op.outputs) == 1:
            outs = [ident.make("t_", op.name)]
        else:
            outs = [ident.make("t_", f"{op.name}_{i}") for i in range(len(op.outputs))]
        for t, o in zip(op.outputs, outs):
            names[t] = o
        if not outs:
            add(f"    {k}({args})", comment)
        elif len(outs) == 1:
            add(f"    {outs[0]} = {k}({args})", comment)
        else:
            add(f"    {', '.join(outs)}, = {k}({args})", comment)
        line_ops[len(lines)] = op
        _emit_snapshots(op, names, snap, snapped, add, ns, ident)
    rets = []
    alias = []
    for t in targets:
        if isinstance(t, Tensor):
            rets.append(snapped.get(t) or end_reads.get(t) or names[t])
            alias.append(t not in fed_names and t not in snapped
                         and registry.get(t.op.type).may_alias)
        else:
            rets.append("None")
            alias.append(False)
    _free_after_last_use(lines, codes, rets)
    lines.append("    return (" + "".join(r + ", " for r in rets) + ")")
    source = "\n".join(lines)
    filename = f"<plan {next(_plan_ids)}: {len(steps)} ops>"
    code = compile(source, filename, "exec")
    exec(code, ns)  # noqa: S102 - source generated above from op names only
    linecache.cache[filename] = (len(source), None, [ln + "\n" for ln in lines], filename)
    # pop, not get: the function must not live in its own globals (a cycle that only the
    # garbage collector frees, keeping every kernel's work buffers alive until it runs)
    plan = Plan(ns.pop("_plan"), [s.op for s in steps], line_ops, var_reads, source, alias,
                filename)
    _PLANS_BY_CODE[plan.fn.__code__] = plan
    return plan


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
    not copied, and ``compile_plan`` reads it again when returning; ops computing from
    it move early with the other reads and see the value before the increment, as TF's.

    Returns:
        ``(order, snap, step_reads)``: the order, the fetched tensors to copy when
        computed, and the global-step variable ops.
    """
    step_reads = set()
    for op in order:
        if registry.get(op.type).reads_variable and not step_reads:
            step_reads = {getattr(v, "op", v) for v in
                          op.graph.get_collection(GraphKeys.GLOBAL_STEP)}
            break
    tainted = set()
    for op in order:
        if (registry.get(op.type).stateful or op in initialized
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
    ident = _Names()
    fed = {t: ident.make("in_", t.name) for t in feeds}
    order, initialized = order_ops(targets, fed)
    ns = {}
    counter = itertools.count()

    def bind(obj):
        key = f"c{next(counter)}"
        ns[key] = obj
        return key

    # get_next stays before every update either way (it is stateful); only the device
    # loop must run before the independent reads
    first = any(registry.get(op.type).runs_first for op in order)
    order, snap, step_reads = _snapshot_reads(order, targets, fed, initialized,
                                              reorder=not first)
    overrides = plan_rewrites.kernel_overrides(order, targets, feeds, ctx)
    memo = precision.PlanMemo(fed, getattr(ctx, "float_status", None))
    steps = choose_kernels(ctx, order, fed, bind, overrides, memo)
    names = dict(fed)
    names["__idents__"] = ident
    plan = emit(ctx, steps, targets, feeds, fed, ns, names, initialized, snap, step_reads)
    if memo.rounders or memo.releasers:
        plan.release = memo.release
    return plan


_ASSIGNED = re.compile(r"^    ([A-Za-z_][\w, ]*?),? = ")
_IDENT = re.compile(r"[A-Za-z_]\w*")


def _free_after_last_use(lines, codes, rets):
    """Appends ``; del x`` to the line that last uses each plan local (fed values and
    kernel outputs), so that an intermediate array is released as soon as nothing later
    needs it, as TF frees a tensor when its last consumer has run. Without it every
    intermediate of the plan stays alive until the plan returns, and a forward pass over
    a large batch (or an unrolled RNN) holds all its activations at once. ``codes`` maps
    a line index to its code part (before the ``# OpType op`` comment); returned names
    and names used by no line are left alone."""
    kept = set(rets)
    params = _IDENT.findall(lines[0][len("def _plan("):])
    defined = set(params)
    last = {}
    for i in sorted(codes):
        code = codes[i]
        m = _ASSIGNED.match(code)
        targets = set(_IDENT.findall(m.group(1))) if m else set()
        used = code[m.end():] if m else code
        for name in _IDENT.findall(used):
            if name in defined:
                last[name] = i
        defined |= targets
        for name in targets:
            last[name] = i
    by_line = {}
    for name, i in last.items():
        if name not in kept:
            by_line.setdefault(i, []).append(name)
    for i, names in by_line.items():
        code = codes[i]
        lines[i] = code + "; del " + ", ".join(sorted(names)) + lines[i][len(code):]


def _copy_if_array(value):
    return value.copy() if isinstance(value, np.ndarray) else value


def _emit_snapshots(op, names, snap, snapped, add, ns, ident):
    """Adds ``s_x = copy(t_x)`` right after ``op`` for its outputs in ``snap``."""
    if not snap:
        return
    for t in op.outputs:
        if t in snap:
            name = snapped[t] = ident.make("s_", t.name)
            ns["_copy_if_array"] = _copy_if_array
            add(f"    {name} = _copy_if_array({names[t]})", f"  # snapshot of {t.name}")


def reraise_from_plan(plan, exc):
    """Re-raises ``exc`` (raised inside ``plan``) as an ``OpError`` naming the failing op."""
    if isinstance(exc, errors.OpError):
        raise exc
    op = plan.failing_op(sys.exc_info()[2])
    where = f"{op.name} ({op.type})" if op is not None else "execution plan"
    raise errors.InvalidArgumentError(None, op, f"{where}: {type(exc).__name__}: {exc}") \
        from exc


def explain(ctx, plan, indent="", seen=None):
    """The plan's source, then (indented) the plans of the branches and loop bodies its
    ops run, as the kernels compiled them."""
    seen = set() if seen is None else seen
    seen.add(plan)
    out = [indent + line for line in plan.source.splitlines()]
    for op in plan.ops:
        opdef = registry.get(op.type)
        plans_of = getattr(opdef.kernel, "subplans", None) if opdef.subgraphs else None
        if plans_of is None:
            continue
        for label, sub in plans_of(op, ctx):
            if sub in seen:
                continue
            out.append(f"{indent}# {label} of {op.type} {op.name}:")
            out.append(explain(ctx, sub, indent + "    ", seen))
    return "\n".join(out)


__all__ = ["Plan", "compile_plan", "needed_ops", "order_ops", "choose_kernels", "emit",
           "subgraph_ops", "Operation"]
