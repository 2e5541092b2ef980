"""``tf.import_graph_def``: rebuilds a ``GraphDef`` (ours or real TF's) in the default graph.

Each node is rebuilt with this engine's op of the same TF type (``_BUILDERS``); an op
type without a builder raises ``ValueError`` naming it and the node. A node carrying a
record of one of our ops (``graph_def_spec``: what ``export_meta_graph`` adds where TF's
node form does not describe the op) is rebuilt as that very op, and the helper nodes of
its TF form are left out. Variables
(``VariableV2`` + ``Assign``) become ``Variable``s whose initializer is the imported
``Assign``'s value.
"""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine import graph_def as gdef
from estimator_npu.engine.graph import get_default_graph
from estimator_npu.train import graph_def_spec


def _attr(node, key, default=None):
    if key not in node.attr:
        return default
    a = node.attr[key]
    kind = a.WhichOneof("value")
    if kind == "list":
        return list(a.list.i) if a.list.i else [x.decode() for x in a.list.s]
    if kind == "s":
        return a.s.decode()
    if kind == "type":
        return gdef.enum_dtype(a.type)
    if kind == "shape":
        return gdef.proto_shape(a.shape)
    if kind == "tensor":
        return gdef.tensor_proto_value(a.tensor)
    return getattr(a, kind) if kind else default


_const_value = gdef.const_input_value


def _spatial(node):
    fmt = _attr(node, "data_format", "NHWC")
    return fmt, (lambda v: v and (v[2:] if fmt == "NCHW" else v[1:-1]))


