"""``tensorflow.core.example.feature_pb2``: Feature, Features, FeatureList(s) and the
value lists, as real protobuf messages with TF's field numbers."""
from estimator_npu.core.example._build import POOL, message_class

DESCRIPTOR = POOL.FindFileByName("tensorflow/core/example/feature.proto")
BytesList = message_class("BytesList")
FloatList = message_class("FloatList")
Int64List = message_class("Int64List")
Feature = message_class("Feature")
Features = message_class("Features")
FeatureList = message_class("FeatureList")
FeatureLists = message_class("FeatureLists")

__all__ = ["BytesList", "FloatList", "Int64List", "Feature", "Features", "FeatureList",
           "FeatureLists"]
