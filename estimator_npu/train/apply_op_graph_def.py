"""The TF encoding of the fused ``ApplyUpdates`` op (``graph_def.EXPORT_ENCODERS``), so
that real TF imports our training graphs and its ``train_op`` runs there.

TF1's ``apply_gradients`` writes, under the optimizer's name ``N``:

* one ``Apply<Rule>`` node per variable (``N/update_<var>/ApplyAdam`` ...) taking the
  variable, its slots, the hyper-parameters (``Const`` nodes ``N/learning_rate`` ...,
  of the variable's dtype, or the graph's own tensors) and the gradient;
* Adam: ``N/mul``/``N/Assign`` (``beta1_power *= beta1``) and ``N/mul_1``/``N/Assign_1``
  after every update;
* ``N/update``: a ``NoOp`` after all of that (and every update after
  ``N/gradients_ready``: a ``NoOp`` after every gradient and the op's control inputs);
* ``N``: ``AssignAdd(global_step, 1)`` after ``N/update`` (a ``NoOp`` without a global
  step).

The rules compute as TF's kernels do (``update_rules``), so a step in TF gives the same
numbers. An ``ApplyUpdates`` TF has no equivalent for (a condition, a gradient hook, a
rule such as LAMB, an output that is consumed) raises ``ValueError``: the generic form.
"""
from estimator_npu.engine import graph_def as gd
from estimator_npu.engine import tf_protos as pb

# rule class -> (TF op type, [inputs after the variable, as slot names / "hyper:<key>" /
# "scalar:<name>" / "grad"], {bool attr: rule attribute or constant})
_RULES = {
    "GradientDescent": ("ApplyGradientDescent", ["hyper:learning_rate", "grad"], {}),
    "Momentum": ("ApplyMomentum", ["momentum", "hyper:learning_rate", "grad",
                                   "hyper:momentum"], {"use_nesterov": "use_nesterov"}),
    "Adam": ("ApplyAdam", ["m", "v", "scalar:beta1_power", "scalar:beta2_power",
                           "hyper:learning_rate", "hyper:beta1", "hyper:beta2",
                           "hyper:epsilon", "grad"], {"use_nesterov": False}),
    "Adagrad": ("ApplyAdagrad", ["accumulator", "hyper:learning_rate", "grad"],
                {"update_slots": True}),
}
_RMSPROP = ["rms", "momentum", "hyper:learning_rate", "hyper:decay", "hyper:momentum",
            "hyper:epsilon", "grad"]
_CENTERED = ["mg"] + _RMSPROP


def _rule_spec(rule):
    kind = type(rule).__name__
    if kind == "RMSProp":
        return ("ApplyCenteredRMSProp", _CENTERED, {}) if rule.centered else \
            ("ApplyRMSProp", _RMSPROP, {})
    spec = _RULES.get(kind)
    if spec is None:
        raise ValueError(f"ApplyUpdates: rule {kind} has no TF op")
    return spec


def _class_attr(node, var_op):
    node.attr["_class"].list.s.append(b"loc:@" + var_op.name.encode())