def _builders():
    from estimator_npu.engine.ops import (array_ops, conv_ops, core, math_ops, nn_ops,
                                          pool_ops, random_ops, reduction_ops)
    b = {}

    def unary(fn):
        return lambda n, x, name: fn(x[0], name=name)

    def binary(fn):
        return lambda n, x, name: fn(x[0], x[1], name=name)
    for t, fn in [("Relu", nn_ops.relu), ("Softmax", nn_ops.softmax),
                  ("LogSoftmax", nn_ops.log_softmax), ("Identity", core.identity),
                  ("Tanh", math_ops.tanh), ("Sigmoid", math_ops.sigmoid),
                  ("Exp", math_ops.exp), ("Log", math_ops.log), ("Sqrt", math_ops.sqrt),
                  ("Rsqrt", math_ops.rsqrt), ("Square", math_ops.square)]:
        b[t] = unary(fn)
    for t, fn in [("Add", math_ops.add), ("AddV2", math_ops.add), ("Sub", math_ops.subtract),
                  ("Mul", math_ops.multiply), ("Maximum", math_ops.maximum),
                  ("Minimum", math_ops.minimum)]:
        b[t] = binary(fn)
    b["RealDiv"] = lambda n, x, name: math_ops.divide(x[0], x[1], name=name)
    b["BiasAdd"] = lambda n, x, name: nn_ops.bias_add(
        x[0], x[1], data_format=_attr(n, "data_format", "NHWC"), name=name)
    b["MatMul"] = lambda n, x, name: math_ops.matmul(
        x[0], x[1], transpose_a=_attr(n, "transpose_a", False),
        transpose_b=_attr(n, "transpose_b", False), name=name)
    b["Cast"] = lambda n, x, name: math_ops.cast(x[0], _attr(n, "DstT"), name=name)
    b["Const"] = lambda n, x, name: core.constant(_attr(n, "value"), dtype=_attr(n, "dtype"),
                                                  name=name)
    b["Placeholder"] = lambda n, x, name: core.placeholder(
        _attr(n, "dtype"), shape=_attr(n, "shape"), name=name)
    b["NoOp"] = lambda n, x, name: core.no_op(name=name)
    b["Reshape"] = lambda n, x, name: array_ops.reshape(
        x[0], [int(v) for v in _const_value(x[1], "Reshape's shape").reshape(-1)]
        if x[1].op.type == "Const" else x[1], name=name)   # a computed shape: dynamic
    b["Transpose"] = lambda n, x, name: array_ops.transpose(
        x[0], [int(v) for v in _const_value(x[1], "Transpose's perm").reshape(-1)], name=name)
    for t, fn in [("Sum", reduction_ops.reduce_sum), ("Mean", reduction_ops.reduce_mean),
                  ("Max", getattr(reduction_ops, "reduce_max", None)),
                  ("Min", getattr(reduction_ops, "reduce_min", None)),
                  ("Prod", getattr(reduction_ops, "reduce_prod", None))]:
        if fn is not None:
            b[t] = (lambda f: lambda n, x, name: f(
                x[0], axis=[int(v) for v in _const_value(x[1], "the reduction axes")
                            .reshape(-1)], keepdims=_attr(n, "keep_dims", False),
                name=name))(fn)

    def conv(n, x, name):
        fmt, sp = _spatial(n)
        return conv_ops.conv2d(x[0], x[1], strides=_attr(n, "strides"),
                               padding=_attr(n, "padding"), data_format=fmt,
                               dilations=_attr(n, "dilations", [1, 1, 1, 1]), name=name)
    b["Conv2D"] = conv
    for t, fn in [("Relu6", nn_ops.relu6), ("Elu", nn_ops.elu), ("Softplus", nn_ops.softplus),
                  ("Neg", math_ops.negative), ("Abs", math_ops.abs), ("Floor", math_ops.floor),
                  ("StopGradient", core.stop_gradient)]:
        b[t] = unary(fn)
    for t, fn in [("Pow", math_ops.pow), ("Equal", math_ops.equal), ("Less", math_ops.less),
                  ("Greater", math_ops.greater), ("GreaterEqual", math_ops.greater_equal),
                  ("LessEqual", math_ops.less_equal), ("NotEqual", math_ops.not_equal),
                  ("LogicalAnd", math_ops.logical_and), ("LogicalOr", math_ops.logical_or),
                  ("FloorDiv", math_ops.floordiv), ("FloorMod", math_ops.floormod),
                  ("SquaredDifference", math_ops.squared_difference)]:
        b[t] = binary(fn)
    for t, fn in [("LogicalNot", math_ops.logical_not), ("Sign", math_ops.sign),
                  ("Ceil", math_ops.ceil), ("Round", math_ops.round),
                  ("Reciprocal", math_ops.reciprocal), ("Sin", math_ops.sin),
                  ("Cos", math_ops.cos), ("Log1p", math_ops.log1p)]:
        b[t] = unary(fn)
    def random(fn, like=None):
        # TF's (seed, seed2) pair is the op's generator seed (same values as TF). The shape: a Const, or (dropout's noise) the
        # Shape of a tensor of the same dtype
        def build(n, x, name):
            dt, shape = _attr(n, "dtype"), x[0]
            if like is not None and shape.op.type == "Shape" and \
                    shape.op.inputs[0].dtype == dt:
                out = like(shape.op.inputs[0], seed=0, name=name)
            else:
                out = fn(_const_value(shape, f"{n.op}'s shape").tolist(), dtype=dt, seed=0,
                         name=name)
            pair = [_attr(n, "seed", 0), _attr(n, "seed2", 0)]   # TF's seeds, kept as given
            out.op.attrs["seed2"] = pair if any(pair) else None
            return out
        return build
    b["RandomUniform"] = random(random_ops.random_uniform, random_ops.random_uniform_like)
    b["RandomStandardNormal"] = random(random_ops.random_normal)

    def random_int(n, x, name):
        lo, hi = (int(_const_value(t, f"RandomUniformInt's {w}")) for t, w in
                  ((x[1], "minval"), (x[2], "maxval")))
        out = random_ops.random_uniform(_const_value(x[0], "RandomUniformInt's shape").tolist(),
                                        lo, hi, dtype=_attr(n, "Tout"), seed=0, name=name)
        pair = [_attr(n, "seed", 0), _attr(n, "seed2", 0)]
        out.op.attrs["seed2"] = pair if any(pair) else None
        return out
    b["RandomUniformInt"] = random_int
    b["TruncatedNormal"] = random(random_ops.truncated_normal)
    b["Select"] = lambda n, x, name: array_ops.where(x[0], x[1], x[2], name=name)
    b["SelectV2"] = lambda n, x, name: array_ops.where_v2(x[0], x[1], x[2], name=name)
    b["LeakyRelu"] = lambda n, x, name: nn_ops.leaky_relu(x[0], _attr(n, "alpha", 0.2),
                                                          name=name)
    b["PlaceholderWithDefault"] = lambda n, x, name: core.placeholder_with_default(
        x[0], _attr(n, "shape"), name=name)
    b["Squeeze"] = lambda n, x, name: array_ops.squeeze(
        x[0], axis=_attr(n, "squeeze_dims") or None, name=name)
    b["ExpandDims"] = lambda n, x, name: array_ops.expand_dims(
        x[0], int(_const_value(x[1], "ExpandDims' axis")), name=name)
    b["ConcatV2"] = lambda n, x, name: array_ops.concat(
        x[:-1], int(_const_value(x[-1], "ConcatV2's axis")), name=name)
    b["Pack"] = lambda n, x, name: array_ops.stack(x, axis=_attr(n, "axis", 0), name=name)
    b["Shape"] = lambda n, x, name: array_ops.shape(x[0], out_type=_attr(
        n, "out_type", None) or dtypes.int32, name=name)
    b["Pad"] = lambda n, x, name: array_ops.pad(
        x[0], _const_value(x[1], "Pad's paddings").tolist(), name=name)
    b["ArgMax"] = lambda n, x, name: reduction_ops.argmax(
        x[0], int(_const_value(x[1], "ArgMax's dimension")),
        output_type=_attr(n, "output_type", None) or dtypes.int64, name=name)
    b["ArgMin"] = lambda n, x, name: reduction_ops.argmin(
        x[0], int(_const_value(x[1], "ArgMin's dimension")),
        output_type=_attr(n, "output_type", None) or dtypes.int64, name=name)

    def strided_slice(n, x, name):
        from estimator_npu.engine.ops import slice_ops
        begin, end, strides = (_const_value(t, "StridedSlice's " + w).reshape(-1).tolist()
                               for t, w in zip(x[1:4], ("begin", "end", "strides")))
        if _attr(n, "ellipsis_mask", 0) or _attr(n, "new_axis_mask", 0):
            raise ValueError(f"import_graph_def: StridedSlice node {n.name!r} uses an "
                             "ellipsis or new-axis mask, which is not supported")
        bm, em, sm = (_attr(n, k, 0) for k in ("begin_mask", "end_mask", "shrink_axis_mask"))
        key = tuple(int(b) if sm >> i & 1 else slice(
            None if bm >> i & 1 else int(b), None if em >> i & 1 else int(e), int(st))
            for i, (b, e, st) in enumerate(zip(begin, end, strides)))
        with get_default_graph().name_scope(name + "/"):
            y = slice_ops.getitem(x[0], key)
        return core.identity(y, name=name)
    b["StridedSlice"] = strided_slice

    def fused_bn(n, x, name):
        if _attr(n, "data_format", "NHWC") != "NHWC":
            raise ValueError(f"import_graph_def: {n.op} node {n.name!r}: only NHWC is "
                             "supported")
        if _attr(n, "is_training", True):
            raise ValueError(f"import_graph_def: {n.op} node {n.name!r} has is_training=True; "
                             "only inference-mode batch norm can be imported")
        with get_default_graph().name_scope(name + "/"):
            y = nn_ops.batch_normalization(x[0], x[3], x[4], x[2], x[1],
                                           _attr(n, "epsilon", 1e-3))
        y = core.identity(y, name=name)
        return _Outputs(y, x[3], x[4])
    for t in ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"):
        b[t] = fused_bn
    b.update(_more_builders())
    b.update(gdef.IMPORT_BUILDERS)  # node types defined above the engine (ParseExample)
    for t, fn in [("MaxPool", pool_ops.max_pool), ("AvgPool", pool_ops.avg_pool)]:
        b[t] = (lambda f: lambda n, x, name: f(
            x[0], ksize=_attr(n, "ksize"), strides=_attr(n, "strides"),
            padding=_attr(n, "padding"), data_format=_attr(n, "data_format", "NHWC"),
            name=name))(fn)
    return b


