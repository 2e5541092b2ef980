"""TensorFlow's own protobuf messages, defined here (wire- and text-compatible with TF's).

The messages are built at import time from a compact field table into a private
``DescriptorPool`` under TF's package name ``tensorflow``, so their binary and text
forms are TF's (``GraphDef``, ``NodeDef``, ``AttrValue``, ``TensorProto``,
``TensorShapeProto``, ``MetaGraphDef``, ``SaverDef``, ``CollectionDef``, ``VariableDef``,
``BundleHeaderProto``, ``BundleEntryProto``...). Only the fields this project reads or
writes are declared; the fields TF adds and we do not know (a graph's function library,
a meta graph's stripped op list) survive a parse/serialize round trip as unknown fields.

Field numbers follow TF's public ``.proto`` files (``tensorflow/core/framework/*.proto``,
``tensorflow/core/protobuf/{meta_graph,saver,tensor_bundle}.proto``).
"""
from google.protobuf import descriptor_pb2, descriptor_pool

try:
    from google.protobuf import message_factory as _mf
    _get_class = getattr(_mf, "GetMessageClass", None)
except ImportError:  # pragma: no cover
    _mf, _get_class = None, None

_F = descriptor_pb2.FieldDescriptorProto
_TYPES = {"double": _F.TYPE_DOUBLE, "float": _F.TYPE_FLOAT, "int64": _F.TYPE_INT64,
          "uint64": _F.TYPE_UINT64, "int32": _F.TYPE_INT32, "fixed32": _F.TYPE_FIXED32,
          "bool": _F.TYPE_BOOL, "string": _F.TYPE_STRING, "bytes": _F.TYPE_BYTES,
          "uint32": _F.TYPE_UINT32}

DATA_TYPES = [("DT_INVALID", 0), ("DT_FLOAT", 1), ("DT_DOUBLE", 2), ("DT_INT32", 3),
              ("DT_UINT8", 4), ("DT_INT16", 5), ("DT_INT8", 6), ("DT_STRING", 7),
              ("DT_COMPLEX64", 8), ("DT_INT64", 9), ("DT_BOOL", 10), ("DT_QINT8", 11),
              ("DT_QUINT8", 12), ("DT_QINT32", 13), ("DT_BFLOAT16", 14), ("DT_QINT16", 15),
              ("DT_QUINT16", 16), ("DT_UINT16", 17), ("DT_COMPLEX128", 18), ("DT_HALF", 19),
              ("DT_RESOURCE", 20), ("DT_VARIANT", 21), ("DT_UINT32", 22), ("DT_UINT64", 23)]
DATA_TYPES += [(n + "_REF", v + 100) for n, v in DATA_TYPES[1:]]

