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

Adadelta, FTRL (``ApplyFtrl``; ``ApplyFtrlV2`` with an l2 shrinkage), ProximalAdagrad
and ProximalGradientDescent have their ``Apply*`` ops; LAMB, which TF has no op for, is
written as the BERT reference optimizer's elementwise ops and ``Assign``s. A condition
(loss scaling) gates every update and the global step behind a ``Switch``, joined by a
``Merge`` that the op's ``NoOp`` waits for.

The rules compute as TF's kernels do (``update_rules``), so a step in TF gives the same
numbers. An ``ApplyUpdates`` TF has no equivalent for (a gradient hook, an output that
is consumed) raises ``ValueError``: the generic form.
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
    "Adadelta": ("ApplyAdadelta", ["accum", "accum_update", "hyper:learning_rate",
                                   "hyper:rho", "hyper:epsilon", "grad"], {}),
    "ProximalAdagrad": ("ApplyProximalAdagrad", ["accumulator", "hyper:learning_rate",
                                                 "hyper:l1", "hyper:l2", "grad"], {}),
    "ProximalGradientDescent": ("ApplyProximalGradientDescent",
                                ["hyper:learning_rate", "hyper:l1", "hyper:l2", "grad"], {}),
}
_FTRL = ["accum", "linear", "grad", "hyper:learning_rate", "hyper:l1", "hyper:l2",
         "hyper:lr_power"]
_FTRL_V2 = _FTRL[:-1] + ["hyper:l2_shrinkage", "hyper:lr_power"]
_RMSPROP = ["rms", "momentum", "hyper:learning_rate", "hyper:decay", "hyper:momentum",
            "hyper:epsilon", "grad"]
_CENTERED = ["mg"] + _RMSPROP


def _rule_spec(rule, static, dynamic=()):
    kind = type(rule).__name__
    if kind == "Ftrl":
        # TF1's FtrlOptimizer: ApplyFtrl, or ApplyFtrlV2 with an l2 shrinkage
        return ("ApplyFtrl", _FTRL, {"multiply_linear_by_lr": False}) if \
            "l2_shrinkage" not in dynamic and static.get("l2_shrinkage", 0.0) <= 0.0 else \
            ("ApplyFtrlV2", _FTRL_V2, {"multiply_linear_by_lr": False})
    if kind == "RMSProp":
        return ("ApplyCenteredRMSProp", _CENTERED, {}) if rule.centered else \
            ("ApplyRMSProp", _RMSPROP, {})
    spec = _RULES.get(kind)
    if spec is None:
        raise ValueError(f"ApplyUpdates: rule {kind} has no TF op")
    return spec


def _lamb_nodes(scope, rule, var_op, slots, grad, dt, hyper, static, after, dev):
    """LAMB for one variable as the BERT reference optimizer writes it (TF has no LAMB
    op), in the order our rule computes (``update_rules.LAMB``)::

        m' = m * b1 + g * (1 - b1);  v' = v * b2 + (g * g) * (1 - b2)
        u = m' / (sqrt(v') + eps) [+ p * wd];  r = ||p|| / ||u|| (1 if either is 0)
        Assign(p, p - (lr * r) * u), Assign(m, m'), Assign(v, v')

    (``1 - b`` computed in Python, as the reference does; the norms' sums over the
    flattened tensors, the order TF's full reductions take)."""
    nodes, T = [], gd.dtype_enum(dt)

    def node(key, op_type, inputs, **attrs):
        n = pb.NodeDef(name=f"{scope}/{key}", op=op_type, input=list(inputs), device=dev)
        if op_type != "Const":
            n.attr["T"].type = T
        for k, v in attrs.items():
            n.attr[k].CopyFrom(v)
        nodes.append(n)
        return n.name

    def const(key, value):
        c = gd._const_node(f"{scope}/{key}", value, dt.np)
        c.device = dev
        nodes.append(c)
        return c.name

    p, m, v = var_op.name, slots["m"].name, slots["v"].name
    b1, b2 = hyper("beta1", dt), hyper("beta2", dt)
    if "beta1" in static and "beta2" in static:
        c1, c2 = const("one_minus_beta1", 1.0 - static["beta1"]), \
            const("one_minus_beta2", 1.0 - static["beta2"])
    else:
        raise ValueError("LAMB with tensor betas has no TF form here")
    m_new = node("next_m", "AddV2", [node("mul", "Mul", [m, b1, after]),
                                     node("mul_1", "Mul", [grad, c1])])
    sq = node("mul_2", "Mul", [grad, grad])
    v_new = node("next_v", "AddV2", [node("mul_3", "Mul", [v, b2, after]),
                                     node("mul_4", "Mul", [sq, c2])])
    u = node("truediv", "RealDiv", [m_new, node("add", "AddV2", [
        node("Sqrt", "Sqrt", [v_new]), hyper("epsilon", dt)])])
    wd = static.get("weight_decay_rate")
    if (wd is None or wd) and rule.uses_weight_decay(var_op.name):
        u = node("add_1", "AddV2", [u, node("mul_5", "Mul", [p, hyper(
            "weight_decay_rate", dt), after])])
    flat = gd._const_node(f"{scope}/flat", [-1])
    axis = gd._const_node(f"{scope}/axis", 0)
    nodes += [flat, axis]
    idx = pb.AttrValue(type=3)
    keep = pb.AttrValue(b=False)

    def norm(key, x):
        sq = node(key + "/square", "Mul", [x, x] + ([after] if x == p else []))
        r = node(key + "/Reshape", "Reshape", [sq, flat.name], Tshape=idx)
        return node(key + "/Sqrt", "Sqrt", [node(key + "/Sum", "Sum", [r, axis.name],
                                                 Tidx=idx, keep_dims=keep)])
    w_norm, u_norm = norm("w_norm", p), norm("u_norm", u)
    zero, one = const("zero", 0.0), const("one", 1.0)
    ok = node("LogicalAnd", "LogicalAnd", [
        node("Greater", "Greater", [w_norm, zero]),
        node("Greater_1", "Greater", [u_norm, zero])])
    for n in nodes[-3:]:
        if n.op == "LogicalAnd":
            del n.attr["T"]
    ratio = node("ratio", "Select", [ok, node("div", "RealDiv", [w_norm, u_norm]), one])
    step = node("mul_6", "Mul", [node("mul_7", "Mul", [hyper("learning_rate", dt), ratio]),
                                 u])
    p_new = node("next_param", "Sub", [p, step])
    for key, var, value in (("Assign", p, p_new), ("Assign_1", m, m_new),
                            ("Assign_2", v, v_new)):
        # after every new value: m' and v' are read by the parameter's update
        a = pb.NodeDef(name=f"{scope}/{key}", op="Assign", device=dev,
                       input=[var, value, "^" + p_new])
        a.attr["T"].type = T
        a.attr["use_locking"].b = False
        a.attr["validate_shape"].b = True
        a.attr["_class"].list.s.append(b"loc:@" + var.encode())
        nodes.append(a)
    return nodes


