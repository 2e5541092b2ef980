"""``tf.while_loop`` (TF1 arguments and semantics) and its gradient.

The ``While`` op's inputs are the loop variables (TensorArrays by their flows), the
``maximum_iterations`` tensor when given, the outer tensors the condition and body
capture, and the variables they read. Its outputs are the final loop variables and a
variant trace: with ``back_prop=True`` and a gradient built, one row per iteration of the
forward values the body's VJP reads. ``WhileGrad`` walks the rows backwards::

    d_vars = dys; d_caps = 0
    for row in reversed(trace):
        d_vars, d_caps_i = body_vjp(*row, *caps, *d_vars)
        d_caps += d_caps_i
"""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import get_default_graph
from estimator_npu.engine.ops.control_ops import _checked, _union_inputs, _zeros
from estimator_npu.engine.ops.core import convert_to_tensor, make_op
from estimator_npu.engine.ops.tensor_array_ops import TAValue
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.shape import TensorShape, as_shape
from estimator_npu.engine.subgraph import (flatten_values, gradient_of, pack_like, trace,
                                           zeros_for)
from estimator_npu.utils import nest

OPS = OpFamily(__name__)  # this family's op definitions (data)

_SCALAR = TensorShape([])


def _invariants(flat, loop_vars, shape_invariants):
    if shape_invariants is None:
        return [t.shape for t in flat]
    try:
        nest.assert_same_structure(loop_vars, shape_invariants, check_types=False)
        inv = [as_shape(s) for s in nest.flatten(shape_invariants)]
    except (ValueError, TypeError):
        # A TensorArray's invariant may be given as one shape for its flow.
        inv = [as_shape(s) for s in nest.flatten(shape_invariants)]
        if len(inv) != len(flat):
            raise ValueError(f"while_loop: shape_invariants {shape_invariants!r} does not match "
                             f"the structure of loop_vars") from None
    for t, s in zip(flat, inv):
        if t.dtype == dtypes.variant:
            continue
        if not s.is_compatible_with(t.shape):
            raise ValueError(f"The shape invariant specified for {t.name} is not compatible "
                             f"with the initial shape of the loop variable. It enters the loop "
                             f"with shape {t.shape}, but the specified shape invariant is {s}.")
    return [s if t.dtype != dtypes.variant else t.shape for t, s in zip(flat, inv)]


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, name=None, maximum_iterations=None,
               return_same_structure=False):
    """``tf.while_loop``: repeats ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``.

    Args:
        cond: callable returning a boolean scalar tensor.
        body: callable returning loop variables of the same structure and dtypes.
        loop_vars: a (nested) list/tuple/namedtuple of tensors and TensorArrays.
        shape_invariants: shapes the loop variables keep across iterations (defaults to
            their initial shapes).
        parallel_iterations, swap_memory: accepted; iterations run one after another.
        back_prop: ``False`` makes the loop not differentiable (gradients are ``None``).
        maximum_iterations: optional int tensor bounding the number of iterations.
        return_same_structure: return the structure even for a single loop variable.

    Raises:
        TypeError: ``cond`` or ``body`` is not callable.
        ValueError: no loop variables, or the body changes a structure, dtype or shape.
    """
    if not callable(cond):
        raise TypeError("cond must be callable.")
    if not callable(body):
        raise TypeError("body must be callable.")
    if loop_vars is None or (isinstance(loop_vars, (list, tuple)) and not loop_vars):
        raise ValueError("No loop variables provided")
    g = get_default_graph()
    with g.name_scope(name or "while") as scope:
        flat = flatten_values(loop_vars)
        inv = _invariants(flat, loop_vars, shape_invariants)
        specs = [(t.dtype, s) for t, s in zip(flat, inv)]
        csub, cres = trace(cond, specs, scope + "cond", args_structure=loop_vars)
        if len(csub.outputs) != 1 or csub.outputs[0].dtype != dtypes.bool or \
                csub.outputs[0].shape.ndims not in (None, 0):
            raise ValueError(f"while_loop {scope[:-1]}: cond must return a boolean scalar "
                             f"tensor, got {cres!r}")
        bsub, bres = trace(body, specs, scope + "body", args_structure=loop_vars)
        if isinstance(loop_vars, (list, tuple)) and not isinstance(bres, (list, tuple)):
            bres = [bres]
        _check_body(scope[:-1], flat, inv, bsub, loop_vars, bres)
        extra = []
        if maximum_iterations is not None:
            extra = [convert_to_tensor(maximum_iterations, name="maximum_iterations")]
            if not extra[0].dtype.is_integer:
                raise TypeError(f"maximum_iterations must be an integer tensor, got "
                                f"{extra[0].dtype.name}")
        outer, idx, variables, control = _union_inputs([csub, bsub])
        op = make_op("While", flat + extra + outer + variables,
                     specs + [(dtypes.variant, _SCALAR)],
                     {"subgraphs": (csub, bsub), "cap_index": idx, "n_vars": len(flat),
                      "has_max": bool(extra), "n_caps": len(outer),
                      "back_prop": bool(back_prop)},
                     name="While", control_inputs=control)
    outs = list(op.outputs[:len(flat)])
    structure = bres if nest.is_nested(loop_vars) else loop_vars
    result = pack_like(structure, outs)
    if not return_same_structure and len(outs) == 1 and isinstance(result, (list, tuple)):
        return result[0]
    return result