# message name -> [(field name, number, type, label)]; label "*" repeated, "p" packed
# repeated, "" optional; type is a scalar name, ".Message" or "enum:.Enum";
# "oneof:name" as 5th entry puts the field into a oneof; ("map", key, value) types map.
_MESSAGES = {
    "TensorShapeProto": [("dim", 2, ".TensorShapeProto.Dim", "*"),
                         ("unknown_rank", 3, "bool", "")],
    "TensorShapeProto.Dim": [("size", 1, "int64", ""), ("name", 2, "string", "")],
    "VersionDef": [("producer", 1, "int32", ""), ("min_consumer", 2, "int32", ""),
                   ("bad_consumers", 3, "int32", "p")],
    "TensorSliceProto": [("extent", 1, ".TensorSliceProto.Extent", "*")],
    "TensorSliceProto.Extent": [("start", 1, "int64", ""),
                                ("length", 2, "int64", "", "has_length")],
    "BundleHeaderProto": [("num_shards", 1, "int32", ""),
                          ("endianness", 2, "enum:.BundleHeaderProto.Endianness", ""),
                          ("version", 3, ".VersionDef", "")],
    "BundleEntryProto": [("dtype", 1, "enum:.DataType", ""),
                         ("shape", 2, ".TensorShapeProto", ""), ("shard_id", 3, "int32", ""),
                         ("offset", 4, "int64", ""), ("size", 5, "int64", ""),
                         ("crc32c", 6, "fixed32", ""),
                         ("slices", 7, ".TensorSliceProto", "*")],
    "TensorProto": [("dtype", 1, "enum:.DataType", ""),
                    ("tensor_shape", 2, ".TensorShapeProto", ""),
                    ("version_number", 3, "int32", ""), ("tensor_content", 4, "bytes", ""),
                    ("half_val", 13, "int32", "p"), ("float_val", 5, "float", "p"),
                    ("double_val", 6, "double", "p"), ("int_val", 7, "int32", "p"),
                    ("string_val", 8, "bytes", "*"), ("scomplex_val", 9, "float", "p"),
                    ("int64_val", 10, "int64", "p"), ("bool_val", 11, "bool", "p"),
                    ("dcomplex_val", 12, "double", "p"), ("uint32_val", 16, "uint32", "p"),
                    ("uint64_val", 17, "uint64", "p")],
    "AttrValue": [("s", 2, "bytes", "", "value"), ("i", 3, "int64", "", "value"),
                  ("f", 4, "float", "", "value"), ("b", 5, "bool", "", "value"),
                  ("type", 6, "enum:.DataType", "", "value"),
                  ("shape", 7, ".TensorShapeProto", "", "value"),
                  ("tensor", 8, ".TensorProto", "", "value"),
                  ("list", 1, ".AttrValue.ListValue", "", "value"),
                  ("func", 10, ".NameAttrList", "", "value"),
                  ("placeholder", 9, "string", "", "value")],
    "AttrValue.ListValue": [("s", 2, "bytes", "*"), ("i", 3, "int64", "p"),
                            ("f", 4, "float", "p"), ("b", 5, "bool", "p"),
                            ("type", 6, "enum:.DataType", "p"),
                            ("shape", 7, ".TensorShapeProto", "*"),
                            ("tensor", 8, ".TensorProto", "*"),
                            ("func", 9, ".NameAttrList", "*")],
    "NameAttrList": [("name", 1, "string", ""), ("attr", 2, ("map", "string", ".AttrValue"), "*")],
    "NodeDef": [("name", 1, "string", ""), ("op", 2, "string", ""), ("input", 3, "string", "*"),
                ("device", 4, "string", ""), ("attr", 5, ("map", "string", ".AttrValue"), "*")],
    "GraphDef": [("node", 1, ".NodeDef", "*"), ("versions", 4, ".VersionDef", ""),
                 ("version", 3, "int32", "")],
    "SaverDef": [("filename_tensor_name", 1, "string", ""), ("save_tensor_name", 2, "string", ""),
                 ("restore_op_name", 3, "string", ""), ("max_to_keep", 4, "int32", ""),
                 ("sharded", 5, "bool", ""), ("keep_checkpoint_every_n_hours", 6, "float", ""),
                 ("version", 7, "enum:.SaverDef.CheckpointFormatVersion", "")],
    "CollectionDef": [("node_list", 1, ".CollectionDef.NodeList", "", "kind"),
                      ("bytes_list", 2, ".CollectionDef.BytesList", "", "kind"),
                      ("int64_list", 3, ".CollectionDef.Int64List", "", "kind"),
                      ("float_list", 4, ".CollectionDef.FloatList", "", "kind")],
    "CollectionDef.NodeList": [("value", 1, "string", "*")],
    "CollectionDef.BytesList": [("value", 1, "bytes", "*")],
    "CollectionDef.Int64List": [("value", 1, "int64", "p")],
    "CollectionDef.FloatList": [("value", 1, "float", "p")],
    "MetaGraphDef": [("meta_info_def", 1, ".MetaGraphDef.MetaInfoDef", ""),
                     ("graph_def", 2, ".GraphDef", ""), ("saver_def", 3, ".SaverDef", ""),
                     ("collection_def", 4, ("map", "string", ".CollectionDef"), "*"),
                     ("signature_def", 5, ("map", "string", ".SignatureDef"), "*")],
    # tensorflow/core/protobuf/meta_graph.proto and saved_model.proto
    "TensorInfo": [("name", 1, "string", "", "encoding"), ("dtype", 2, "enum:.DataType", ""),
                   ("tensor_shape", 3, ".TensorShapeProto", "")],
    "SignatureDef": [("inputs", 1, ("map", "string", ".TensorInfo"), "*"),
                     ("outputs", 2, ("map", "string", ".TensorInfo"), "*"),
                     ("method_name", 3, "string", "")],
    "SavedModel": [("saved_model_schema_version", 1, "int64", ""),
                   ("meta_graphs", 2, ".MetaGraphDef", "*")],
    "MetaGraphDef.MetaInfoDef": [("meta_graph_version", 1, "string", ""),
                                 ("tags", 4, "string", "*"),
                                 ("tensorflow_version", 5, "string", ""),
                                 ("tensorflow_git_version", 6, "string", ""),
                                 ("stripped_default_attrs", 7, "bool", "")],
    "VariableDef": [("variable_name", 1, "string", ""), ("initial_value_name", 6, "string", ""),
                    ("initializer_name", 2, "string", ""), ("snapshot_name", 3, "string", ""),
                    ("is_resource", 5, "bool", ""), ("trainable", 7, "bool", "")],
    "QueueRunnerDef": [("queue_name", 1, "string", ""), ("enqueue_op_name", 2, "string", "*"),
                       ("close_op_name", 3, "string", ""), ("cancel_op_name", 4, "string", "")],
}
_ENUMS = {"DataType": DATA_TYPES,
          "BundleHeaderProto.Endianness": [("LITTLE", 0), ("BIG", 1)],
          "SaverDef.CheckpointFormatVersion": [("LEGACY", 0), ("V1", 1), ("V2", 2)]}
