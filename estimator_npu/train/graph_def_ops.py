"""TF encodings of the ops a training graph holds that TF spells differently: gradients
(``BroadcastReduced``, ``SumToShape``, ``ReshapeLike``, ``BroadcastLike``, the conv and
pool backprops), ops that keep as an attribute what TF takes as an input (``Fill``,
``ExpandDims``, ``Tile``, ``BroadcastTo``, the summaries' tags), the input iterator and
``report_uninitialized_variables``.

Each encoder ``fn(op) -> [NodeDef]`` returns the nodes TF computes the same value with,
the last one named as ``op`` (so ``op:0`` names the same tensor in both graphs); helper
nodes are named under ``op.name + "/"``. ``graph_def.op_to_nodes`` consults
``ENCODERS`` (``graph_def.EXPORT_ENCODERS``, filled when this module is imported with the
training layer) first; an encoder that cannot encode a
particular op (an unknown rank, say) raises ``ValueError`` and the op is written in the
generic form (its type and inputs only).
"""
import numpy as np

from estimator_npu.engine import graph_def as gd
from estimator_npu.engine import tf_protos as pb

ENCODERS = gd.EXPORT_ENCODERS


def _node(name, op_type, inputs, op=None, **types):
    n = pb.NodeDef(name=name, op=op_type, input=list(inputs),
                   device=(op.device or "") if op is not None else "")
    for key, dt in types.items():
        n.attr[key].type = dt if isinstance(dt, int) else gd.dtype_enum(dt)
    return n


def _controls(node, op):
    node.input.extend("^" + c.name for c in op.control_inputs)
    return node


def _shape_node(name, t, op):
    n = _node(name, "Shape", [gd._input_name(t)], op, T=t.dtype, out_type=3)
    return n


def _rank(t, what):
    nd = t.shape.ndims
    if nd is None:
        raise ValueError(f"{what}: unknown rank")
    return nd


# ------------------------------------------------------------------ gradients
def _broadcast_reduced(op):
    """``Reshape`` of dy to the kept-dims shape, ``BroadcastTo`` the shape of x, and for a
    mean ``RealDiv`` by the reduced element count (TF's Sum/Mean gradient)."""
    dy, x = op.inputs
    a = op.attrs
    nd = _rank(x, "BroadcastReduced")
    axes = list(range(nd)) if a["axis"] is None else sorted({int(v) % max(nd, 1)
                                                             for v in a["axis"]})
    name, nodes = op.name, []
    if x.shape.is_fully_defined():
        dims = x.shape.as_list()
        nodes.append(gd._const_node(name + "/shape", dims))
        shape = nodes[-1].name
        kept_dims = [1 if i in axes else d for i, d in enumerate(dims)]
        nodes.append(gd._const_node(name + "/kept_shape", kept_dims))
        kept = nodes[-1].name
    else:
        nodes.append(_shape_node(name + "/shape", x, op))
        shape = nodes[-1].name
        mask = [0 if i in axes else 1 for i in range(nd)]
        nodes += [gd._const_node(name + "/keep_mask", mask),
                  gd._const_node(name + "/reduced_ones", [1 - m for m in mask])]
        nodes.append(_node(name + "/masked", "Mul", [shape, nodes[-2].name], op, T=3))
        nodes.append(_node(name + "/kept_shape", "AddV2", [nodes[-1].name, nodes[-2].name],
                           op, T=3))
        kept = nodes[-1].name
    src = gd._input_name(dy)
    if not a["keepdims"]:
        nodes.append(_node(name + "/reshape", "Reshape", [src, kept], op, T=dy.dtype,
                           Tshape=3))
        src = nodes[-1].name
    last = name if not a["mean"] else name + "/broadcast"
    nodes.append(_node(last, "BroadcastTo", [src, shape], op, T=dy.dtype, Tidx=3))
    if a["mean"]:
        if x.shape.is_fully_defined():
            count = max(int(np.prod([x.shape.as_list()[i] for i in axes])), 1)
            nodes.append(gd._const_node(name + "/count", count, dy.dtype.np))
        else:
            nodes += [gd._const_node(name + "/axes", axes),
                      gd._const_node(name + "/gather_axis", 0),
                      gd._const_node(name + "/one", 1)]
            nodes.append(_node(name + "/dims", "GatherV2", [shape, name + "/axes",
                                                            name + "/gather_axis"], op,
                               Tparams=3, Tindices=3, Taxis=3))
            nodes[-1].attr["batch_dims"].i = 0
            nodes.append(_node(name + "/prod", "Prod", [nodes[-1].name, name + "/gather_axis"],
                               op, T=3, Tidx=3))
            nodes[-1].attr["keep_dims"].b = False
            nodes.append(_node(name + "/at_least_one", "Maximum",
                               [nodes[-1].name, name + "/one"], op, T=3))
            nodes.append(_node(name + "/count", "Cast", [nodes[-1].name], op, SrcT=3,
                               DstT=dy.dtype))
            nodes[-1].attr["Truncate"].b = False
        nodes.append(_node(name, "RealDiv", [last, name + "/count"], op, T=dy.dtype))
    _controls(nodes[-1], op)
    return nodes


