"""The Ascend adapter's names (``npu_bridge``), as ``estimator_npu.npu``.

``from estimator_npu.npu import util`` replaces ``from npu_bridge.estimator.npu import util``;
``from estimator_npu.npu.npu_init import *`` replaces ``from npu_bridge.npu_init import *``.
"""
from estimator_npu.estimator import NPURunConfig  # noqa: F401
from estimator_npu.npu import util  # noqa: F401
from estimator_npu.npu.npu_estimator import NPUEstimator  # noqa: F401