def _more_builders():
    """Forward ops of training graphs (ours and TF's): gathers, one-hot, fills, the
    cross-entropies (both outputs: the loss and TF's backprop, softmax - labels)."""
    from estimator_npu.engine.ops import (array_ops, broadcast_grad, core, math_extra_ops,
                                          math_ops, nn_ops, slice_ops, tile_ops)
    b = {}

    def ints(t, what):
        return [int(v) for v in _const_value(t, what).reshape(-1)]

    b["GatherV2"] = lambda n, x, name: slice_ops.gather(
        x[0], x[1], axis=int(_const_value(x[2], "GatherV2's axis")), name=name)
    b["OneHot"] = lambda n, x, name: array_ops.one_hot(
        x[0], int(_const_value(x[1], "OneHot's depth")),
        on_value=_const_value(x[2], "OneHot's on_value").item(),
        off_value=_const_value(x[3], "OneHot's off_value").item(),
        axis=_attr(n, "axis", -1), dtype=_attr(n, "T"), name=name)
    b["ZerosLike"] = lambda n, x, name: array_ops.zeros_like(x[0], name=name)
    b["OnesLike"] = lambda n, x, name: array_ops.ones_like(x[0], name=name)
    def like(shape, static, dynamic, what):
        # a Const shape, or the Shape of a tensor (TF's gradients and ours take both)
        if shape.op.type == "Shape":
            return dynamic(shape.op.inputs[0])
        return static(ints(shape, what))

    b["Fill"] = lambda n, x, name: like(
        x[0], lambda d: array_ops.fill(d, x[1], name=name),
        lambda t: core.identity(broadcast_grad.broadcast_like(x[1], t), name=name),
        "Fill's dims")
    b["BroadcastTo"] = lambda n, x, name: like(
        x[1], lambda d: tile_ops.broadcast_to(x[0], d, name=name),
        lambda t: core.identity(broadcast_grad.broadcast_like(x[0], t), name=name),
        "BroadcastTo's shape")
    b["Tile"] = lambda n, x, name: tile_ops.tile(x[0], ints(x[1], "Tile's multiples"),
                                                 name=name)
    b["L2Loss"] = lambda n, x, name: nn_ops.l2_loss(x[0], name=name)
    b["AddN"] = lambda n, x, name: math_ops.add_n(list(x), name=name)
    b["DivNoNan"] = lambda n, x, name: math_extra_ops.div_no_nan(x[0], x[1], name=name)
    b["IsFinite"] = lambda n, x, name: math_ops.is_finite(x[0], name=name)

    def xent(sparse):
        def build(n, x, name):
            g = get_default_graph()
            if sparse:
                loss = nn_ops.sparse_softmax_cross_entropy_with_logits(
                    labels=x[1], logits=x[0], name=name)
                with g.name_scope(name + "/"):
                    labels = array_ops.one_hot(x[1], array_ops.shape(x[0])[-1]
                                               if x[0].shape.values is None or
                                               x[0].shape.values[-1] is None
                                               else x[0].shape.values[-1], dtype=x[0].dtype)
            else:
                loss = nn_ops.softmax_cross_entropy_with_logits_v2(
                    labels=x[1], logits=x[0], name=name)
                labels = x[1]
            with g.name_scope(name + "/"):
                backprop = math_ops.subtract(nn_ops.softmax(x[0]), labels, name="backprop")
            return _Outputs(loss, backprop)
        return build
    b["SoftmaxCrossEntropyWithLogits"] = xent(False)
    b["SparseSoftmaxCrossEntropyWithLogits"] = xent(True)
    return b