def _sum_to_shape(op):
    """TF's broadcast gradient: ``Sum`` over the axes ``BroadcastGradientArgs`` gives,
    then ``Reshape`` to the shape of x."""
    g, x = op.inputs
    name = op.name
    nodes = [_shape_node(name + "/shape_x", x, op), _shape_node(name + "/shape_g", g, op)]
    args = _node(name + "/BroadcastGradientArgs", "BroadcastGradientArgs",
                 [nodes[0].name, nodes[1].name], op, T=3)
    total = _node(name + "/Sum", "Sum", [gd._input_name(g), args.name], op, T=g.dtype,
                  Tidx=3)
    total.attr["keep_dims"].b = False
    out = _node(name, "Reshape", [total.name, nodes[0].name], op, T=g.dtype, Tshape=3)
    return nodes + [args, total, _controls(out, op)]


def _reshape_like(op):
    x, like = op.inputs
    s = _shape_node(op.name + "/shape", like, op)
    out = _node(op.name, "Reshape", [gd._input_name(x), s.name], op, T=x.dtype, Tshape=3)
    return [s, _controls(out, op)]


def _broadcast_like(op):
    x, like = op.inputs
    s = _shape_node(op.name + "/shape", like, op)
    out = _node(op.name, "BroadcastTo", [gd._input_name(x), s.name], op, T=x.dtype, Tidx=3)
    return [s, _controls(out, op)]


def _reshape_dynamic(op):
    x, s = op.inputs
    out = _node(op.name, "Reshape", [gd._input_name(x), gd._input_name(s)], op, T=x.dtype,
                Tshape=s.dtype)
    return [_controls(out, op)]


def _spatial_node(op, keys):
    node = _node(op.name, op.type, [gd._input_name(t) for t in op.inputs], op,
                 T=op.outputs[0].dtype)
    gd._spatial(op, node, keys)
    return [_controls(node, op)]


def _conv_backprop(op):
    nodes = _spatial_node(op, ["strides", "dilations"])
    nodes[0].attr["use_cudnn_on_gpu"].b = True
    return nodes


# ------------------------------------------------------------------ attrs as inputs
def _with_const_input(tf_type, attr, suffix, position, **extra):
    def encode(op):
        value = op.attrs[attr]
        if value is None:
            raise ValueError(f"{op.type}: no static {attr}")
        c = gd._const_node(op.name + "/" + suffix, list(value) if isinstance(
            value, (tuple, list)) else value)
        inputs = [gd._input_name(t) for t in op.inputs]
        inputs.insert(position, c.name)
        node = _node(op.name, tf_type, inputs, op, T=op.outputs[0].dtype, **extra)
        return [c, _controls(node, op)]
    return encode


def _summary(op):
    tag = gd._string_const(op.name + "/tags", op.attrs["tag"].encode())
    node = _node(op.name, op.type, [tag.name] + [gd._input_name(t) for t in op.inputs], op,
                 T=op.inputs[0].dtype)
    if op.type == "ImageSummary":
        node.attr["max_images"].i = int(op.attrs.get("max_outputs", 3))
    return [tag, _controls(node, op)]


def _merge_summary(op):
    node = _node(op.name, "MergeSummary", [gd._input_name(t) for t in op.inputs], op)
    node.attr["N"].i = len(op.inputs)
    return [_controls(node, op)]


def _squeeze(op):
    node = _node(op.name, "Squeeze", [gd._input_name(op.inputs[0])], op,
                 T=op.inputs[0].dtype)
    axis = op.attrs.get("axis")
    if axis is not None:
        axis = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
        node.attr["squeeze_dims"].list.i.extend(int(a) for a in axis)
    node.attr["squeeze_dims"].list.SetInParent()
    return [_controls(node, op)]


def _concat(op):
    axis = gd._const_node(op.name + "/axis", int(op.attrs["axis"]))
    node = _node(op.name, "ConcatV2", [gd._input_name(t) for t in op.inputs] + [axis.name],
                 op, T=op.outputs[0].dtype, Tidx=3)
    node.attr["N"].i = len(op.inputs)
    return [axis, _controls(node, op)]


def _gather(op):
    axis = gd._const_node(op.name + "/axis", int(op.attrs["axis"]))
    p, i = op.inputs[:2]
    node = _node(op.name, "GatherV2", [gd._input_name(p), gd._input_name(i), axis.name], op,
                 Tparams=p.dtype, Tindices=i.dtype, Taxis=3)
    node.attr["batch_dims"].i = 0
    return [axis, _controls(node, op)]


