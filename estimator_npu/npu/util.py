"""``npu_bridge.estimator.npu.util``: ``set_iteration_per_loop``, ``IterationPerLoop`` and
``set_graph_exec_config``."""
from estimator_npu.device.util import (IterationPerLoop, set_graph_exec_config,  # noqa: F401
                                       set_iteration_per_loop)
