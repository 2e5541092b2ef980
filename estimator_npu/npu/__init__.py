"""The Ascend adapter's names (``npu_bridge``), as ``estimator_npu.npu``.

``from estimator_npu.npu import util`` replaces ``from npu_bridge.estimator.npu import util``;
``estimator_npu.npu.npu_init`` re-exports everything, like ``npu_bridge.npu_init``.
"""
from estimator_npu.npu import util  # noqa: F401
