"""Graphs as TF ``GraphDef`` protobufs: export (``Graph.as_graph_def``) and import
(``tf.import_graph_def``).

Export writes one ``NodeDef`` per op with TF's op type, inputs (``op``, ``op:1``,
``^control``) and TF's attrs (``T``, ``dtype``, ``shape``, ``value`` as a
``TensorProto``, ``transpose_a``, ``strides``, ``padding``, ``data_format`` ...). Where
TF's op takes as an input what this engine keeps as an attribute (a reduction's axes,
``Reshape``'s shape, ``Transpose``'s permutation) a ``Const`` node is added, named as TF
names it (``Sum/reduction_indices``, ``Reshape/shape``, ``transpose/perm``). Variables
are ``VariableV2`` with an ``Assign`` taking ``(ref, value)``.

Import rebuilds such graphs, from us or from real TF, for the op types in ``_BUILDERS``;
any other op type raises ``ValueError`` naming the type and the node.
"""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine import tf_protos as pb
from estimator_npu.engine.shape import TensorShape

GRAPH_PRODUCER = 1286   # the GraphDef version TF 2.15 writes (versions.producer)
_DT_ENUM = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6,
            "string": 7, "complex64": 8, "int64": 9, "bool": 10, "bfloat16": 14,
            "uint16": 17, "float16": 19}
_DT_NAME = {v: k for k, v in _DT_ENUM.items()}
_REDUCTIONS = ("Sum", "Mean", "Max", "Min", "Prod", "All", "Any")
# attrs of TF's op registry that this engine keeps under the same name and meaning
_KNOWN_ATTRS = frozenset(["transpose_a", "transpose_b", "adj_x", "adj_y", "alpha", "seed",
                          "seed2", "dtype", "output_type", "num_split", "squeeze_dims"])


def dtype_enum(dt):
    return _DT_ENUM[dtypes.as_dtype(dt).name]


def enum_dtype(num):
    num = num - 100 if num > 100 else num           # reference types
    try:
        name = _DT_NAME[num]
    except KeyError:
        raise ValueError(f"DataType {num} is not supported") from None
    return dtypes.bfloat16 if name == "bfloat16" else dtypes.as_dtype(name)


def shape_proto(shape):
    shape = TensorShape(shape) if not isinstance(shape, TensorShape) else shape
    if shape.values is None:
        return pb.TensorShapeProto(unknown_rank=True)
    return pb.TensorShapeProto(dim=[pb.TensorShapeProto.Dim(size=-1 if d is None else int(d))
                                    for d in shape.as_list()])


def proto_shape(p):
    if p.unknown_rank:
        return TensorShape(None)
    return TensorShape([None if d.size < 0 else int(d.size) for d in p.dim])


def make_tensor_proto(value, dtype=None, shape=None, verify_shape=False,
                      allow_broadcast=False):
    """A ``TensorProto`` of ``value`` (``tf.make_tensor_proto``)."""
    arr = np.asarray(value, dtype=None if dtype is None else dtypes.as_dtype(dtype).np)
    if shape is not None:
        arr = np.broadcast_to(arr, tuple(shape)) if arr.size == 1 else arr.reshape(shape)
    t = pb.TensorProto(tensor_shape=shape_proto(arr.shape))
    if arr.dtype.kind in "OSU":
        t.dtype = 7
        t.string_val.extend(x.encode() if isinstance(x, str) else bytes(x)
                            for x in arr.reshape(-1))
    else:
        t.dtype = dtype_enum(arr.dtype)
        field = _SPLAT_FIELDS.get(t.dtype)
        if field is not None and arr.size >= _SPLAT_MIN and _uniform(arr):
            # one value repeated (as TF writes tf.constant(0., shape=...)): a large zeros
            # initializer costs a few bytes in graph.pbtxt / .meta instead of megabytes
            first = arr.reshape(-1)[:1]
            getattr(t, field).append(first.view(np.uint16)[0].item() if t.dtype in (14, 19)
                                     else first[0].item())
            return t
        t.tensor_content = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<")) \
            .tobytes()
    return t


_SPLAT_MIN = 1000        # smaller constants keep TF's tensor_content layout
_SPLAT_FIELDS = {1: "float_val", 2: "double_val", 3: "int_val", 4: "int_val", 5: "int_val",
                 6: "int_val", 9: "int64_val", 10: "bool_val", 14: "half_val",
                 17: "int_val", 19: "half_val"}


