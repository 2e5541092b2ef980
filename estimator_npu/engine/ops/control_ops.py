"""Graph-level control flow: ``cond``, ``case`` and ``while_loop`` (TF1 API and semantics).

Branches and loop bodies are traced once into subgraphs (see ``engine.subgraph``) owned
by one ``If`` / ``While`` op whose inputs are the predicate or loop variables, every outer
tensor the subgraphs capture and the variables they read. At run time::

    If:     out = plan_true(*caps) if pred else plan_false(*caps)   # one branch runs
    While:  while plan_cond(*vars, *caps)[0] and i < maximum_iterations:
                vars = plan_body(*vars, *caps)

When a gradient is taken, the forward op also records what the VJP subgraph reads (per
iteration for a loop) in its last output, a variant "trace"; ``IfGrad`` / ``WhileGrad``
replay the VJP plans over it in reverse.
"""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import Operation, get_default_graph
from estimator_npu.engine.ops.core import convert_to_tensor, make_op
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.shape import TensorShape
from estimator_npu.engine.subgraph import gradient_of, merged_shape, pack_like, trace, zeros_for
from estimator_npu.utils import nest

OPS = OpFamily(__name__)  # this family's op definitions (data)

_SCALAR = TensorShape([])


def _union_inputs(subs):
    """Outer captures of all ``subs`` (deduplicated) and each one's index list into them."""
    outer, index, per_sub = [], {}, []
    for sub in subs:
        idx = []
        for t, _ in sub.captures:
            if t not in index:
                index[t] = len(outer)
                outer.append(t)
            idx.append(index[t])
        per_sub.append(tuple(idx))
    variables = []
    for sub in subs:
        for v in sub.variables():
            if v.outputs[0] not in variables:
                variables.append(v.outputs[0])
    control = []
    for sub in subs:
        control.extend(c for c in sub.outer_control if c not in control)
    return outer, per_sub, variables, control


def _checked(plan):
    if not plan.checked:
        plan.check_initialized()
    return plan


# ------------------------------------------------------------------ cond / case
def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """``tf.cond``: ``true_fn()`` if ``pred`` else ``false_fn()``; only the taken branch runs.

    Both functions must return the same structure of tensors (or operations) with the same
    dtypes. With ``strict=False`` a one-element list or tuple result is unpacked, as TF1.

    Raises:
        TypeError: a function is not callable or ``pred`` is not a boolean scalar.
        ValueError: the branches return different structures or dtypes.
    """
    true_fn = true_fn if true_fn is not None else fn1
    false_fn = false_fn if false_fn is not None else fn2
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    pred = convert_to_tensor(pred)
    if pred.dtype != dtypes.bool or pred.shape.ndims not in (None, 0):
        raise TypeError(f"cond: pred must be a scalar bool tensor, got {pred.dtype.name} "
                        f"{pred.shape} ({pred.name})")
    g = pred.graph
    with g.as_default(), g.name_scope(name or "cond") as scope:
        tsub, tres = trace(true_fn, [], scope + "true_fn", graph=g)
        fsub, fres = trace(false_fn, [], scope + "false_fn", graph=g)
        try:
            nest.assert_same_structure(tres, fres, check_types=False)
        except (ValueError, TypeError) as e:
            raise ValueError(f"cond {scope[:-1]}: true_fn and false_fn must return the same "
                             f"structure: {e}") from None
        for a, b in zip(tsub.outputs, fsub.outputs):
            if a.dtype != b.dtype:
                raise ValueError(f"cond {scope[:-1]}: outputs of true_fn and false_fn must have "
                                 f"the same type: {a.dtype.name}, {b.dtype.name}")
        outer, idx, variables, control = _union_inputs([tsub, fsub])
        specs = [(a.dtype, merged_shape(a.shape, b.shape))
                 for a, b in zip(tsub.outputs, fsub.outputs)]
        op = make_op("If", [pred] + outer + variables, specs + [(dtypes.variant, _SCALAR)],
                     {"subgraphs": (tsub, fsub), "cap_index": idx, "n_caps": len(outer),
                      "n_out": len(specs)}, name="If", control_inputs=control)
    outs = iter(op.outputs[:len(specs)])
    leaves = [op if isinstance(x, Operation) else next(outs) for x in _flat_leaves(tres)]
    result = pack_like(tres, leaves) if nest.is_nested(tres) else leaves[0]
    if not strict and isinstance(result, (list, tuple)) and not hasattr(result, "_fields") \
            and len(result) == 1:
        result = result[0]
    return result


