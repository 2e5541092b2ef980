"""The fused ``ApplyUpdates`` op: one stateful kernel applies an update rule to every
variable of one ``apply_gradients`` call, in place, with no allocation per step.

When the kernel first runs in a session it packs the values of the variables (and of
each slot) of one dtype into one contiguous buffer per role and makes each variable's
``VarStore.value`` a reshaped view into it. Each dtype group is then updated in one of
two modes, chosen at packing time by ``use_flat`` (a cost model):

* flat: the gradients are copied into a flat gradient buffer (skipped for a gradient
  that already *is* its view) and the rule runs once on the whole buffers: a handful of
  numpy calls whatever the number of variables. Required by ``grad_hook``.
* per tensor: the rule runs on each variable's views with the incoming gradient array:
  no copy, but the rule's calls are repeated per variable. Cheaper when the gradients
  are large compared with the number of variables.

Per call::

    if condition is given and false: return False        # nothing changes
    if some store.value is not its view: re-pack           # Assign/load replaced an array
    copy gradients into the flat gradient buffers (flat groups)
    r = grad_hook(flat_grads, layouts)
    if r is False: return False
    if r is an iterator:                                   # update as ranges become ready
        for (group, start, stop) in r: rule.update(slices [start:stop] of that group)
    else:
        rule.update(...) per group (flat) or per variable (per tensor)
    rule.finish(shared scalars, hyper); global_step += 1
    return True

Range updates (the tailing optimization): a ``grad_hook`` may return an iterator of
``(group index, start, stop)`` element ranges instead of ``None``; the kernel applies the
rule to ``[start:stop]`` of that group's parameter, gradient and slot buffers as each
range is produced, so the hook can let the update of one segment run while the
communication of the next is still in flight. Within a group the ranges must follow each
other (each ``start`` is the previous ``stop``, the first is 0) and end at the group's
size. The update is elementwise for every rule except those with per-tensor math
(``rule.elementwise`` false: LAMB's trust ratio), whose ranges must start and stop on
tensor boundaries; either way the result is exactly that of one whole-buffer update.
Once the iterator is returned the step can no longer be skipped.

Packing state is a per-session resource keyed by the op, so every plan that runs the
op shares it. ``Variable.load``, ``Assign`` of the same shape and ``Saver.restore``
write into the existing arrays (the views stay valid); anything that replaces an array
makes the next call re-pack.
"""
import bisect

import numpy as np

from estimator_npu import errors
from estimator_npu.engine import threads
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.train.update_rules import Layout

OPS = OpFamily(__name__)  # this family's op definitions (data)

# One numpy call costs about as much as copying this many float32 elements (~1 us vs
# ~0.3 ns per element, measured on the project's reference machines).
CALL_COST_ELEMENTS = 3000


def use_flat(rule, n_tensors, n_elements, need_flat_grads):
    """Whether to update a dtype group on flat buffers (see the module docstring).

    Flat costs ``n_ops + n_tensors`` calls plus a copy of ``n_elements`` gradient values;
    per tensor costs ``n_ops * n_tensors`` calls.
    """
    if need_flat_grads:
        return True
    n_ops = rule.n_ops
    extra_calls = n_ops * n_tensors - n_ops - n_tensors
    return extra_calls * CALL_COST_ELEMENTS > n_elements


_MAX_CACHED_RANGES = 256
# Flat updates are split across the thread pool in pieces of at least this many elements.
# An update rule makes ~10 passes per element, so a piece of 2^17 elements is ~150 us of
# work: well above a hand-off (20-80 us on the reference VM) and ~1 % of call overhead.
_SPLIT_MIN = 1 << 17
# Every this many updates the slots' subnormal values are flushed to zero (TF's CPU kernels
# run with flush-to-zero; subnormals make numpy's elementwise ops 2-3x slower).
_FLUSH_EVERY = 16

_TRUE = np.array(True)
_TRUE.setflags(write=False)
_FALSE = np.array(False)
_FALSE.setflags(write=False)


class _Unpacked:
    value = None


_NOT_PACKED = ((_Unpacked(), object()),)  # fails ``valid()`` until the first ``pack``