def _uniform(arr):
    """Whether every element of ``arr`` has the first one's bits (so -0.0 stays -0.0)."""
    flat = np.ascontiguousarray(arr.reshape(-1))
    bits = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}.get(flat.dtype.itemsize)
    if bits is None:
        return False
    flat = flat.view(bits)
    first = flat[0]
    if not (flat[-1] == first and flat[flat.size // 2] == first):
        return False
    return bool(np.all(flat == first))


def tensor_proto_value(t):
    """The numpy value of a ``TensorProto`` (``tf.make_ndarray``)."""
    shape = [d.size for d in t.tensor_shape.dim]
    if t.dtype == 7:
        arr = np.array([bytes(s) for s in t.string_val], dtype=object)
        return (arr.reshape(shape) if arr.size == int(np.prod(shape)) else
                np.full(shape, arr[0] if arr.size else b"", dtype=object))
    dt = enum_dtype(t.dtype).np
    n = int(np.prod(shape, dtype=np.int64))
    if t.tensor_content:
        return np.frombuffer(t.tensor_content, dt.newbyteorder("<")).astype(dt).reshape(shape)
    field = {1: "float_val", 2: "double_val", 3: "int_val", 4: "int_val", 5: "int_val",
             6: "int_val", 9: "int64_val", 10: "bool_val", 19: "half_val",
             14: "half_val", 17: "int_val"}[t.dtype]
    vals = list(getattr(t, field))
    if t.dtype in (19, 14):
        vals = np.array(vals, np.uint16).view(dt)
    vals = np.asarray(vals, dt)
    if vals.size == n:
        return vals.reshape(shape)
    return np.full(shape, vals[-1] if vals.size else 0, dt)


# ------------------------------------------------------------------ export
def _input_name(t):
    return t.op.name if t.value_index == 0 else f"{t.op.name}:{t.value_index}"


def _tf_parse_example(op):
    """Whether ``op`` (our ParseExample) is written as TF1's ``ParseExample`` op: batched,
    without sequence features (TF writes those with other ops)."""
    a = op.attrs
    return a.get("batched", True) and not any(d.sequence for d in a["dense"])


def _string_const(name, value):
    n = pb.NodeDef(name=name, op="Const")
    n.attr["value"].tensor.CopyFrom(make_tensor_proto(np.array(value, dtype=object)))
    n.attr["dtype"].type = 7
    return n


def _parse_example_nodes(op):
    """TF1's ``ParseExample``: inputs serialized, names, the sparse keys, the dense keys and
    the dense defaults (an empty tensor for a required feature) as ``Const`` nodes; attrs
    ``Nsparse``, ``Ndense``, ``sparse_types``, ``Tdense``, ``dense_shapes``."""
    a = op.attrs
    dense, sparse = a["dense"], a["sparse"]
    extra = []
    inputs = [_input_name(op.inputs[0])]
    if len(op.inputs) > 1:
        inputs.append(_input_name(op.inputs[1]))
    else:
        extra.append(_string_const(op.name + "/names", np.zeros((0,), object)))
        inputs.append(extra[-1].name)
    for i, (key, _) in enumerate(sparse):
        extra.append(_string_const(f"{op.name}/key_{key}", key.encode()))
        inputs.append(extra[-1].name)
    for d in dense:
        extra.append(_string_const(f"{op.name}/key_{d.key}", d.key.encode()))
        inputs.append(extra[-1].name)
    for d in dense:
        value = d.default if d.default is not None else np.zeros((0,), d.dtype.np
                                                                  if d.dtype.name != "string"
                                                                  else object)
        c = pb.NodeDef(name=f"{op.name}/default_{d.key}", op="Const")
        c.attr["value"].tensor.CopyFrom(make_tensor_proto(np.asarray(value)))
        c.attr["dtype"].type = dtype_enum(d.dtype)
        extra.append(c)
        inputs.append(c.name)
    node = pb.NodeDef(name=op.name, op="ParseExample", device=op.device or "")
    node.input.extend(inputs + ["^" + c.name for c in op.control_inputs])
    node.attr["Nsparse"].i, node.attr["Ndense"].i = len(sparse), len(dense)
    node.attr["sparse_types"].list.type.extend(dtype_enum(dt) for _, dt in sparse)
    node.attr["Tdense"].list.type.extend(dtype_enum(d.dtype) for d in dense)
    for d in dense:
        node.attr["dense_shapes"].list.shape.add().CopyFrom(shape_proto(list(d.shape)))
    return extra + [node]


def _attr(value):
    a = pb.AttrValue()
    if isinstance(value, bool):
        a.b = value
    elif isinstance(value, (int, np.integer)):
        a.i = int(value)
    elif isinstance(value, (float, np.floating)):
        a.f = float(value)
    elif isinstance(value, str):
        a.s = value.encode()
    elif isinstance(value, bytes):
        a.s = value
    elif isinstance(value, dtypes.DType):
        a.type = dtype_enum(value)
    elif isinstance(value, TensorShape):
        a.shape.CopyFrom(shape_proto(value))
    elif isinstance(value, np.ndarray):
        a.tensor.CopyFrom(make_tensor_proto(value))
    elif isinstance(value, (list, tuple)) and all(isinstance(v, (int, np.integer)) and
                                                  not isinstance(v, bool) for v in value):
        a.list.i.extend(int(v) for v in value)
        a.list.SetInParent()
    else:
        return None
    return a


def _spatial(op, node, names):
    nchw = bool(op.attrs.get("nchw"))
    node.attr["data_format"].s = b"NCHW" if nchw else b"NHWC"
    for key in names:
        if key in op.attrs and op.attrs[key] is not None:
            v = list(op.attrs[key])
            v = [1, 1] + v if nchw else [1] + v + [1]
            node.attr[key].list.i.extend(v)
    node.attr["padding"].s = str(op.attrs.get("padding", "VALID")).encode()


def _const_node(name, value, dtype=np.int32):
    n = pb.NodeDef(name=name, op="Const")
    arr = np.asarray(value, dtype)
    n.attr["value"].tensor.CopyFrom(make_tensor_proto(arr))
    n.attr["dtype"].type = dtype_enum(arr.dtype)
    return n


# our random ops with their scale folded in -> TF's raw op and the two attrs scaling it
def const_input_value(t, what):
    """The value of ``t``, an input of a node being imported that TF's op takes as a
    ``Const`` (a shape, axes, keys ...); ``what`` names it in the error otherwise."""
    if t.op.type != "Const":
        raise ValueError(f"import_graph_def: {what} must be a constant, got {t.name} "
                         f"({t.op.type})")
    return np.asarray(t.op.attrs["value"])


# import_graph_def's builders of node types that families above the engine define:
# ``IMPORT_BUILDERS[op] = fn(node_def, input_tensors, name)`` returning a tensor, an op, or
# a list of tensors standing for the node's outputs (registered by those families)
IMPORT_BUILDERS = {}
# export encoders of op types TF spells differently: ``EXPORT_ENCODERS[op_type] =
# fn(op) -> [NodeDef]`` (the last node named as the op), registered by the training
# layer (``train.graph_def_ops``: gradients, summaries, iterators; ``ApplyUpdates``)
EXPORT_ENCODERS = {}

_RANDOM = {"RandomUniform": ("RandomUniform", "minval", "maxval"),
           "RandomNormal": ("RandomStandardNormal", "mean", "stddev"),
           "TruncatedNormal": ("TruncatedNormal", "mean", "stddev")}


def _raw_random_node(name, tf_type, shape_input, dtype, seeds, device):
    """TF's ``RandomUniform`` / ``RandomStandardNormal`` / ``TruncatedNormal`` node on an
    int32 shape input, its ``seed``/``seed2`` from our (graph, op) seed pair."""
    node = pb.NodeDef(name=name, op=tf_type, input=[shape_input], device=device)
    node.attr["T"].type = 3
    node.attr["dtype"].type = dtype_enum(dtype)
    node.attr["seed"].i, node.attr["seed2"].i = int(seeds[0]), int(seeds[1])
    return node


def _random_nodes(op):
    """TF's form of a random op: the raw op on a shape ``Const`` (``seed``/``seed2`` from
    our (graph, op) seed pair), scaled by ``Mul`` and shifted by ``Add`` under the op's
    own name, as TF's ``random_uniform`` / ``random_normal`` / ``truncated_normal`` build
    it. ``None`` where the op's arguments are tensors (the generic encoding then)."""
    tf_type, shift_key, scale_key = _RANDOM[op.type]
    a = op.attrs
    shift, scale = a.get(shift_key), a.get(scale_key)
    shape = a.get("shape")
    if op.inputs or not isinstance(shape, tuple) or not all(
            isinstance(v, (int, float)) for v in (shift, scale)):
        return None
    if tf_type == "RandomUniform":
        scale = scale - shift  # TF: raw * (maxval - minval) + minval
    dt = a["dtype"]
    seeds = a.get("seed2") or (0, 0)
    base, dev = op.name + "/" + tf_type, op.device or ""
    if dt.is_integer:  # TF's RandomUniformInt on (shape, min, max) Consts, under the op's name
        nodes = [_const_node(op.name + "/shape", list(shape)),
                 _const_node(op.name + "/min", a["minval"], dt.np),
                 _const_node(op.name + "/max", a["maxval"], dt.np)]
        node = _raw_random_node(op.name, "RandomUniformInt", nodes[0].name, dt, seeds, dev)
        del node.attr["dtype"]
        node.attr["Tout"].type = dtype_enum(dt)
        node.input.extend([nodes[1].name, nodes[2].name] + ["^" + c.name
                                                            for c in op.control_inputs])
        return nodes + [node]
    nodes = [_const_node(op.name + "/shape", list(shape))]
    raw = _raw_random_node(base, tf_type, nodes[0].name, dt, seeds, dev)
    nodes += [raw, _const_node(op.name + "/scale", scale, dt.np),
              _const_node(op.name + "/shift", shift, dt.np)]
    mul = pb.NodeDef(name=op.name + "/mul", op="Mul", input=[base, nodes[2].name], device=dev)
    add = pb.NodeDef(name=op.name, op="Add", input=[mul.name, nodes[3].name], device=dev)
    add.input.extend("^" + c.name for c in op.control_inputs)
    for n in (mul, add):
        n.attr["T"].type = dtype_enum(dt)
    return nodes + [mul, add]


def _uniform_like_nodes(op):
    """Our ``RandomUniformLike`` (dropout's noise) as TF writes it: ``Shape`` of the input
    feeding a ``RandomUniform`` under the op's name."""
    x = op.inputs[0]
    shape = pb.NodeDef(name=op.name + "/Shape", op="Shape", input=[_input_name(x)],
                       device=op.device or "")
    shape.attr["T"].type = dtype_enum(x.dtype)
    shape.attr["out_type"].type = 3
    node = _raw_random_node(op.name, "RandomUniform", shape.name, x.dtype,
                            op.attrs.get("seed2") or (0, 0), op.device or "")
    node.input.extend("^" + c.name for c in op.control_inputs)
    return [shape, node]


def op_to_nodes(op):
    """The ``NodeDef``s (an added ``Const`` first where TF has an input) of ``op``."""
    encode = EXPORT_ENCODERS.get(op.type)
    if encode is not None:
        return encode(op)
    if op.type == "RandomUniformLike":
        return _uniform_like_nodes(op)
    if op.type in _RANDOM:
        nodes = _random_nodes(op)
        if nodes is not None:
            return nodes
    if op.type == "ParseExample" and _tf_parse_example(op):
        return _parse_example_nodes(op)
    node = pb.NodeDef(name=op.name, op=op.type, device=op.device or "")
    extra = []
    inputs = [_input_name(t) for t in op.inputs]
    t0 = op.inputs[0].dtype if op.inputs else None
    attrs = op.attrs
    if op.type in ("Assign", "AssignAdd", "AssignSub"):
        inputs = [attrs["var"].name] + inputs
        node.attr["T"].type = dtype_enum(attrs["var"].outputs[0].dtype)
        node.attr["use_locking"].b = True
        node.attr["_class"].list.s.append(b"loc:@" + attrs["var"].name.encode())
        if op.type == "Assign":
            node.attr["validate_shape"].b = True
    elif op.type == "VariableV2":
        node.attr["dtype"].type = dtype_enum(attrs["dtype"])
        node.attr["shape"].shape.CopyFrom(shape_proto(attrs["shape"]))
        node.attr["container"].s = b""
        node.attr["shared_name"].s = b""
    elif op.type == "Const":
        value = np.asarray(attrs["value"])
        node.attr["value"].tensor.CopyFrom(make_tensor_proto(value))
        node.attr["dtype"].type = 7 if value.dtype.kind in "OSU" else dtype_enum(value.dtype)
    elif op.type == "Placeholder":
        node.attr["dtype"].type = dtype_enum(attrs["dtype"])
        node.attr["shape"].shape.CopyFrom(shape_proto(attrs["shape"]))
    elif op.type == "Select":
        c, x, y = (t.shape for t in op.inputs)
        if not (c.ndims == 0 or c.is_fully_defined() and c == x and x == y):
            node.op = "SelectV2"  # numpy-style broadcasting, as this engine's Select does
        node.attr["T"].type = dtype_enum(op.inputs[1].dtype)
    elif op.type == "PlaceholderWithDefault":
        node.attr["dtype"].type = dtype_enum(op.outputs[0].dtype)
        node.attr["shape"].shape.CopyFrom(shape_proto(op.outputs[0].shape))
    elif op.type == "Cast":
        node.attr["SrcT"].type = dtype_enum(t0)
        node.attr["DstT"].type = dtype_enum(attrs["dtype"])
        node.attr["Truncate"].b = False
    elif op.type in ("Conv2D", "MaxPool", "AvgPool"):
        node.attr["T"].type = dtype_enum(t0)
        _spatial(op, node, ["strides", "ksize", "dilations"] if op.type == "Conv2D"
                 else ["strides", "ksize"])
        if op.type == "Conv2D":
            node.attr["use_cudnn_on_gpu"].b = True
    elif op.type in _REDUCTIONS and "axis" in attrs:
        axis = attrs["axis"]
        if axis is None:
            axis = list(range(op.inputs[0].shape.ndims or 0))
        extra.append(_const_node(op.name + "/reduction_indices", axis))
        inputs.append(extra[-1].name)
        node.attr["keep_dims"].b = bool(attrs.get("keepdims"))
        node.attr["Tidx"].type = 3
        if op.type not in ("All", "Any"):
            node.attr["T"].type = dtype_enum(t0)
    elif op.type in ("ArgMax", "ArgMin") and "axis" in attrs:
        extra.append(_const_node(op.name + "/dimension", attrs["axis"]))
        inputs.append(extra[-1].name)
        node.attr["T"].type = dtype_enum(t0)
        node.attr["Tidx"].type = 3
        node.attr["output_type"].type = dtype_enum(attrs["dtype"])
    elif op.type == "Reshape" and "shape" in attrs:
        extra.append(_const_node(op.name + "/shape", attrs["shape"]))
        inputs.append(extra[-1].name)
        node.attr["T"].type = dtype_enum(t0)
        node.attr["Tshape"].type = 3
    elif op.type == "Transpose" and "axes" in attrs:
        extra.append(_const_node(op.name + "/perm", attrs["axes"]))
        inputs.append(extra[-1].name)
        node.attr["T"].type = dtype_enum(t0)
        node.attr["Tperm"].type = 3
    else:
        if t0 is not None and op.type not in ("NoOp",):
            try:
                node.attr["T"].type = dtype_enum(t0)
            except KeyError:
                pass
        if op.type == "BiasAdd":
            node.attr["data_format"].s = b"NCHW" if attrs.get("nchw") or attrs.get(
                "data_format") == "NCHW" else b"NHWC"
        if op.type == "AddN":
            node.attr["N"].i = len(op.inputs)
        for key, i in _TYPE_ATTRS.get(op.type, ()):
            if i < len(op.inputs):
                node.attr[key].type = dtype_enum(op.inputs[i].dtype)
        for key, value in attrs.items():
            if key not in _KNOWN_ATTRS:
                continue
            if key == "seed2" and not isinstance(value, int):   # our (seed, seed2) pair
                node.attr["seed"].i, node.attr["seed2"].i = (int(v) for v in value or (0, 0))
                continue
            a = _attr(value)
            if a is not None:
                node.attr[key].CopyFrom(a)
    node.input.extend(inputs + ["^" + c.name for c in op.control_inputs])
    return extra + [node]


# type attrs of TF's ops beyond ``T`` (from input i), where TF's default may differ
_TYPE_ATTRS = {"SparseSoftmaxCrossEntropyWithLogits": [("Tlabels", 1)],
               "OneHot": [("TI", 0)], "GatherV2": [("Tparams", 0), ("Tindices", 1),
                                                   ("Taxis", 2)],
               "Shape": [], "UnsortedSegmentSum": [("Tindices", 1), ("Tnumsegments", 2)]}


def graph_to_graph_def(graph, add_shapes=False):
    """The ``GraphDef`` protobuf of ``graph``."""
    gd = pb.GraphDef(versions=pb.VersionDef(producer=GRAPH_PRODUCER))
    for op in graph.get_operations():
        try:
            nodes = op_to_nodes(op)
        except (KeyError, TypeError, ValueError):
            # an attr TF has no encoding for (an engine-internal op): type and inputs only
            nodes = [pb.NodeDef(name=op.name, op=op.type, input=[
                _input_name(t) for t in op.inputs] + ["^" + c.name for c in op.control_inputs])]
        for node in nodes:
            if add_shapes and node.name == op.name and op.outputs:
                lst = node.attr["_output_shapes"].list
                for t in op.outputs:
                    lst.shape.add().CopyFrom(shape_proto(t.shape))
            gd.node.append(node)
    return gd


__all__ = ["graph_to_graph_def", "op_to_nodes", "make_tensor_proto", "tensor_proto_value",
           "shape_proto", "proto_shape", "dtype_enum", "enum_dtype"]
