"""``tensorflow.core.protobuf.tensor_bundle_pb2``."""

from estimator_npu.engine.tf_protos import BundleHeaderProto  # noqa: F401
from estimator_npu.engine.tf_protos import BundleEntryProto  # noqa: F401

__all__ = ["BundleHeaderProto", "BundleEntryProto"]