_PKG = "tensorflow"


def _containers(fdp):
    """Creates the (possibly nested) DescriptorProto for every message and enum name."""
    made = {}

    def get(name):
        if name in made:
            return made[name]
        parent, _, short = name.rpartition(".")
        holder = get(parent).nested_type if parent else fdp.message_type
        d = holder.add()
        d.name = short
        made[name] = d
        return d
    for name in _MESSAGES:
        get(name)
    for name, values in _ENUMS.items():
        parent, _, short = name.rpartition(".")
        e = (get(parent).enum_type if parent else fdp.enum_type).add()
        e.name = short
        for n, v in values:
            e.value.add(name=n, number=v)
    return made


def _set_type(f, kind):
    if kind.startswith("enum:"):
        f.type, f.type_name = _F.TYPE_ENUM, "." + _PKG + kind[5:]
    elif kind.startswith("."):
        f.type, f.type_name = _F.TYPE_MESSAGE, "." + _PKG + kind
    else:
        f.type = _TYPES[kind]


def _build():
    fdp = descriptor_pb2.FileDescriptorProto(name="estimator_npu/tf_protos.proto",
                                             package=_PKG, syntax="proto3")
    made = _containers(fdp)
    for name, fields in _MESSAGES.items():
        d = made[name]
        oneofs = {}
        for spec in fields:
            fname, num, kind, label = spec[:4]
            f = d.field.add(name=fname, number=num)
            f.label = _F.LABEL_REPEATED if label else _F.LABEL_OPTIONAL
            if isinstance(kind, tuple):      # map<key, value>
                entry = d.nested_type.add(name="".join(p.capitalize() for p in
                                                       fname.split("_")) + "Entry")
                entry.options.map_entry = True
                k = entry.field.add(name="key", number=1, label=_F.LABEL_OPTIONAL)
                _set_type(k, kind[1])
                v = entry.field.add(name="value", number=2, label=_F.LABEL_OPTIONAL)
                _set_type(v, kind[2])
                f.type, f.type_name = _F.TYPE_MESSAGE, f".{_PKG}.{name}.{entry.name}"
            else:
                _set_type(f, kind)
            if label == "p":
                f.options.packed = True
            if len(spec) > 4:
                if spec[4] not in oneofs:
                    oneofs[spec[4]] = len(d.oneof_decl)
                    d.oneof_decl.add(name=spec[4])
                f.oneof_index = oneofs[spec[4]]
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(fdp.SerializeToString())
    fd = pool.FindFileByName(fdp.name)
    classes = {}
    for name in _MESSAGES:
        desc = pool.FindMessageTypeByName(f"{_PKG}.{name}")
        if _get_class is not None:
            classes[name] = _get_class(desc)
        else:  # pragma: no cover - protobuf < 4
            classes[name] = _mf.MessageFactory(pool).GetPrototype(desc)
    return pool, fd, classes


POOL, FILE_DESCRIPTOR, _CLASSES = _build()
TensorShapeProto = _CLASSES["TensorShapeProto"]
VersionDef = _CLASSES["VersionDef"]
TensorSliceProto = _CLASSES["TensorSliceProto"]
BundleHeaderProto = _CLASSES["BundleHeaderProto"]
BundleEntryProto = _CLASSES["BundleEntryProto"]
TensorProto = _CLASSES["TensorProto"]
AttrValue = _CLASSES["AttrValue"]
NameAttrList = _CLASSES["NameAttrList"]
NodeDef = _CLASSES["NodeDef"]
GraphDef = _CLASSES["GraphDef"]
SaverDef = _CLASSES["SaverDef"]
CollectionDef = _CLASSES["CollectionDef"]
MetaGraphDef = _CLASSES["MetaGraphDef"]
VariableDef = _CLASSES["VariableDef"]
QueueRunnerDef = _CLASSES["QueueRunnerDef"]
TensorInfo = _CLASSES["TensorInfo"]
SignatureDef = _CLASSES["SignatureDef"]
SavedModel = _CLASSES["SavedModel"]

__all__ = ["TensorShapeProto", "VersionDef", "TensorSliceProto", "BundleHeaderProto",
           "BundleEntryProto", "TensorProto", "AttrValue", "NameAttrList", "NodeDef",
           "TensorInfo", "SignatureDef", "SavedModel",
           "GraphDef", "SaverDef", "CollectionDef", "MetaGraphDef", "VariableDef",
           "QueueRunnerDef", "DATA_TYPES"]
