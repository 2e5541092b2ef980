"""``tensorflow.core.framework.versions_pb2``."""

from estimator_npu.engine.tf_protos import VersionDef  # noqa: F401

__all__ = ["VersionDef"]
