"""``npu_bridge.estimator.npu.util``: ``set_iteration_per_loop`` and ``IterationPerLoop``."""
from estimator_npu.device.util import IterationPerLoop, set_iteration_per_loop  # noqa: F401
