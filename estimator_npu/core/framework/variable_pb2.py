"""``tensorflow.core.framework.variable_pb2``."""

from estimator_npu.engine.tf_protos import VariableDef  # noqa: F401

__all__ = ["VariableDef"]
