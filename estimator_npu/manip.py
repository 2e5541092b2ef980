"""``tf.manip``: TF1's array-manipulation namespace (re-exports only)."""
from estimator_npu.engine.ops.array_ops import reshape, reverse, tile  # noqa: F401
from estimator_npu.engine.ops.scatter_ops import gather_nd, scatter_nd  # noqa: F401
from estimator_npu.math_ops_extra.array_extra import roll  # noqa: F401
from estimator_npu.math_ops_extra.space_ops import (batch_to_space_nd,  # noqa: F401
                                                    space_to_batch_nd)