def _check_body(where, flat, inv, bsub, loop_vars, bres):
    try:
        nest.assert_same_structure(loop_vars if nest.is_nested(loop_vars) else [loop_vars],
                                   bres if nest.is_nested(loop_vars) else [bres],
                                   check_types=False)
    except (ValueError, TypeError) as e:
        raise ValueError(f"while_loop {where}: body must return the structure of loop_vars: "
                         f"{e}") from None
    if len(bsub.outputs) != len(flat):
        raise ValueError(f"while_loop {where}: body returned {len(bsub.outputs)} tensors for "
                         f"{len(flat)} loop variables")
    for t, s, out in zip(flat, inv, bsub.outputs):
        if out.dtype != t.dtype:
            raise ValueError(f"Input tensor '{t.name}' enters the loop with type "
                             f"{t.dtype.name}, but has type {out.dtype.name} after one "
                             "iteration.")
        if not s.is_compatible_with(out.shape) or (s.values is not None and out.shape.values is
                                                   not None and not _more_specific(out.shape, s)):
            raise ValueError(f"Input tensor '{t.name}' enters the loop with shape {s}, but has "
                             f"shape {out.shape} after one iteration. To allow the shape to "
                             "vary across iterations, use the `shape_invariants` argument of "
                             "tf.while_loop to specify a less-specific shape.")


def _more_specific(shape, invariant):
    return all(i is None or s == i for s, i in zip(shape.values, invariant.values))


def _while_kernel(op, ctx):
    csub, bsub = op.attrs["subgraphs"]
    n = op.attrs["n_vars"]
    has_max = op.attrs["has_max"]
    cidx, bidx = op.attrs["cap_index"]
    saved = op.attrs.get("saved") if op.attrs["back_prop"] else None
    cplan = csub.compile(ctx)
    bplan = bsub.compile(ctx, saved or ())
    ns = len(saved) if saved else 0
    exact = ns == 0 and not bsub.control_outputs
    first = n + (1 if has_max else 0)

    def run(*vals):
        lv = vals[:n]
        limit = max(int(vals[n]), 0) if has_max else -1  # -1: no bound
        caps = vals[first:]
        cc = tuple(caps[j] for j in cidx)
        bc = tuple(caps[j] for j in bidx)
        cfn = _checked(cplan).fn
        bfn = _checked(bplan).fn
        rows = [] if saved else None
        i = 0
        while i != limit and cfn(*lv, *cc)[0]:
            out = bfn(*lv, *bc)
            if exact:
                lv = out
            else:
                lv = out[:n]
                if rows is not None:
                    rows.append(out[n:n + ns])
            i += 1
        return tuple(lv) + (rows,)
    return run


