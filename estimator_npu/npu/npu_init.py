"""``npu_bridge.npu_init``: every adapter name in one module (``from ... import *``)."""
from estimator_npu.npu import *  # noqa: F401,F403
from estimator_npu.npu import NPUEstimator, NPURunConfig, util  # noqa: F401

__all__ = [n for n in dir() if not n.startswith("_")]
