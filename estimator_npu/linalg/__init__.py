"""``tf.linalg``: batched dense linear algebra over numpy's LAPACK, with gradients
(``linalg_ops``: the op family; ``composites``: functions built from the ops). This
package's names are TF's ``tf.linalg`` namespace; ``estimator_npu`` re-exports the TF1
top-level aliases (``tf.matrix_inverse``, ``tf.cholesky``, ...)."""
from estimator_npu.engine.ops.math_extra_ops import einsum, norm  # noqa: F401
from estimator_npu.engine.ops.math_ops import matmul  # noqa: F401
from estimator_npu.engine.ops.nn_ops import l2_normalize  # noqa: F401
from estimator_npu.engine.ops.scatter_ops import eye  # noqa: F401
from estimator_npu.linalg.composites import (adjoint, cholesky_solve, cross, logdet,  # noqa: F401
                                             lstsq, matvec, tensor_diag, tensor_diag_part,
                                             tensordot, trace)
from estimator_npu.linalg.linalg_ops import (cholesky, log_matrix_determinant,  # noqa: F401
                                             matrix_band_part, matrix_determinant,
                                             matrix_diag, matrix_diag_part, matrix_inverse,
                                             matrix_set_diag, matrix_solve,
                                             matrix_transpose, matrix_triangular_solve, qr,
                                             self_adjoint_eig, self_adjoint_eigvals, svd)
from estimator_npu.linalg.linear_operator import (LinearOperator,  # noqa: F401
                                                  LinearOperatorDiag, LinearOperatorFullMatrix,
                                                  LinearOperatorIdentity,
                                                  LinearOperatorLowerTriangular)

inv = matrix_inverse
det = matrix_determinant
slogdet = log_matrix_determinant
solve = matrix_solve
triangular_solve = matrix_triangular_solve
diag = matrix_diag
diag_part = matrix_diag_part
set_diag = matrix_set_diag
band_part = matrix_band_part
transpose = matrix_transpose
eigh = self_adjoint_eig
eigvalsh = self_adjoint_eigvals


def _register_op_families():
    """Adds the linalg op family to the engine's op table (the one place this package
    registers ops)."""
    from estimator_npu.engine import registry
    from estimator_npu.linalg import linalg_ops
    registry.register_families([linalg_ops.OPS])


_register_op_families()
