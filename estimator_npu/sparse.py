"""``tf.sparse``: sparse tensors (re-exports only)."""
from estimator_npu.data.sparse import SparseTensor  # noqa: F401
from estimator_npu.data.sparse import sparse_tensor_to_dense as to_dense  # noqa: F401