class _Group:
    """The flat buffers of the variables of one dtype."""

    __slots__ = ("layout", "param", "grad", "state", "work", "grad_args", "grad_views",
                 "per_tensor", "ranges", "split", "flush_bufs")

    def __init__(self, layout, param, state, work, grad_args):
        self.layout = layout
        self.param = param
        self.state = state
        self.work = work
        self.grad_args = grad_args
        self.grad = None         # flat mode: the flat gradient buffer
        self.grad_views = None   # flat mode: its per-variable views
        self.per_tensor = None   # per-tensor mode: [(grad arg, param view, state, work)]
        self.ranges = {}         # range updates: (start, stop) -> (param, grad, state, work)
        self.split = (None, None)  # (thread count, range args per piece or None)
        self.flush_bufs = None     # (float, bool) buffers of flush_subnormal_slots

    def flush_subnormal_slots(self):
        """Sets the subnormal values of the optimizer slots to zero, as TF's CPU kernels
        (flush-to-zero) would have. Moments of weights whose gradient stays zero (dead
        ReLUs) decay into float32 subnormals and stay there (0.9 times the smallest
        rounds back to it), and every elementwise op over them gets 2-3x slower.

        Arithmetic, not a masked write: ``s * (|s| >= tiny) + 0`` sets subnormals and
        signed zeros to +0 and keeps every other value (NaN and inf included), exactly as
        ``copyto(s, 0, where=|s| < tiny)``, whose masked loop costs ~37 ns per element
        when the mask is irregular (the zeros of dead units): 670k slots 18 ms -> 0.36."""
        for s in self.state.values():
            if not s.ndim or s.dtype.kind != "f":
                continue
            f, keep = self.flush_bufs or (None, None)
            if f is None or f.dtype != s.dtype or f.shape != s.shape:
                f, keep = np.empty(s.shape, s.dtype), np.empty(s.shape, s.dtype)
                self.flush_bufs = (f, keep)
            np.abs(s, out=f)
            np.greater_equal(f, np.finfo(s.dtype).tiny, out=keep)
            np.multiply(s, keep, out=s)
            np.add(s, s.dtype.type(0), out=s)

    def pieces(self, rule, op):
        """Range arguments splitting a flat update across the thread pool, or ``None``
        (small buffers, one thread, or a rule with per-tensor math). Elementwise rules
        compute the same float operations on any slice: bit-identical to one call."""
        n = threads.num_threads()
        if self.split[0] == n:
            return self.split[1]
        parts = None
        if n > 1 and getattr(rule, "elementwise", True):
            bounds = threads.pieces(self.layout.size, _SPLIT_MIN)
            if len(bounds) > 1:
                parts = [self.range_args(a, b, rule, op) for a, b in bounds]
        self.split = (n, parts)
        return parts

    def make_flat(self):
        self.grad = np.zeros(self.layout.size, self.param.dtype)
        self.grad_views = self.layout.views(self.grad)

    def make_per_tensor(self, rule):
        lay = self.layout
        self.per_tensor = []
        for i, (view, name) in enumerate(zip(lay.views(self.param), lay.names)):
            a, b = lay.offsets[i], lay.offsets[i] + lay.sizes[i]
            state = {k: (v[a:b].reshape(view.shape) if v.ndim else v)
                     for k, v in self.state.items()}
            scratch = [t[a:b].reshape(view.shape) for t in self.work["scratch"]]
            work = rule.workspace(view, Layout([name], [view.shape]), scratch=scratch)
            self.per_tensor.append((self.grad_args[i], view, state, work))
        self.split = (None, None)

    def tensor_pieces(self, rule):
        """Per-tensor mode: ``None`` or the pieces splitting the whole update across the
        thread pool, each a list of ``(grad arg, lo, hi, param, state, work)`` segments
        (element range ``[lo:hi]`` of that variable). Pieces are balanced over all the
        group's elements, so a model whose largest tensor is below the piece size still
        splits; like ``pieces``, bit-identical to one call for elementwise rules."""
        n = threads.num_threads()
        if self.split[0] == n:
            return self.split[1]
        parts = None
        if n > 1 and getattr(rule, "elementwise", True):
            lay = self.layout
            bounds = threads.pieces(lay.size, _SPLIT_MIN)
            if len(bounds) > 1:
                parts = []
                for a, b in bounds:
                    mine = []
                    for i, (off, size) in enumerate(zip(lay.offsets, lay.sizes)):
                        lo, hi = max(a, off) - off, min(b, off + size) - off
                        if lo < hi:
                            sub = Layout([f"{lay.names[i]}[{lo}:{hi}]"], [(hi - lo,)])
                            mine.append((self.grad_args[i], lo, hi) +
                                        self.range_views(off + lo, off + hi, rule, sub))
                    parts.append(mine)
        self.split = (n, parts)
        return parts

    def range_views(self, start, stop, rule, sub):
        """``(param, state, work)`` views of the flat range ``[start:stop]`` of the parameter,
        slot and scratch buffers; ``sub`` is the range's ``Layout``."""
        state = {k: (v[start:stop] if v.ndim else v) for k, v in self.state.items()}
        scratch = [t[start:stop] for t in self.work["scratch"]]
        param = self.param[start:stop]
        return param, state, rule.workspace(param, sub, scratch=scratch)

    def range_args(self, start, stop, rule, op):
        """``(param, grad, state, work)`` for the flat range ``[start:stop]`` (cached)."""
        args = self.ranges.get((start, stop))
        if args is not None:
            return args
        lay = self.layout
        i = bisect.bisect_left(lay.offsets, start)
        j = bisect.bisect_left(lay.offsets, stop)
        aligned = (i < len(lay.offsets) and lay.offsets[i] == start
                   and (stop == lay.size or (j < len(lay.offsets) and lay.offsets[j] == stop)))
        if aligned:
            sub = Layout(lay.names[i:j], lay.shapes[i:j])
        elif getattr(rule, "elementwise", True):
            sub = Layout([f"[{start}:{stop}]"], [(stop - start,)])
        else:
            raise errors.InvalidArgumentError(
                None, op, f"{type(rule).__name__} applies per-tensor math, so grad_hook "
                f"ranges must start and stop on tensor boundaries {lay.offsets + [lay.size]}"
                f"; got [{start}:{stop}]")
        param, state, work = self.range_views(start, stop, rule, sub)
        args = (param, self.grad[start:stop], state, work)
        if len(self.ranges) >= _MAX_CACHED_RANGES:
            self.ranges.clear()
        self.ranges[(start, stop)] = args
        return args


