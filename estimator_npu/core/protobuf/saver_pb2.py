"""``tensorflow.core.protobuf.saver_pb2``."""

from estimator_npu.engine.tf_protos import SaverDef  # noqa: F401

__all__ = ["SaverDef"]
