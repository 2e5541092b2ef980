"""Builds the ``tensorflow.Example`` family of messages with protobuf's descriptor API.

The messages are declared here field by field, with TensorFlow's message names and field
numbers (so their serialized bytes are TF's), in a private descriptor pool so that they
never clash with another definition of the same names in the process::

    feature.proto   BytesList{repeated bytes value=1}  FloatList{repeated float value=1}
                    Int64List{repeated int64 value=1}
                    Feature{oneof kind: bytes_list=1, float_list=2, int64_list=3}
                    Features{map<string, Feature> feature=1}
                    FeatureList{repeated Feature feature=1}
                    FeatureLists{map<string, FeatureList> feature_list=1}
    example.proto   Example{Features features=1}
                    SequenceExample{Features context=1, FeatureLists feature_lists=2}
"""
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

F = descriptor_pb2.FieldDescriptorProto
POOL = descriptor_pool.DescriptorPool()
PACKAGE = "tensorflow"


def _field(msg, name, number, ftype, label=F.LABEL_OPTIONAL, type_name=None,
           oneof_index=None, packed=False):
    f = msg.field.add(name=name, number=number, type=ftype, label=label)
    if type_name:
        f.type_name = type_name
    if oneof_index is not None:
        f.oneof_index = oneof_index
    if packed:
        f.options.packed = True
    return f


def _map(msg, name, value_type):
    entry = msg.nested_type.add(name="".join(p.capitalize() for p in name.split("_"))
                                + "Entry")
    entry.options.map_entry = True
    _field(entry, "key", 1, F.TYPE_STRING)
    _field(entry, "value", 2, F.TYPE_MESSAGE, type_name=value_type)
    _field(msg, name, 1, F.TYPE_MESSAGE, F.LABEL_REPEATED,
           f".{PACKAGE}.{msg.name}.{entry.name}")


def _feature_file():
    fd = descriptor_pb2.FileDescriptorProto(name="tensorflow/core/example/feature.proto",
                                            package=PACKAGE, syntax="proto3")
    for name, ftype, packed in (("BytesList", F.TYPE_BYTES, False),
                                ("FloatList", F.TYPE_FLOAT, True),
                                ("Int64List", F.TYPE_INT64, True)):
        _field(fd.message_type.add(name=name), "value", 1, ftype, F.LABEL_REPEATED,
               packed=packed)
    feature = fd.message_type.add(name="Feature")
    feature.oneof_decl.add(name="kind")
    for number, name in enumerate(("bytes_list", "float_list", "int64_list"), 1):
        kind = "".join(p.capitalize() for p in name.split("_"))
        _field(feature, name, number, F.TYPE_MESSAGE, type_name=f".{PACKAGE}.{kind}",
               oneof_index=0)
    _map(fd.message_type.add(name="Features"), "feature", f".{PACKAGE}.Feature")
    _field(fd.message_type.add(name="FeatureList"), "feature", 1, F.TYPE_MESSAGE,
           F.LABEL_REPEATED, f".{PACKAGE}.Feature")
    _map(fd.message_type.add(name="FeatureLists"), "feature_list", f".{PACKAGE}.FeatureList")
    return fd


def _example_file():
    fd = descriptor_pb2.FileDescriptorProto(name="tensorflow/core/example/example.proto",
                                            package=PACKAGE, syntax="proto3")
    fd.dependency.append("tensorflow/core/example/feature.proto")
    _field(fd.message_type.add(name="Example"), "features", 1, F.TYPE_MESSAGE,
           type_name=f".{PACKAGE}.Features")
    seq = fd.message_type.add(name="SequenceExample")
    _field(seq, "context", 1, F.TYPE_MESSAGE, type_name=f".{PACKAGE}.Features")
    _field(seq, "feature_lists", 2, F.TYPE_MESSAGE, type_name=f".{PACKAGE}.FeatureLists")
    return fd


POOL.Add(_feature_file())
POOL.Add(_example_file())


def message_class(name):
    return message_factory.GetMessageClass(POOL.FindMessageTypeByName(f"{PACKAGE}.{name}"))