class FlatState:
    """Per-session packing of the variables, slots and shared scalars of one op."""

    def __init__(self, ctx, op):
        a = op.attrs
        self.op = op
        self.rule = a["rule"]
        self.var_stores = [ctx.store(v) for v in a["var_ops"]]
        self.slot_stores = [[ctx.store(s) for s in per_var] for per_var in a["slot_ops"]]
        self.scalar_stores = {n: ctx.store(v) for n, v in a["scalar_ops"].items()}
        self.gs_store = ctx.store(a["global_step_op"]) if a["global_step_op"] else None
        self.watch = _NOT_PACKED
        self.calls = 0
        self.groups = ()
        self.scalar_state = {}
        self.global_step = None

    def valid(self):
        for store, arr in self.watch:
            if store.value is not arr:
                return False
        return True

    def _check_initialized(self, store):
        if store.value is None:
            raise errors.FailedPreconditionError(
                None, self.op, f"Attempting to use uninitialized value {store.op.name}")
        return store.value

    def pack(self, first_grad_arg, need_flat_grads):
        """(Re)builds the flat buffers from the current store values."""
        rule = self.rule
        slot_names = [name for name, _ in rule.slots]
        by_dtype = {}
        for i, store in enumerate(self.var_stores):
            value = self._check_initialized(store)
            for s in self.slot_stores[i]:
                sv = self._check_initialized(s)
                if sv.shape != value.shape:
                    raise errors.InvalidArgumentError(
                        None, self.op, f"Slot {s.op.name} has shape {sv.shape} but its "
                        f"variable {store.op.name} has shape {value.shape}")
            if value.size:
                by_dtype.setdefault(value.dtype, []).append(i)
        watch = []
        groups = []
        for dtype, idx in by_dtype.items():
            layout = Layout([self.var_stores[i].op.name for i in idx],
                            [self.var_stores[i].value.shape for i in idx])
            param = self._flatten([self.var_stores[i] for i in idx], layout, dtype, watch)
            state = {}
            for k, name in enumerate(slot_names):
                state[name] = self._flatten([self.slot_stores[i][k] for i in idx], layout,
                                            dtype, watch)
            groups.append(_Group(layout, param, state, rule.workspace(param, layout),
                                 [first_grad_arg + i for i in idx]))
        self.scalar_state = {}
        for name, store in self.scalar_stores.items():
            self.scalar_state[name] = self._check_initialized(store)
            watch.append((store, store.value))
        for g in groups:
            g.state.update(self.scalar_state)
            if use_flat(rule, len(g.layout.names), g.layout.size, need_flat_grads):
                g.make_flat()
            else:
                g.make_per_tensor(rule)
        if self.gs_store is not None:
            self.global_step = self._check_initialized(self.gs_store)
            watch.append((self.gs_store, self.global_step))
        self.groups = groups
        self.watch = tuple(watch)

    @staticmethod
    def _flatten(stores, layout, dtype, watch):
        flat = np.empty(layout.size, dtype)
        for store, view in zip(stores, layout.views(flat)):
            np.copyto(view, store.value)
            store.value = view
            watch.append((store, view))
        return flat


