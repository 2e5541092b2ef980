"""``tensorflow.core.framework.node_def_pb2``."""

from estimator_npu.engine.tf_protos import NodeDef  # noqa: F401

__all__ = ["NodeDef"]