_CACHE = {}
_SKIPPED = object()     # built[name] of a node left out


class _Skipped(Exception):
    """A node is left out (args: the op type at the root of why)."""


class _Outputs:
    """Stands for a multi-output node rebuilt from several ops (its ``outputs``)."""

    def __init__(self, *outputs):
        self.outputs = list(outputs)
        self.op = outputs[0].op
        self.name = outputs[0].op.name


def _split(name):
    if name.startswith("^"):
        return name[1:], -1
    op, _, idx = name.partition(":")
    return op, int(idx) if idx else 0


def importable_types():
    """The node types ``import_graph_def`` has builders for."""
    if not _CACHE:
        _CACHE.update(_builders())
    return frozenset(_CACHE) | {"VariableV2", "Assign"}


def _records(graph_def):
    """The records of ops carried whole (``graph_def_spec``), ``{node name: record}``, and
    their helper nodes, rebuilt with the op, never on their own (``{helper: node}``)."""
    records, absorbed = {}, {}
    for n in graph_def.node:
        if graph_def_spec.SPEC_ATTR in n.attr:
            records[n.name] = graph_def_spec.read_record(n)
            absorbed.update((h, n.name) for h in records[n.name]["helpers"])
    return records, absorbed


def _unsupported_closure(graph_def, records=None, absorbed=()):
    """Names of the nodes that cannot be built: an op type without a builder (and no
    record of ours), or an input (data or control) from such a node. Returns ``{name:
    unsupported type at its root}``."""
    bad = {}
    changed = True
    while changed:                  # nodes are (nearly always) in topological order
        changed = False
        for n in graph_def.node:
            if n.name in bad or n.name in absorbed:
                continue
            record = (records or {}).get(n.name)
            if n.op not in _CACHE and n.op not in ("VariableV2", "Assign") and record is None:
                bad[n.name] = n.op
                changed = True
                continue
            for i in n.input if record is None else record["inputs"] + record["controls"]:
                r = bad.get(_split(i)[0])
                if r is not None:
                    bad[n.name] = r
                    changed = True
                    break
    return bad


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None,
                     op_dict=None, producer_op_list=None, skip_unsupported=False):
    """Imports ``graph_def`` into the default graph under scope ``name`` (default
    ``"import"``; ``""`` for none).

    With ``skip_unsupported`` (used by ``import_meta_graph``), nodes of op types this
    engine does not have (a training graph's gradient and optimizer ops) and everything
    that depends on them are left out with one warning naming the types; a variable
    whose initializer is left out starts at zeros (restore it from a checkpoint).

    Raises:
        ValueError: an op type this engine does not have (named, with the node), an
            input that is not in the graph, or a ``return_elements`` name not found.
    """
    from estimator_npu.engine.ops import core, state_ops
    if not _CACHE:
        _CACHE.update(_builders())
    if isinstance(graph_def, (bytes, bytearray)):
        graph_def = gdef.pb.GraphDef.FromString(bytes(graph_def))
    input_map = dict(input_map or {})
    g = get_default_graph()
    prefix = "import" if name is None else name
    prefix = prefix + "/" if prefix and not prefix.endswith("/") else prefix
    nodes = {n.name: n for n in graph_def.node}
    records, absorbed = _records(graph_def)
    skipped = _unsupported_closure(graph_def, records, absorbed)
    if skipped and not skip_unsupported:
        n = next(n for n in graph_def.node if n.name in skipped and skipped[n.name] == n.op)
        raise ValueError(f"import_graph_def: op type {n.op!r} (node {n.name!r}) is not "
                         "supported by estimator_npu's graph import")
    built, variables = {}, {}

    def tensor(ref):
        op, idx = _split(ref)
        key = f"{op}:{idx}" if idx >= 0 else "^" + op
        if ref in input_map or key in input_map or (idx == 0 and op in input_map):
            return input_map.get(ref, input_map.get(key, input_map.get(op)))
        if op not in built:
            if op in skipped:
                raise _Skipped(skipped[op])
            if op not in nodes:
                raise ValueError(f"import_graph_def: input {ref!r} is not in the graph")
            if op in absorbed:
                raise ValueError(f"import_graph_def: input {ref!r} is a helper node of "
                                 f"{absorbed[op]!r}'s TF form, which is imported as one op")
            build(nodes[op])
        got = built[op]
        if got is _SKIPPED:
            raise _Skipped(skipped.get(op, nodes[op].op))
        if idx < 0:
            return getattr(got, "op", got)
        if isinstance(got, state_ops.Variable):
            return got._as_tensor()
        return got.outputs[idx] if hasattr(got, "outputs") else got

    def build(n):
        if n.name in built:
            return
        built[n.name] = None                          # cycle guard
        try:
            build_node(n)
        except _Skipped as e:       # an input was left out (or the node): so is this node
            built[n.name], skipped[n.name] = _SKIPPED, e.args[0]
            raise

    def build_node(n):
        full = prefix + n.name
        if n.op == "VariableV2":
            value = None
            for other in graph_def.node:
                if other.op == "Assign" and _split(other.input[0])[0] == n.name:
                    if _split(other.input[1])[0] not in skipped:
                        try:
                            value = tensor(other.input[1])
                        except _Skipped:
                            value = None
                    variables[other.name] = n.name
                    break
            dt, shape = _attr(n, "dtype"), _attr(n, "shape")
            if value is None:
                value = np.zeros(shape.as_list(), dt.np)
            with g.name_scope(None):
                var = state_ops.Variable(value, name=full, dtype=dt, collections=[],
                                         trainable=False,
                                         validate_shape=shape.values is not None)
            built[n.name] = var
            return
        if n.op == "Assign" and n.name in variables or n.op == "Assign" and \
                nodes.get(_split(n.input[0])[0], n).op == "VariableV2":
            var = tensor("^" + _split(n.input[0])[0]) and built[_split(n.input[0])[0]]
            if n.name in variables:
                built[n.name] = var.initializer
                return
            value = tensor(n.input[1])
            controls = [tensor(i) for i in n.input if i.startswith("^")]
            with g.name_scope(None), g.control_dependencies(controls):
                built[n.name] = state_ops.assign(var, value, name=full).op
            return
        if n.op == "Assign":
            raise ValueError(f"import_graph_def: Assign node {n.name!r} does not assign a "
                             "variable")
        record = records.get(n.name)
        if record is not None:          # one of our ops, carried whole (graph_def_spec)
            try:
                built[n.name] = graph_def_spec.build(record, full, tensor, g)
            except (LookupError, TypeError, ValueError) as e:
                if isinstance(e, KeyError):     # a name lookup of the import itself
                    raise
                raise ValueError(f"import_graph_def: node {n.name!r} (op type "
                                 f"{record['type']!r}) cannot be rebuilt from its "
                                 f"{graph_def_spec.SPEC_ATTR} record: {e}") from None
            return
        data = [tensor(i) for i in n.input if not i.startswith("^")]
        controls = [tensor(i) for i in n.input if i.startswith("^")]
        with g.name_scope(None), g.control_dependencies(controls):
            try:
                out = _CACHE[n.op](n, data, full)
            except ValueError:
                if not skip_unsupported:
                    raise
                # a builder that cannot rebuild this node here (an input TF takes as a
                # Const is computed): left out like an unsupported type
                raise _Skipped(n.op) from None
        if isinstance(out, (list, tuple)):   # several ops standing for one node's outputs
            out = _Outputs(*out)
        built[n.name] = out if isinstance(out, _Outputs) else getattr(out, "op", out)

    with g.name_scope(None):
        for n in graph_def.node:
            if n.name in absorbed:
                continue
            if n.name not in skipped or n.op == "Assign" and n.name in variables:
                try:
                    build(n)
                except _Skipped:
                    pass
    if skipped:
        from estimator_npu.utils import logging
        logging.warning("Importing the graph without %d nodes of op types estimator_npu's "
                        "graph import does not support (and the nodes that depend on them): "
                        "%s",
                        len(skipped), ", ".join(sorted(set(skipped.values()))))
    imported = [v for v in built.values() if isinstance(v, state_ops.Variable)]
    if skipped:
        g._skipped_imports = dict(getattr(g, "_skipped_imports", {}),
                                  **{prefix + k: v for k, v in skipped.items()
                                     if built.get(k, _SKIPPED) is _SKIPPED})
    g._imported_variables = getattr(g, "_imported_variables", []) + imported
    if return_elements is None:
        return None
    out = []
    for r in return_elements:
        op, idx = _split(r)
        if built.get(op, _SKIPPED) is _SKIPPED:
            raise ValueError(f"Requested return_element {r!r} not found in graph_def.")
        got = built[op]
        if ":" in r:
            out.append(got._as_tensor() if isinstance(got, state_ops.Variable)
                       else got.outputs[idx])
        else:
            out.append(got.op if isinstance(got, state_ops.Variable) else got)
    del core
    return out


__all__ = ["import_graph_def", "importable_types"]
