"""``tensorflow.core.protobuf.config_pb2``: session configuration messages."""

from estimator_npu.engine.config_pb import ConfigProto
from estimator_npu.engine.config_pb import GPUOptions
from estimator_npu.engine.config_pb import GraphOptions
from estimator_npu.engine.config_pb import OptimizerOptions
from estimator_npu.engine.config_pb import RunMetadata
from estimator_npu.engine.config_pb import RunOptions

__all__ = ["ConfigProto", "GPUOptions", "GraphOptions", "OptimizerOptions", "RunMetadata",
           "RunOptions"]
