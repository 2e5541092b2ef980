"""``tf.sparse``: sparse tensors (re-exports only)."""
from estimator_npu.data.sparse import SparseTensor  # noqa: F401
from estimator_npu.data.sparse import sparse_tensor_to_dense as to_dense  # noqa: F401
from estimator_npu.math_ops_extra.segments import sparse_segment_mean as segment_mean  # noqa
from estimator_npu.math_ops_extra.segments import sparse_segment_sqrt_n as segment_sqrt_n  # noqa
from estimator_npu.math_ops_extra.segments import sparse_segment_sum as segment_sum  # noqa
