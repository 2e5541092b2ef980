"""``tensorflow.core.framework.tensor_pb2``."""

from estimator_npu.engine.tf_protos import TensorProto  # noqa: F401

__all__ = ["TensorProto"]