def _gather_grad(op):
    """The dense gradient of ``GatherV2`` on axis 0 (TF's IndexedSlices, densified):
    ``UnsortedSegmentSum`` of dy's rows at the flattened indices."""
    dy, params, idx = op.inputs
    if op.attrs["axis"] != 0 or not params.shape.is_fully_defined():
        raise ValueError("GatherGrad: only axis 0 of a fully known params shape")
    dims = params.shape.as_list()
    name = op.name
    nodes = [gd._const_node(name + "/flat", [-1]),
             gd._const_node(name + "/rows_shape", [-1] + dims[1:]),
             gd._const_node(name + "/num_segments", dims[0])]
    nodes.append(_node(name + "/indices", "Reshape", [gd._input_name(idx), nodes[0].name], op,
                       T=idx.dtype, Tshape=3))
    nodes.append(_node(name + "/rows", "Reshape", [gd._input_name(dy), nodes[1].name], op,
                       T=dy.dtype, Tshape=3))
    out = _node(name, "UnsortedSegmentSum", [nodes[4].name, nodes[3].name, nodes[2].name],
                op, T=dy.dtype, Tindices=idx.dtype, Tnumsegments=3)
    return nodes + [_controls(out, op)]


def _split_like(op):
    """``SplitV`` of dy into the sizes of the concatenated tensors along the axis (static
    sizes as a ``Const``, else sliced out of their ``Shape``s)."""
    dy, likes = op.inputs[0], op.inputs[1:]
    axis = int(op.attrs["axis"])
    name, nodes = op.name, []
    sizes = [t.shape.as_list()[axis] if t.shape.ndims is not None else None for t in likes]
    if all(d is not None for d in sizes):
        nodes.append(gd._const_node(name + "/size_splits", sizes))
    else:
        nd = _rank(likes[0], "SplitLike")
        begin = gd._const_node(name + "/begin", [axis % nd])
        one = gd._const_node(name + "/size", [1])
        nodes += [begin, one]
        parts = []
        for i, t in enumerate(likes):
            sh = _shape_node(f"{name}/shape_{i}", t, op)
            sl = _node(f"{name}/slice_{i}", "Slice", [sh.name, begin.name, one.name], op,
                       T=3, Index=3)
            nodes += [sh, sl]
            parts.append(sl.name)
        nodes.append(gd._const_node(name + "/concat_axis", 0))
        cat = _node(name + "/size_splits", "ConcatV2", parts + [nodes[-1].name], op, T=3,
                    Tidx=3)
        cat.attr["N"].i = len(parts)
        nodes.append(cat)
    sizes_name = nodes[-1].name
    nodes.append(gd._const_node(name + "/split_dim", axis))
    out = _node(name, "SplitV", [gd._input_name(dy), sizes_name, nodes[-1].name], op,
                T=dy.dtype, Tlen=3)
    out.attr["num_split"].i = len(likes)
    return nodes + [_controls(out, op)]


def _one_hot(op):
    a = op.attrs
    dt = op.outputs[0].dtype
    nodes = [gd._const_node(op.name + "/depth", int(a["depth"])),
             gd._const_node(op.name + "/on_value", a["on"], dt.np),
             gd._const_node(op.name + "/off_value", a["off"], dt.np)]
    idx = op.inputs[0]
    node = _node(op.name, "OneHot", [gd._input_name(idx)] + [n.name for n in nodes], op,
                 T=dt, TI=idx.dtype)
    node.attr["axis"].i = int(a.get("axis", -1))
    return nodes + [_controls(node, op)]


def _like(op):
    return [_controls(_node(op.name, op.type, [gd._input_name(op.inputs[0])], op,
                            T=op.inputs[0].dtype), op)]


def _shape(op):
    return [_controls(_node(op.name, "Shape", [gd._input_name(op.inputs[0])], op,
                            T=op.inputs[0].dtype, out_type=op.outputs[0].dtype), op)]


def _global_norm(op):
    """TF's ``global_norm``: ``sqrt(sum(l2_loss(t) * 2))``."""
    name, dt = op.name, op.outputs[0].dtype
    nodes, losses = [], []
    for i, t in enumerate(op.inputs):
        if t.dtype != dt:
            raise ValueError("GlobalNorm of mixed dtypes")
        nodes.append(_node(f"{name}/L2Loss" + (f"_{i}" if i else ""), "L2Loss",
                           [gd._input_name(t)], op, T=dt))
        losses.append(nodes[-1].name)
    stack = _node(name + "/stack", "Pack", losses, op, T=dt)
    stack.attr["N"].i, stack.attr["axis"].i = len(losses), 0
    axis = gd._const_node(name + "/Const", [0])
    total = _node(name + "/Sum", "Sum", [stack.name, axis.name], op, T=dt, Tidx=3)
    total.attr["keep_dims"].b = False
    two = gd._const_node(name + "/Const_1", 2.0, dt.np)
    mul = _node(name + "/mul", "Mul", [total.name, two.name], op, T=dt)
    out = _node(name, "Sqrt", [mul.name], op, T=dt)
    return nodes + [stack, axis, total, two, mul, _controls(out, op)]


