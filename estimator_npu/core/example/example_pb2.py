"""``tensorflow.core.example.example_pb2``: Example and SequenceExample."""
from estimator_npu.core.example._build import POOL, message_class
from estimator_npu.core.example.feature_pb2 import (BytesList, Feature,  # noqa: F401
                                                    FeatureList, FeatureLists, Features,
                                                    FloatList, Int64List)

DESCRIPTOR = POOL.FindFileByName("tensorflow/core/example/example.proto")
Example = message_class("Example")
SequenceExample = message_class("SequenceExample")

__all__ = ["Example", "SequenceExample"]
