"""``tensorflow.core.protobuf.rewriter_config_pb2``: ``RewriterConfig``."""

from estimator_npu.engine.config_pb import RewriterConfig

__all__ = ["RewriterConfig"]
