"""``tensorflow.core.protobuf.meta_graph_pb2``."""

from estimator_npu.engine.tf_protos import MetaGraphDef  # noqa: F401
from estimator_npu.engine.tf_protos import CollectionDef  # noqa: F401

__all__ = ["MetaGraphDef", "CollectionDef"]
