"""``tf.io``: ``tf.io.gfile`` (the file API in lowercase)."""
from estimator_npu.io import gfile  # noqa: F401

__all__ = ["gfile"]
