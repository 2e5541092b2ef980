"""``tensorflow.core.framework.tensor_shape_pb2``."""

from estimator_npu.engine.tf_protos import TensorShapeProto  # noqa: F401

__all__ = ["TensorShapeProto"]