def _flat_leaves(structure):
    from estimator_npu.engine.subgraph import _leaf_value
    return [_leaf_value(x) for x in nest.flatten(structure)]


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """``tf.case``: the function of the first true predicate (``default`` if none is).

    ``pred_fn_pairs`` is a list of ``(pred, fn)`` pairs or a dict. With ``exclusive=True``
    more than one true predicate is an ``InvalidArgumentError`` at run time.
    """
    if isinstance(pred_fn_pairs, dict):
        pairs = list(pred_fn_pairs.items())
    else:
        pairs = list(pred_fn_pairs)
    for p in pairs:
        if not (isinstance(p, (list, tuple)) and len(p) == 2 and callable(p[1])):
            raise TypeError(f"case: each entry of pred_fn_pairs must be a (pred, callable) "
                            f"pair, got {p!r}")
    if not pairs and default is None:
        raise ValueError("case: pred_fn_pairs is empty and no default is given")
    g = get_default_graph()
    with g.name_scope(name):
        all_preds = [convert_to_tensor(p) for p, _ in pairs]
        deps = []
        if exclusive and len(all_preds) > 1:
            from estimator_npu.engine.ops.array_ops import stack
            from estimator_npu.engine.ops.math_ops import cast, reduce_sum
            count = reduce_sum(cast(stack(all_preds), dtypes.int32))
            deps = [make_op("AssertAtMostOne", [count], [(dtypes.int32, _SCALAR)],
                            {"preds": tuple(p.name for p in all_preds)}, name="exclusive")]
        preds = all_preds
        if default is None:  # TF1: the last pair's function is the default
            default = pairs[-1][1]
            pairs, preds = pairs[:-1], preds[:-1]

        def chain(i):
            if i == len(pairs):
                return default()
            return cond(preds[i], pairs[i][1], lambda: chain(i + 1), strict=strict,
                        name=f"case_{i}")
        with g.control_dependencies(deps):
            return chain(0)


def _assert_at_most_one_kernel(op, ctx):
    from estimator_npu import errors
    names = op.attrs["preds"]

    def check(count):
        if count > 1:
            raise errors.InvalidArgumentError(
                None, op, f"{op.name}: more than one condition evaluated as True but "
                f"exclusive=True; conditions: {list(names)}")
        return count
    return check


OPS.define("AssertAtMostOne", kernel=_assert_at_most_one_kernel, grad=NOT_DIFFERENTIABLE,
           stateful=True)


def _if_kernel(op, ctx):
    subs = op.attrs["subgraphs"]
    idx = op.attrs["cap_index"]
    n = op.attrs["n_out"]
    saved = op.attrs.get("saved")
    plans = [sub.compile(ctx, saved[i] if saved else ()) for i, sub in enumerate(subs)]
    counts = [len(saved[i]) if saved else 0 for i in range(2)]

    def run(pred, *rest):
        b = 0 if pred else 1
        out = _checked(plans[b]).fn(*[rest[j] for j in idx[b]])
        tr = (b, out[n:n + counts[b]]) if saved else None
        return out[:n] + (tr,) if n else tr
    return run


def _if_grad(op, *dys):
    subs = op.attrs["subgraphs"]
    grads = [gradient_of(s) for s in subs]
    if "saved" not in op.attrs:
        op.attrs["saved"] = tuple(tuple(gs.saved) for gs in grads)
    n, nc = op.attrs["n_out"], op.attrs["n_caps"]
    outer = list(op.inputs[1:1 + nc])
    variables = list(op.inputs[1 + nc:])
    diff = grads[0].diff_out
    cot = [dys[i] if dys[i] is not None else zeros_for(op.outputs[i]) for i in diff]
    want = [i for i, t in enumerate(outer + variables) if t.dtype.is_differentiable]
    xs = outer + variables
    out = make_op("IfGrad", [op.outputs[n]] + outer + variables + cot,
                  [(xs[i].dtype, xs[i].shape) for i in want],
                  {"forward": op, "want": tuple(want)}, name=op.name.rsplit("/", 1)[-1] + "_grad")
    result = [None] * len(op.inputs)
    for k, i in enumerate(want):
        result[1 + i] = out.outputs[k]
    return result


def _if_grad_kernel(op, ctx):
    fwd = op.attrs["forward"]
    subs = fwd.attrs["subgraphs"]
    idx = fwd.attrs["cap_index"]
    nc = fwd.attrs["n_caps"]
    nv = len(fwd.inputs) - 1 - nc
    want = op.attrs["want"]
    compiled = []
    for b, sub in enumerate(subs):
        gs = gradient_of(sub)
        plan, present = gs.compile(ctx, sub)
        var_pos = [nc + [t for t in fwd.inputs[1 + nc:]].index(v) for v in gs.variables]
        targets = list(idx[b]) + var_pos  # positions in (outer + variables) of xs after args
        compiled.append((plan, present, targets))

    def run(tr, *rest):
        b, saved = tr
        xs = rest[:nc + nv]
        dys = rest[nc + nv:]
        plan, present, targets = compiled[b]
        res = iter(plan.fn(*saved, *[xs[j] for j in idx[b]], *dys))
        got = {}
        for pos, p in zip(targets, present):
            if p:
                got[pos] = next(res)
        out = tuple(got[i] if i in got else _zeros(xs[i]) for i in want)
        return out if len(out) != 1 else out[0]
    return run


def _zeros(value):
    from estimator_npu.engine.ops.tensor_array_ops import TAValue
    if isinstance(value, TAValue):
        return TAValue.empty()
    return np.zeros_like(value)


_if_kernel.subplans = lambda op, ctx: [
    (name, sub.compile(ctx, op.attrs["saved"][i] if op.attrs.get("saved") else ()))
    for i, (name, sub) in enumerate(zip(("true branch", "false branch"),
                                        op.attrs["subgraphs"]))]
_if_grad_kernel.subplans = lambda op, ctx: [
    (f"gradient of the {name}", gradient_of(sub).compile(ctx, sub)[0])
    for name, sub in zip(("true branch", "false branch"), op.attrs["forward"].attrs["subgraphs"])]

OPS.define("If", kernel=_if_kernel, grad=_if_grad, may_alias=True, stateful=True,
           subgraphs=True)
OPS.define("IfGrad", kernel=_if_grad_kernel, grad=NOT_DIFFERENTIABLE, may_alias=True,
           subgraphs=True)
