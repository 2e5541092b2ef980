"""Our own ops carried through a ``MetaGraphDef`` that TF's node form cannot describe.

``export_meta_graph`` writes each op as TF's ``NodeDef``s (``graph_def.op_to_nodes``).
Where those nodes do not import back as the same op (an engine op type TF lacks:
queues, ``LSTMBlock``, ``StridedSliceDynamic``, gradients such as ``SliceGrad``; an
attribute TF's form leaves out; the fused ``ApplyUpdates`` written as TF's
``ApplyGradientDescent``... nodes), the node named as the op gets one more attr,
``_estimator_npu_op``: a JSON record of the op (type, inputs, control inputs, output
dtypes and shapes, attributes, the helper nodes its TF form added). TF ignores attrs
whose names start with ``_``; ``import_graph_def`` rebuilds such a node as the very op
(``build``), and leaves out its helper nodes::

    {"type": "FIFOQueueV2", "inputs": [], "controls": [], "outputs": [["variant", []]],
     "attrs": {"capacity": 32, "component_types": {"list": [{"dtype": "int32"}]}, ...},
     "helpers": []}

Attributes are encoded by type (numbers, strings, dtypes, shapes, numpy arrays, slices,
lists/tuples/dicts of those, references to ops and tensors by name, update rules by
class); an op holding anything else (a Python callable) gets no record, and its nodes
import as before (an op type without a builder is named in the error).
"""
import base64
import json

import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine import graph_def as gd
from estimator_npu.engine.graph import Operation, Tensor
from estimator_npu.engine.shape import TensorShape

SPEC_ATTR = "_estimator_npu_op"
# node types whose import builder rebuilds only some of our encodings (an ellipsis in a
# StridedSlice, a training-mode fused batch norm): their ops carry the record too
_PARTIAL = frozenset(["StridedSlice", "FusedBatchNorm", "FusedBatchNormV2",
                      "FusedBatchNormV3"])

# op types whose TF form never imports back as the op: the fused update (TF's Apply*
# nodes, the Adam powers' own Assigns; without dense variables, only NoOps)
_ALWAYS = frozenset(["ApplyUpdates"])


class NotEncodable(Exception):
    """An attribute value without an encoding (args: a description of it)."""


def _rule_classes():
    from estimator_npu.train import update_rules
    return update_rules.UpdateRule


# small value classes of op attributes, rebuilt from their slots (and nothing else)
_VALUE_CLASSES = {"estimator_npu.engine.ops.slice_ops:_Bound": ("j",)}


def _value_class(path):
    import importlib
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def _encode(v):
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, (int, float)) and not isinstance(v, np.generic):
        return v if not isinstance(v, float) or np.isfinite(v) else {"float": repr(v)}
    if isinstance(v, dtypes.DType):
        return {"dtype": v.name}
    if isinstance(v, TensorShape):
        return {"shape": None if v.values is None else list(v.as_list())}
    if isinstance(v, np.ndarray) or isinstance(v, np.generic):
        a = np.asarray(v)
        if a.dtype.kind in "OSUV":
            raise NotEncodable(f"an array of dtype {a.dtype}")
        return {"array": [a.dtype.str, list(a.shape), base64.b64encode(
            np.ascontiguousarray(a).tobytes()).decode()], "scalar": isinstance(v, np.generic)}
    if isinstance(v, bytes):
        return {"bytes": base64.b64encode(v).decode()}
    if isinstance(v, slice):
        return {"slice": [_encode(v.start), _encode(v.stop), _encode(v.step)]}
    if v is Ellipsis:
        return {"ellipsis": True}
    if isinstance(v, Operation):
        return {"op": v.name}
    if isinstance(v, Tensor):
        return {"tensor": v.name}
    if isinstance(v, list):
        return {"list": [_encode(x) for x in v]}
    if isinstance(v, tuple):
        return {"tuple": [_encode(x) for x in v]}
    if isinstance(v, dict):
        return {"dict": [[_encode(k), _encode(x)] for k, x in v.items()]}
    path = f"{type(v).__module__}:{type(v).__qualname__}"
    if path in _VALUE_CLASSES:
        return {"value": path, "state": [_encode(getattr(v, k)) for k in _VALUE_CLASSES[path]]}
    if isinstance(v, _rule_classes()):
        cls = type(v)
        return {"rule": f"{cls.__module__}:{cls.__qualname__}", "state": _encode(vars(v))}
    raise NotEncodable(type(v).__name__)