def _apply_ranges(op, groups, rule, ranges, hyper):
    """Applies ``rule`` to each ``(group, start, stop)`` range as ``ranges`` yields it."""
    cursors = [0] * len(groups)
    for g, start, stop in ranges:
        grp = groups[g]
        if start != cursors[g] or not start <= stop <= grp.layout.size:
            raise errors.InvalidArgumentError(
                None, op, f"grad_hook range ({g}, {start}, {stop}) does not follow the "
                f"previous range of group {g}, which ended at {cursors[g]} (ranges must be "
                f"consecutive and within the group's {grp.layout.size} elements)")
        cursors[g] = stop
        if stop > start:
            param, grad, state, work = grp.range_args(start, stop, rule, op)
            rule.update(param, grad, state, hyper, work)
    for g, grp in enumerate(groups):
        if cursors[g] != grp.layout.size:
            raise errors.InvalidArgumentError(
                None, op, f"grad_hook ranges of group {g} end at {cursors[g]}, not at its "
                f"size {grp.layout.size}: part of the update was never applied")


def _apply_kernel(op, ctx):
    a = op.attrs
    rule = a["rule"]
    static_hyper = dict(a["static_hyper"])
    dyn_names = tuple(a["dynamic_hyper"])
    has_cond = a["has_condition"]
    hook = a["grad_hook"]
    # a repeat of a variable listed twice (optimizer.apply_gradients) leaves the shared
    # scalars to the main op
    finish = rule.finish if rule.scalars and a.get("finish", True) else None
    h0 = 1 if has_cond else 0
    g0 = h0 + len(dyn_names)
    resource = getattr(ctx, "resource", None)
    if resource is not None:
        st = resource(("estimator_npu.train.ApplyUpdates", op), lambda: FlatState(ctx, op))
    else:  # pragma: no cover - every runtime in the engine offers resources
        st = FlatState(ctx, op)

    def apply_updates(*args):
        if has_cond and not args[0]:
            return _FALSE
        if not st.valid():
            st.pack(g0, hook is not None)
        groups = st.groups
        for grp in groups:
            if grp.grad is not None:
                for k, view in zip(grp.grad_args, grp.grad_views):
                    g = args[k]
                    if g is not view:
                        np.copyto(view, g, casting="same_kind")
        ranges = None
        if hook is not None:
            r = hook([grp.grad for grp in groups], [grp.layout for grp in groups])
            if r is not None:
                if hasattr(r, "__next__"):
                    ranges = r
                elif not r:
                    return _FALSE
        hyper = static_hyper.copy()
        for i, name in enumerate(dyn_names):
            hyper[name] = float(args[h0 + i])
        if ranges is None:
            for grp in groups:
                if grp.grad is not None:
                    parts = grp.pieces(rule, op)
                    if parts is None:
                        rule.update(grp.param, grp.grad, grp.state, hyper, grp.work)
                    else:
                        threads.run([lambda a=a: rule.update(a[0], a[1], a[2], hyper, a[3])
                                     for a in parts])
                else:
                    parts = grp.tensor_pieces(rule)
                    if parts is None:
                        for k, param, state, work in grp.per_tensor:
                            rule.update(param, args[k], state, hyper, work)
                    else:
                        flat = {k: np.ravel(args[k]) for k in grp.grad_args}
                        threads.run([lambda mine=mine: [
                            rule.update(p, flat[k][a:b], s, hyper, w)
                            for k, a, b, p, s, w in mine] for mine in parts])
        else:
            _apply_ranges(op, groups, rule, ranges, hyper)
        if finish is not None:
            finish(st.scalar_state, hyper)
        st.calls += 1
        if st.calls % _FLUSH_EVERY == 0:
            for grp in groups:
                grp.flush_subnormal_slots()
        gs = st.global_step
        if gs is not None:
            gs[()] = gs[()] + 1  # item assignment: ~10x cheaper than a 0-d ufunc
        return _TRUE
    return apply_updates


OPS.define("ApplyUpdates", kernel=_apply_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)

__all__ = ["FlatState", "use_flat", "CALL_COST_ELEMENTS"]