def _while_grad(op, *dys):
    if not op.attrs["back_prop"]:
        return [None] * len(op.inputs)
    _, bsub = op.attrs["subgraphs"]
    gs = gradient_of(bsub)
    if "saved" not in op.attrs:
        op.attrs["saved"] = tuple(gs.saved)
    n = op.attrs["n_vars"]
    first = n + (1 if op.attrs["has_max"] else 0)
    nc = op.attrs["n_caps"]
    bidx = op.attrs["cap_index"][1]
    outer = list(op.inputs[first:first + nc])
    variables = list(op.inputs[first + nc:])
    body_caps = [outer[j] for j in bidx]
    body_vars = list(gs.variables)
    cot = [dys[i] if dys[i] is not None else zeros_for(op.outputs[i]) for i in gs.diff_out]
    # xs of the VJP after the loop variables: body captures then body variables
    xs = body_caps + body_vars
    want_caps = [k for k, t in enumerate(xs) if t.dtype.is_differentiable]
    specs = [(op.inputs[i].dtype, op.inputs[i].shape) for i in gs.diff_out]
    specs += [(xs[k].dtype, xs[k].shape) for k in want_caps]
    gop = make_op("WhileGrad", [op.outputs[n]] + body_caps + body_vars + cot, specs,
                  {"forward": op, "want": tuple(want_caps)},
                  name=op.name.rsplit("/", 1)[-1] + "_grad")
    result = [None] * len(op.inputs)
    for k, i in enumerate(gs.diff_out):
        result[i] = gop.outputs[k]
    m = len(gs.diff_out)
    for k, x in enumerate(want_caps):
        if x < len(body_caps):
            pos = first + bidx[x]
        else:
            pos = first + nc + variables.index(xs[x])
        g = gop.outputs[m + k]
        result[pos] = g if result[pos] is None else result[pos] + g
    return result


def _while_grad_kernel(op, ctx):
    fwd = op.attrs["forward"]
    _, bsub = fwd.attrs["subgraphs"]
    gs = gradient_of(bsub)
    plan, present = gs.compile(ctx, bsub)
    plan = _checked(plan)
    want = op.attrs["want"]
    n_args = gs.n_args
    diff = gs.diff_out
    nx = len(present) - n_args  # captures + variables
    ncb = len(bsub.proxies)
    # Where each result of the VJP plan goes: the present argument cotangents feed the
    # next (earlier) iteration's loop-variable cotangents, the rest accumulate.
    arg_at = {a: k for k, a in enumerate(a for a, p in enumerate(present[:n_args]) if p)}
    d_at = [arg_at.get(i) for i in diff]
    n_present = len(arg_at)
    x_at = [(j, n_present + k)
            for k, j in enumerate(j for j, p in enumerate(present[n_args:]) if p)]

    def run(rows, *rest):
        xs = rest[:nx]
        caps = rest[:ncb]
        dys = rest[nx:]
        acc = [None] * nx
        owned = [False] * nx  # accumulate in place once the sum is our own array
        fn = plan.fn
        for row in reversed(rows or ()):
            res = fn(*row, *caps, *dys)
            dys = tuple([None if k is None else res[k] for k in d_at])
            for j, k in x_at:
                v = res[k]
                a = acc[j]
                if a is None:
                    acc[j] = v
                elif owned[j]:
                    if type(a) is TAValue:
                        a.add_into(v)
                    else:
                        a += v
                else:
                    acc[j] = a.add(v) if type(a) is TAValue else a + v
                    owned[j] = type(acc[j]) in (np.ndarray, TAValue)
        out = tuple(dys) + tuple(acc[j] if acc[j] is not None else _zeros(xs[j])
                                 for j in want)
        return out if len(out) != 1 else out[0]
    return run


_while_kernel.subplans = lambda op, ctx: [
    ("condition", op.attrs["subgraphs"][0].compile(ctx)),
    ("body", op.attrs["subgraphs"][1].compile(
        ctx, (op.attrs.get("saved") or ()) if op.attrs["back_prop"] else ()))]
_while_grad_kernel.subplans = lambda op, ctx: [
    ("gradient of the body", gradient_of(op.attrs["forward"].attrs["subgraphs"][1]).compile(
        ctx, op.attrs["forward"].attrs["subgraphs"][1])[0])]

OPS.define("While", kernel=_while_kernel, grad=_while_grad, may_alias=True, stateful=True,
           subgraphs=True)
OPS.define("WhileGrad", kernel=_while_grad_kernel, grad=NOT_DIFFERENTIABLE, may_alias=True,
           subgraphs=True)

__all__ = ["while_loop"]