def _decode(v, resolve):
    if not isinstance(v, dict):
        return v
    (key, val), *rest = v.items()
    if key == "float":
        return float(val)
    if key == "dtype":
        return dtypes.as_dtype(val)
    if key == "shape":
        return TensorShape(val)
    if key == "array":
        a = np.frombuffer(base64.b64decode(val[2]), np.dtype(val[0])).reshape(val[1]).copy()
        return a[()] if v.get("scalar") else a
    if key == "bytes":
        return base64.b64decode(val)
    if key == "slice":
        return slice(*(_decode(x, resolve) for x in val))
    if key == "ellipsis":
        return Ellipsis
    if key in ("op", "tensor"):
        return resolve(key, val)
    if key == "list":
        return [_decode(x, resolve) for x in val]
    if key == "tuple":
        return tuple(_decode(x, resolve) for x in val)
    if key == "dict":
        return {_decode(k, resolve): _decode(x, resolve) for k, x in val}
    if key == "value" and val in _VALUE_CLASSES:
        obj = _value_class(val).__new__(_value_class(val))
        for k, x in zip(_VALUE_CLASSES[val], v["state"]):
            setattr(obj, k, _decode(x, resolve))
        return obj
    if key == "rule":
        return _make_rule(val, _decode(v["state"], resolve))
    raise ValueError(f"import_graph_def: unknown attribute encoding {key!r} in "
                     f"{SPEC_ATTR}")


def _make_rule(path, state):
    """An update rule of class ``module:qualname`` (only ``UpdateRule`` subclasses of
    estimator_npu's own modules: a graph file never names arbitrary code to run)."""
    import importlib
    module, _, qualname = path.partition(":")
    base = _rule_classes()
    cls = None
    if module.startswith("estimator_npu."):
        cls = importlib.import_module(module)
        for part in qualname.split("."):
            cls = getattr(cls, part, None)
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise ValueError(f"import_graph_def: {path!r} in {SPEC_ATTR} is not an update rule "
                         "of estimator_npu")
    rule = cls.__new__(cls)
    rule.__dict__.update(state)
    return rule


def op_record(op, nodes):
    """The JSON record of ``op`` (written as ``nodes``), or ``None`` if an attribute has
    no encoding."""
    try:
        return json.dumps({
            "type": op.type, "inputs": [t.name for t in op.inputs],
            "controls": [c.name for c in op.control_inputs],
            "outputs": [[t.dtype.name, _encode(t.shape)] for t in op.outputs],
            "attrs": _encode(dict(op.attrs)),
            "helpers": [n.name for n in nodes if n.name != op.name]}, separators=(",", ":"))
    except (NotEncodable, TypeError, ValueError):
        # no record: the nodes import as TF's (a type without a builder is named then);
        # writing a checkpoint's .meta never fails on an op it cannot describe
        return None


def annotate(graph_def, graph, importable):
    """Adds the record to the node of every op of ``graph`` whose TF nodes in
    ``graph_def`` do not import back as the op (``importable``: the node types
    ``import_graph_def`` has builders for)."""
    by_name = {n.name: n for n in graph_def.node}
    for op in graph.get_operations():
        node = by_name.get(op.name)
        if node is None or op.type in ("VariableV2", "Const", "Placeholder"):
            continue
        nodes = [node]      # other ops add Const inputs only (importable)
        if op.type in gd.EXPORT_ENCODERS:
            try:
                nodes = gd.op_to_nodes(op)
            except (KeyError, TypeError, ValueError):
                pass        # written in the generic form (its type and inputs)
        if op.type not in _ALWAYS and all(n.op in importable and n.op not in _PARTIAL
                                          for n in nodes):
            continue
        record = op_record(op, nodes)
        if record is not None:
            node.attr[SPEC_ATTR].s = record.encode()


def read_record(node):
    """The decoded JSON record of ``node`` (``None`` if it has none)."""
    if SPEC_ATTR not in node.attr:
        return None
    return json.loads(node.attr[SPEC_ATTR].s.decode())


def build(record, name, tensor, graph):
    """Rebuilds the op of ``record`` as ``name`` in ``graph``; ``tensor(ref)`` gives the
    imported tensor (``"op:i"``) or op (``"^op"``) a name refers to."""
    def resolve(kind, ref):
        if kind == "op":
            got = tensor("^" + ref)
            return getattr(got, "op", got)
        return tensor(ref)
    inputs = [tensor(i) for i in record["inputs"]]
    controls = [tensor("^" + c) for c in record["controls"]]
    attrs = _decode(record["attrs"], resolve)
    outs = [(dtypes.as_dtype(dt), _decode(shape, resolve)) for dt, shape in record["outputs"]]
    with graph.control_dependencies(None):
        return graph.create_op(record["type"], inputs, attrs, outs, name=name,
                               control_inputs=[getattr(c, "op", c) for c in controls])


__all__ = ["annotate", "build", "read_record", "op_record", "SPEC_ATTR"]