# ------------------------------------------------------------------ input and readiness
def _types_and_shapes(node, outputs):
    node.attr["output_types"].list.type.extend(gd.dtype_enum(t.dtype) for t in outputs)
    for t in outputs:
        node.attr["output_shapes"].list.shape.add().CopyFrom(gd.shape_proto(t.shape))


def _get_next(op):
    """An ``IteratorV2`` resource (``shared_name`` of the iterator) read by
    ``IteratorGetNext``. TF cannot rebuild this engine's datasets: the iterator is not
    initialized in TF, whose sessions feed ``<name>:i`` instead."""
    it = _node(op.name + "/iterator", "IteratorV2", [], op)
    it.attr["shared_name"].s = str(op.attrs.get("shared_name") or op.name).encode()
    it.attr["container"].s = b""
    _types_and_shapes(it, op.outputs)
    node = _node(op.name, "IteratorGetNext", [it.name], op)
    _types_and_shapes(node, op.outputs)
    return [it, _controls(node, op)]


def _make_iterator(op):
    """A ``NoOp`` (the dataset is not expressible as TF dataset ops)."""
    return [_controls(_node(op.name, "NoOp", [], op), op)]


def _report_uninitialized(op):
    """TF's ``report_uninitialized_variables``: the names masked by ``LogicalNot`` of the
    stacked ``IsVariableInitialized``, gathered at ``Where``'s indices."""
    variables = list(op.attrs["vars"])
    name = op.name
    names = gd._string_const(name + "/names", np.array(
        [v.name.encode() for v in variables], dtype=object).reshape(len(variables)))
    if not variables:
        names.name = name
        return [_controls(names, op)]
    nodes = [names]
    for i, v in enumerate(variables):
        n = _node(f"{name}/IsVariableInitialized" + (f"_{i}" if i else ""),
                  "IsVariableInitialized", [v.name], op, dtype=v.outputs[0].dtype)
        nodes.append(n)
    flags = nodes[1:]
    stack = _node(name + "/stack", "Pack", [n.name for n in flags], op, T=10)
    stack.attr["N"].i, stack.attr["axis"].i = len(flags), 0
    nodes += [stack, _node(name + "/LogicalNot", "LogicalNot", [stack.name], op)]
    nodes.append(_node(name + "/Where", "Where", [nodes[-1].name], op, T=10))
    sq = _node(name + "/Squeeze", "Squeeze", [nodes[-1].name], op, T=9)
    sq.attr["squeeze_dims"].list.i.append(1)
    nodes += [sq, gd._const_node(name + "/axis", 0)]
    out = _node(name, "GatherV2", [names.name, sq.name, name + "/axis"], op, Tparams=7,
                Tindices=9, Taxis=3)
    out.attr["batch_dims"].i = 0
    return nodes + [_controls(out, op)]


ENCODERS.update({
    "BroadcastReduced": _broadcast_reduced,
    "SumToShape": _sum_to_shape,
    "ReshapeLike": _reshape_like,
    "BroadcastLike": _broadcast_like,
    "ReshapeDynamic": _reshape_dynamic,
    "Conv2DBackpropInput": _conv_backprop,
    "Conv2DBackpropFilter": _conv_backprop,
    "MaxPoolGrad": lambda op: _spatial_node(op, ["strides", "ksize"]),
    "AvgPoolGrad": lambda op: _spatial_node(op, ["strides", "ksize"]),
    "ConcatV2": _concat,
    "GatherV2": _gather,
    "GatherGrad": _gather_grad,
    "SplitLike": _split_like,
    "OneHot": _one_hot,
    "ZerosLike": _like,
    "OnesLike": _like,
    "Shape": _shape,
    "GlobalNorm": _global_norm,
    "Fill": _with_const_input("Fill", "shape", "dims", 0, index_type=3),
    "ExpandDims": _with_const_input("ExpandDims", "axis", "dim", 1, Tdim=3),
    "Tile": _with_const_input("Tile", "reps", "multiples", 1, Tmultiples=3),
    "BroadcastTo": _with_const_input("BroadcastTo", "shape", "shape", 1, Tidx=3),
    "ScalarSummary": _summary,
    "HistogramSummary": _summary,
    "MergeSummary": _merge_summary,
    "Squeeze": _squeeze,
    "IteratorGetNext": _get_next,
    "MakeIterator": _make_iterator,
    "ReportUninitialized": _report_uninitialized,
})
