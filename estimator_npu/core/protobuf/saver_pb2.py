"""``tensorflow.core.protobuf.saver_pb2``: ``SaverDef`` and its checkpoint format versions
(``SaverDef.V2`` is what scripts pass as ``Saver(write_version=...)``)."""


class SaverDef:
    """The checkpoint format constants of TF's ``SaverDef`` message."""

    LEGACY, V1, V2 = 0, 1, 2

    def __init__(self, version=2, max_to_keep=5, keep_checkpoint_every_n_hours=10000.0,
                 sharded=False, filename_tensor_name="", save_tensor_name="",
                 restore_op_name=""):
        self.version = version
        self.max_to_keep = max_to_keep
        self.keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self.sharded = sharded
        self.filename_tensor_name = filename_tensor_name
        self.save_tensor_name = save_tensor_name
        self.restore_op_name = restore_op_name


__all__ = ["SaverDef"]
