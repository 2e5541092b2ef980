"""``tf.data.experimental`` names used by TF1 input pipelines."""
from estimator_npu.data.base import AUTOTUNE  # noqa: F401

__all__ = ["AUTOTUNE"]