def _class_attr(node, var_op):
    node.attr["_class"].list.s.append(b"loc:@" + var_op.name.encode())


def encode_apply_updates(op):
    a = op.attrs
    if a.get("grad_hook") is not None:
        raise ValueError("ApplyUpdates with a gradient hook has no TF form")
    if op.outputs and op.outputs[0].consumers():
        raise ValueError("ApplyUpdates' output is consumed")
    rule = a["rule"]
    lamb = type(rule).__name__ == "LAMB"
    tf_type, args, flags = ("LAMB", (), {}) if lamb else _rule_spec(
        rule, a["static_hyper"], a["dynamic_hyper"])
    slot_names = [s for s, _ in rule.slots]
    name, dev = op.name, op.device or ""
    c0 = 1 if a.get("has_condition") else 0
    n_dyn = len(a["dynamic_hyper"])
    dyn = dict(zip(a["dynamic_hyper"], op.inputs[c0:c0 + n_dyn]))
    grads = op.inputs[c0 + n_dyn:]
    # Every update waits for every gradient (and the op's control inputs, the batch-norm
    # updates of a minimize under control_dependencies): TF's ref variables are updated
    # in place, so an Apply node running early would change a variable that a gradient
    # still reads. Ours applies after all gradients are computed; so does this.
    ready = pb.NodeDef(name=f"{name}/gradients_ready", op="NoOp", device=dev, input=sorted(
        {"^" + t.op.name for t in op.inputs} | {"^" + c.name for c in op.control_inputs}))
    nodes, consts, updates = [ready], {}, []
    if c0:
        # A condition (loss scaling's "all gradients finite"): TF1's cond. Switch(c, c):1
        # is alive only when c is true; every update (and the global step) has it as a
        # control input, so all of them run, or none; a Merge joins both branches.
        cond = gd._input_name(op.inputs[0])
        sw = pb.NodeDef(name=f"{name}/cond/Switch", op="Switch", input=[cond, cond],
                        device=dev)
        sw.attr["T"].type = gd.dtype_enum(op.inputs[0].dtype)
        pivot = pb.NodeDef(name=f"{name}/cond/switch_t", op="Identity", device=dev,
                           input=[sw.name + ":1", "^" + ready.name])
        skip = pb.NodeDef(name=f"{name}/cond/switch_f", op="Identity", input=[sw.name],
                          device=dev)
        for n in (pivot, skip):
            n.attr["T"].type = sw.attr["T"].type
        nodes += [sw, pivot, skip]
        ready = pivot

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
        if lamb:
            lamb_nodes = _lamb_nodes(f"{name}/update_{var_op.name}", rule, var_op, by_slot,
                                     gd._input_name(g), dt, hyper, a["static_hyper"],
                                     "^" + ready.name, dev)
            nodes += lamb_nodes
            updates += [n.name for n in lamb_nodes if n.op == "Assign"]
            continue
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
                                       if type(rule).__name__ == "Adam"
                                       and a.get("finish", True) else ()):
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
    last = name if not c0 else f"{name}/cond/apply"
    done = pb.NodeDef(name=f"{name}/update" if gs is not None else last, op="NoOp",
                      input=["^" + u for u in finish], device=dev)
    nodes.append(done)
    if gs is not None:
        one = gd._const_node(f"{name}/value", 1, gs.outputs[0].dtype.np)
        step = pb.NodeDef(name=last, op="AssignAdd", input=[gs.name, one.name, "^" + done.name],
                          device=dev)
        step.attr["T"].type = gd.dtype_enum(gs.outputs[0].dtype)
        step.attr["use_locking"].b = False
        _class_attr(step, gs)
        nodes += [one, step]
    if c0:
        t_done = pb.NodeDef(name=f"{name}/cond/switch_t_done", op="Identity", device=dev,
                            input=[ready.name, "^" + last])
        merge = pb.NodeDef(name=f"{name}/cond/Merge", op="Merge", device=dev,
                           input=[f"{name}/cond/switch_f", t_done.name])
        t_done.attr["T"].type = merge.attr["T"].type = ready.attr["T"].type
        merge.attr["N"].i = 2
        nodes += [t_done, merge, pb.NodeDef(name=name, op="NoOp", device=dev,
                                            input=["^" + merge.name])]
    return nodes


gd.EXPORT_ENCODERS["ApplyUpdates"] = encode_apply_updates
