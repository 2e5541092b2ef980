"""TensorBoard's embedding-projector configuration (TF1's
``tf.contrib.tensorboard.plugins.projector``): the ``ProjectorConfig`` message (wire- and
text-compatible with TensorBoard's ``projector_config.proto``) and
``visualize_embeddings(writer, config)``, which writes it as ``projector_config.pbtxt`` in
the writer's log directory, where TensorBoard's projector looks for it."""
import os

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format

_F = descriptor_pb2.FieldDescriptorProto
_MESSAGES = {   # name -> [(field, number, type, repeated)]
    "SpriteMetadata": [("image_path", 1, "string", False),
                       ("single_image_dim", 2, "uint32", True)],
    "EmbeddingInfo": [("tensor_name", 1, "string", False), ("metadata_path", 2, "string", False),
                      ("bookmarks_path", 3, "string", False),
                      ("tensor_shape", 4, "uint32", True), ("sprite", 5, ".SpriteMetadata", False),
                      ("tensor_path", 6, "string", False)],
    "ProjectorConfig": [("model_checkpoint_path", 1, "string", False),
                        ("embeddings", 2, ".EmbeddingInfo", True),
                        ("model_checkpoint_dir", 3, "string", False)],
}
_PKG = "tensorflow"


def _build():
    fdp = descriptor_pb2.FileDescriptorProto(name="estimator_npu/projector_config.proto",
                                             package=_PKG, syntax="proto3")
    for name, fields in _MESSAGES.items():
        d = fdp.message_type.add(name=name)
        for fname, num, kind, repeated in fields:
            f = d.field.add(name=fname, number=num,
                            label=_F.LABEL_REPEATED if repeated else _F.LABEL_OPTIONAL)
            if kind.startswith("."):
                f.type, f.type_name = _F.TYPE_MESSAGE, f".{_PKG}{kind}"
            else:
                f.type = _F.TYPE_STRING if kind == "string" else _F.TYPE_UINT32
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(fdp.SerializeToString())
    return {n: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PKG}.{n}"))
            for n in _MESSAGES}


_CLASSES = _build()
SpriteMetadata = _CLASSES["SpriteMetadata"]
EmbeddingInfo = _CLASSES["EmbeddingInfo"]
ProjectorConfig = _CLASSES["ProjectorConfig"]


def visualize_embeddings(summary_writer, config):
    """Writes ``config`` to ``<logdir>/projector_config.pbtxt`` (``summary_writer`` is a
    ``tf.summary.FileWriter``, or anything with ``get_logdir()``)."""
    logdir = summary_writer.get_logdir()
    if logdir is None:
        raise ValueError("visualize_embeddings: the summary writer has no log directory")
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, "projector_config.pbtxt")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text_format.MessageToString(config))
    os.replace(tmp, path)
