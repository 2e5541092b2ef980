"""``tensorflow.core.framework.graph_pb2``."""

from estimator_npu.engine.tf_protos import GraphDef  # noqa: F401

__all__ = ["GraphDef"]
