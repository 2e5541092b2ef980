"""The adapter's gradient-split API (``npu_bridge.hccl``): how gradients are packed into
all-reduce segments."""
from estimator_npu.distribute.hccl import (get_split_strategy, reset_split_strategy,  # noqa: F401
                                           set_split_strategy_by_idx,
                                           set_split_strategy_by_size)
