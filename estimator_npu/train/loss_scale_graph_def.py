"""TF encodings of the loss-scaling ops (``train.loss_scale``), so that real TF imports a
graph trained with ``LossScaleOptimizer`` / ``NPULossScaleOptimizer`` and runs its step:

* ``UnscaleGradients(scale, g...)``: ``inv = 1 / scale`` (float32, cast to each
  gradient's dtype), ``g * inv``, and the finite flag (``All`` of ``IsFinite`` of every
  unscaled gradient, flattened, stacked); an ``IdentityN`` named as the op gives the
  outputs in our order (``op:i`` names the same tensor in both graphs);
* ``AllFinite(t...)``: the same flag;
* ``UpdateLossScale(finite)``: the dynamic rule (``loss_scale.next_loss_scale``) as
  ``Select``s on snapshots of ``loss_scale`` / ``good_steps`` / ``bad_steps``, three
  ``Assign``s after all three new values, and a ``NoOp`` named as the op.

The condition of the update itself is ``ApplyUpdates``' (``apply_op_graph_def``). The
saturation-mode overflow register of an NPU session has no TF form (TF reads only the
values).
"""
import numpy as np

from estimator_npu.engine import graph_def as gd
from estimator_npu.train.graph_def_ops import _controls, _node

_BOOL, _INT32 = 10, 3


def _finite_nodes(name, tensors, op):
    """Nodes computing "every element of ``tensors`` (input names, dtypes) is finite",
    the last one named ``name``."""
    nodes, flags = [gd._const_node(name + "/flat", [-1]), gd._const_node(name + "/axis", 0)], []
    for i, (t, dt) in enumerate(tensors):
        sfx = f"_{i}" if i else ""
        isf = _node(f"{name}/IsFinite{sfx}", "IsFinite", [t], op, T=dt)
        flat = _node(f"{name}/Reshape{sfx}", "Reshape", [isf.name, name + "/flat"], op,
                     T=_BOOL, Tshape=_INT32)
        every = _node(f"{name}/All{sfx}", "All", [flat.name, name + "/axis"], op, Tidx=_INT32)
        every.attr["keep_dims"].b = False
        nodes += [isf, flat, every]
        flags.append(every.name)
    stack = _node(name + "/stack", "Pack", flags, op, T=_BOOL)
    stack.attr["N"].i, stack.attr["axis"].i = len(flags), 0
    out = _node(name, "All", [stack.name, name + "/axis"], op, Tidx=_INT32)
    out.attr["keep_dims"].b = False
    return nodes + [stack, out]


def _unscale(op):
    name = op.name
    scale, grads = op.inputs[0], op.inputs[1:]
    if scale.dtype.name != "float32":
        raise ValueError("UnscaleGradients: the scale is not float32")
    one = gd._const_node(name + "/one", 1.0, np.float32)
    inv = _node(name + "/inv", "RealDiv", [one.name, gd._input_name(scale)], op,
                T=scale.dtype)
    nodes, outs, casts = [one, inv], [], {}
    for i, g in enumerate(grads):
        dt = g.dtype
        factor = inv.name
        if dt.name != "float32":
            if dt.name not in casts:
                c = _node(f"{name}/inv_{dt.name}", "Cast", [inv.name], op, SrcT=scale.dtype,
                          DstT=dt)
                c.attr["Truncate"].b = False
                casts[dt.name] = c
                nodes.append(c)
            factor = casts[dt.name].name
        mul = _node(f"{name}/mul" + (f"_{i}" if i else ""), "Mul",
                    [gd._input_name(g), factor], op, T=dt)
        nodes.append(mul)
        outs.append((mul.name, dt))
    nodes += _finite_nodes(name + "/finite", outs, op)
    ident = _node(name, "IdentityN", [n for n, _ in outs] + [name + "/finite"], op)
    ident.attr["T"].list.type.extend([gd.dtype_enum(dt) for _, dt in outs] + [_BOOL])
    return nodes + [_controls(ident, op)]


def _all_finite(op):
    nodes = _finite_nodes(op.name, [(gd._input_name(t), t.dtype) for t in op.inputs], op)
    _controls(nodes[-1], op)
    return nodes


def _update_loss_scale(op):
    a, name = op.attrs, op.name
    finite = gd._input_name(op.inputs[0])
    nodes = []

    def const(key, value, dt):
        nodes.append(gd._const_node(f"{name}/{key}", value, dt))
        return nodes[-1].name

    def node(key, op_type, inputs, **types):
        nodes.append(_node(f"{name}/{key}", op_type, inputs, op, **types))
        return nodes[-1].name

    f32, i32 = np.float32, np.int32
    scale = node("scale", "Identity", [a["scale_op"].name], T=1)
    good = node("good", "Identity", [a["good_op"].name], T=_INT32)
    bad = node("bad", "Identity", [a["bad_op"].name], T=_INT32)
    one_i = const("one", 1, i32)
    zero_i = const("zero", 0, i32)
    good1 = node("good_plus_1", "AddV2", [good, one_i], T=_INT32)
    bad1 = node("bad_plus_1", "AddV2", [bad, one_i], T=_INT32)
    incr = node("incr", "GreaterEqual", [good1, const("incr_every", a["incr_every_n_steps"],
                                                           i32)], T=_INT32)
    decr = node("decr", "GreaterEqual", [bad1, const(
        "decr_every", a["decr_every_n_nan_or_inf"], i32)], T=_INT32)
    grown = node("grown", "Mul", [scale, const("incr_ratio", a["incr_ratio"], f32)], T=1)
    grown_ok = node("grown_finite", "IsFinite", [grown], T=1)
    shrunk = node("shrunk", "Maximum", [const("min_scale", 1.0, f32), node(
        "decayed", "Mul", [scale, const("decr_ratio", a["decr_ratio"], f32)], T=1)], T=1)

    def select(key, c, t, e, dt):
        return node(key, "Select", [c, t, e], T=dt)
    up = select("scale_up", incr, select("scale_grown", grown_ok, grown, scale, 1), scale, 1)
    down = select("scale_down", decr, shrunk, scale, 1)
    new_scale = select("new_scale", finite, up, down, 1)
    new_good = select("new_good", finite, select("good_up", incr, zero_i, good1, _INT32),
                      zero_i, _INT32)
    new_bad = select("new_bad", finite, select("bad_up", incr, zero_i, bad, _INT32),
                     select("bad_down", decr, zero_i, bad1, _INT32), _INT32)
    after = ["^" + new_scale, "^" + new_good, "^" + new_bad]
    assigns = []
    for key, var, value, dt in (("Assign", a["scale_op"], new_scale, 1),
                                ("Assign_1", a["good_op"], new_good, _INT32),
                                ("Assign_2", a["bad_op"], new_bad, _INT32)):
        n = _node(f"{name}/{key}", "Assign", [var.name, value] + after, op, T=dt)
        n.attr["use_locking"].b = False
        n.attr["validate_shape"].b = True
        n.attr["_class"].list.s.append(b"loc:@" + var.name.encode())
        nodes.append(n)
        assigns.append("^" + n.name)
    return nodes + [_controls(_node(name, "NoOp", assigns, op), op)]


gd.EXPORT_ENCODERS.update({"UnscaleGradients": _unscale, "AllFinite": _all_finite,
                           "UpdateLossScale": _update_loss_scale})