def encode_apply_updates(op):
    a = op.attrs
    if a.get("has_condition") or a.get("grad_hook") is not None:
        raise ValueError("ApplyUpdates with a condition or gradient hook has no TF form")
    if op.outputs and op.outputs[0].consumers():
        raise ValueError("ApplyUpdates' output is consumed")
    rule = a["rule"]
    tf_type, args, flags = _rule_spec(rule)
    slot_names = [s for s, _ in rule.slots]
    name, dev = op.name, op.device or ""
    n_dyn = len(a["dynamic_hyper"])
    dyn = dict(zip(a["dynamic_hyper"], op.inputs[:n_dyn]))
    grads = op.inputs[n_dyn:]
    # Every update waits for every gradient (and the op's control inputs, the batch-norm
    # updates of a minimize under control_dependencies): TF's ref variables are updated
    # in place, so an Apply node running early would change a variable that a gradient
    # still reads. Ours applies after all gradients are computed; so does this.
    ready = pb.NodeDef(name=f"{name}/gradients_ready", op="NoOp", device=dev, input=sorted(
        {"^" + t.op.name for t in op.inputs} | {"^" + c.name for c in op.control_inputs}))
    nodes, consts, updates = [ready], {}, []

    def hyper(key, dt):
        if key in dyn:
            t = dyn[key]
            if t.dtype == dt:
                return gd._input_name(t)
            cname = f"{name}/Cast_{key}_{dt.name}"
            if cname not in consts:
                c = pb.NodeDef(name=cname, op="Cast", input=[gd._input_name(t)], device=dev)
                c.attr["SrcT"].type, c.attr["DstT"].type = gd.dtype_enum(t.dtype), \
                    gd.dtype_enum(dt)
                c.attr["Truncate"].b = False
                consts[cname] = c
                nodes.append(c)
            return cname
        cname = f"{name}/{key}" + ("" if dt.name == "float32" else f"_{dt.name}")
        if cname not in consts:
            consts[cname] = gd._const_node(cname, a["static_hyper"][key], dt.np)
            nodes.append(consts[cname])
        return cname

    for var_op, slots, g in zip(a["var_ops"], a["slot_ops"], grads):
        dt = var_op.outputs[0].dtype
        by_slot = dict(zip(slot_names, slots))
        inputs = [var_op.name]
        for arg in args:
            if arg == "grad":
                inputs.append(gd._input_name(g))
            elif arg.startswith("hyper:"):
                inputs.append(hyper(arg[6:], dt))
            elif arg.startswith("scalar:"):
                inputs.append(a["scalar_ops"][arg[7:]].name)
            else:
                inputs.append(by_slot[arg].name)
        node = pb.NodeDef(name=f"{name}/update_{var_op.name}/{tf_type}", op=tf_type,
                          input=inputs + ["^" + ready.name], device=dev)
        node.attr["T"].type = gd.dtype_enum(dt)
        node.attr["use_locking"].b = False
        for key, src in flags.items():
            node.attr[key].b = bool(getattr(rule, src) if isinstance(src, str) else src)
        _class_attr(node, var_op)
        nodes.append(node)
        updates.append(node.name)
    finish = list(updates)
    for i, (scalar, beta) in enumerate((("beta1_power", "beta1"), ("beta2_power", "beta2"))
                                       if type(rule).__name__ == "Adam" else ()):
        var = a["scalar_ops"][scalar]
        dt = var.outputs[0].dtype
        suffix = f"_{i}" if i else ""
        mul = pb.NodeDef(name=f"{name}/mul{suffix}", op="Mul",
                         input=[var.name, hyper(beta, dt)] + ["^" + u for u in updates],
                         device=dev)
        mul.attr["T"].type = gd.dtype_enum(dt)
        assign = pb.NodeDef(name=f"{name}/Assign{suffix}", op="Assign",
                            input=[var.name, mul.name], device=dev)
        assign.attr["T"].type = gd.dtype_enum(dt)
        assign.attr["use_locking"].b = False
        assign.attr["validate_shape"].b = True
        _class_attr(assign, var)
        nodes += [mul, assign]
        finish.append(assign.name)
    gs = a.get("global_step_op")
    done = pb.NodeDef(name=f"{name}/update" if gs is not None else name, op="NoOp",
                      input=["^" + u for u in finish], device=dev)
    nodes.append(done)
    if gs is not None:
        one = gd._const_node(f"{name}/value", 1, gs.outputs[0].dtype.np)
        step = pb.NodeDef(name=name, op="AssignAdd", input=[gs.name, one.name, "^" + done.name],
                          device=dev)
        step.attr["T"].type = gd.dtype_enum(gs.outputs[0].dtype)
        step.attr["use_locking"].b = False
        _class_attr(step, gs)
        nodes += [one, step]
    return nodes


gd.EXPORT_ENCODERS["ApplyUpdates"] = encode_apply_updates
