"""``tf.sparse``: sparse tensors (re-exports only)."""
from estimator_npu.data.sparse import SparseTensor  # noqa: F401
from estimator_npu.data.sparse import sparse_tensor_to_dense as to_dense  # noqa: F401
from estimator_npu.math_ops_extra.segments import sparse_segment_mean as segment_mean  # noqa
from estimator_npu.math_ops_extra.segments import sparse_segment_sqrt_n as segment_sqrt_n  # noqa
from estimator_npu.math_ops_extra.segments import sparse_segment_sum as segment_sum  # noqa
from estimator_npu.math_ops_extra.sparse_ops import from_dense  # noqa: F401,E402
from estimator_npu.math_ops_extra.sparse_ops import sparse_add as add  # noqa: F401,E402
from estimator_npu.math_ops_extra.sparse_ops import sparse_concat as concat  # noqa: F401,E402
from estimator_npu.math_ops_extra.sparse_ops import (  # noqa: F401,E402
    sparse_fill_empty_rows as fill_empty_rows, sparse_reduce_max as reduce_max,
    sparse_reduce_sum as reduce_sum, sparse_reorder as reorder, sparse_reshape as reshape,
    sparse_retain as retain, sparse_slice as slice, sparse_softmax as softmax,
    sparse_tensor_dense_matmul as sparse_dense_matmul, sparse_tensor_dense_matmul as matmul,
    sparse_transpose as transpose)
from estimator_npu.math_ops_extra.sparse_ops import sparse_placeholder as placeholder  # noqa
from estimator_npu.math_ops_extra.sparse_more import (  # noqa: F401,E402
    sparse_maximum as maximum, sparse_merge as merge, sparse_minimum as minimum,
    sparse_split as split, sparse_to_indicator as to_indicator)
from estimator_npu.lookup.sparse_cross import sparse_cross_hashed as cross_hashed  # noqa: F401,E402
