"""``tensorflow.core.framework.attr_value_pb2``."""

from estimator_npu.engine.tf_protos import AttrValue  # noqa: F401
from estimator_npu.engine.tf_protos import NameAttrList  # noqa: F401

__all__ = ["AttrValue", "NameAttrList"]
