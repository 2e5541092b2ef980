"""``tf.linalg.LinearOperator*``: matrices described by structure, over the dense ops.

The operators TF1 scripts build (the Transformer's causal mask is
``LinearOperatorLowerTriangular(ones).to_dense()``)::

    op = tf.linalg.LinearOperatorLowerTriangular(tril)   # the upper triangle is ignored
    op.to_dense(); op.matmul(x); op.matvec(v); op.solve(rhs); op.determinant()

Every method is built from ops that have gradients (``matrix_band_part``, ``matmul``,
``matrix_triangular_solve``, ...), so gradients flow to the operator's tensor. Shapes are
``[..., M, N]`` (batch dimensions first), as TF.
"""
from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import name_scope
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.core import convert_to_tensor, identity
from estimator_npu.engine.ops.scatter_ops import eye
from estimator_npu.engine.shape import TensorShape
from estimator_npu.linalg.composites import matvec as _matvec
from estimator_npu.linalg.linalg_ops import (matrix_band_part, matrix_determinant,
                                             matrix_diag, matrix_diag_part, matrix_solve,
                                             matrix_triangular_solve, log_matrix_determinant)


class LinearOperator:
    """The shared interface; subclasses give ``_dense()`` and may specialise the rest."""

    def __init__(self, dtype, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        self._dtype = dtype
        self._name = name or type(self).__name__
        self.is_non_singular = is_non_singular
        self.is_self_adjoint = is_self_adjoint
        self.is_positive_definite = is_positive_definite
        self.is_square = is_square

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    @property
    def shape(self):
        return self._static_shape()

    def _static_shape(self):
        return self._dense().shape

    @property
    def batch_shape(self):
        dims = self.shape.values
        return TensorShape(None if dims is None else dims[:-2])

    @property
    def tensor_rank(self):
        return self.shape.ndims

    @property
    def domain_dimension(self):
        return TensorShape(None if self.shape.ndims is None else [self.shape.values[-1]])[0]

    @property
    def range_dimension(self):
        return TensorShape(None if self.shape.ndims is None else [self.shape.values[-2]])[0]

    def shape_tensor(self, name="shape_tensor"):
        with name_scope(self._name):
            return array_ops.shape(self._dense(), name=name)

    def to_dense(self, name="to_dense"):
        """The operator as a dense ``[..., M, N]`` tensor."""
        with name_scope(self._name):
            with name_scope(name):
                return self._dense()

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """``A @ x`` (``A^H`` with ``adjoint``, ``x^H`` with ``adjoint_arg``)."""
        if isinstance(x, LinearOperator):
            x = x.to_dense()
        with name_scope(self._name):
            with name_scope(name):
                return math_ops.matmul(self._dense(), convert_to_tensor(x, dtype=self._dtype),
                                       adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def matvec(self, x, adjoint=False, name="matvec"):
        """``A @ x`` for a vector (batch) ``x`` of shape ``[..., N]``."""
        with name_scope(self._name):
            with name_scope(name):
                return _matvec(self._dense(), convert_to_tensor(x, dtype=self._dtype),
                               adjoint_a=adjoint)

    def diag_part(self, name="diag_part"):
        with name_scope(self._name):
            with name_scope(name):
                return matrix_diag_part(self._dense())

    def trace(self, name="trace"):
        with name_scope(self._name):
            with name_scope(name):
                return math_ops.reduce_sum(matrix_diag_part(self._dense()), -1)

    def determinant(self, name="det"):
        with name_scope(self._name):
            with name_scope(name):
                return self._determinant()

    def _determinant(self):
        return matrix_determinant(self._dense())

    def log_abs_determinant(self, name="log_abs_det"):
        with name_scope(self._name):
            with name_scope(name):
                return self._log_abs_determinant()

    def _log_abs_determinant(self):
        return log_matrix_determinant(self._dense())[1]

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """``X`` with ``A X = rhs`` (``A^H X = rhs`` with ``adjoint``)."""
        with name_scope(self._name):
            with name_scope(name):
                rhs = convert_to_tensor(rhs, dtype=self._dtype)
                if adjoint_arg:
                    rhs = _adjoint(rhs)
                return self._solve(rhs, adjoint)

    def _solve(self, rhs, adjoint):
        dense = _adjoint(self._dense()) if adjoint else self._dense()
        return matrix_solve(dense, rhs)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        rhs = convert_to_tensor(rhs, dtype=self._dtype)
        return array_ops.squeeze(self.solve(array_ops.expand_dims(rhs, -1), adjoint,
                                            name=name), [-1])

    def add_to_tensor(self, x, name="add_to_tensor"):
        with name_scope(self._name):
            with name_scope(name):
                return math_ops.add(self._dense(), convert_to_tensor(x, dtype=self._dtype))

    def __matmul__(self, other):
        return self.matmul(other)


def _adjoint(x):
    nd = x.shape.ndims
    if nd is None:
        raise ValueError(f"the adjoint needs a tensor of known rank, got {x.name}")
    return array_ops.transpose(x, list(range(nd - 2)) + [nd - 1, nd - 2],
                               conjugate=_is_complex(x.dtype))


def _is_complex(dtype):
    return dtype in (dtypes.complex64, dtypes.complex128)


def _matrix(value, name, what):
    t = convert_to_tensor(value, name=name)
    if t.shape.ndims is not None and t.shape.ndims < 2:
        raise ValueError(f"{what}: {name} must have rank >= 2 ([..., M, N]), got shape "
                         f"{t.shape}")
    return t


class LinearOperatorFullMatrix(LinearOperator):
    """A dense ``[..., M, N]`` matrix as an operator."""

    def __init__(self, matrix, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorFullMatrix"):
        self._matrix = _matrix(matrix, "matrix", "LinearOperatorFullMatrix")
        super().__init__(self._matrix.dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name)

    def _dense(self):
        return self._matrix


class LinearOperatorLowerTriangular(LinearOperator):
    """The lower triangle of ``tril`` (``[..., N, N]``); the part above the diagonal is
    ignored, as TF."""

    def __init__(self, tril, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowerTriangular"):
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this time.")
        self._tril = _matrix(tril, "tril", "LinearOperatorLowerTriangular")
        super().__init__(self._tril.dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name)

    def _dense(self):
        return matrix_band_part(self._tril, -1, 0)

    def _determinant(self):
        return math_ops.reduce_prod(matrix_diag_part(self._tril), -1)

    def _log_abs_determinant(self):
        return math_ops.reduce_sum(math_ops.log(math_ops.abs(matrix_diag_part(self._tril))),
                                   -1)

    def _solve(self, rhs, adjoint):
        return matrix_triangular_solve(self._dense(), rhs, lower=True, adjoint=adjoint)


class LinearOperatorDiag(LinearOperator):
    """The diagonal matrix of ``diag`` (``[..., N]``)."""

    def __init__(self, diag, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name="LinearOperatorDiag"):
        if is_square is False:
            raise ValueError("Only square diagonal operators currently supported.")
        self._diag = convert_to_tensor(diag, name="diag")
        if self._diag.shape.ndims == 0:
            raise ValueError(f"LinearOperatorDiag: diag must have rank >= 1, got shape "
                             f"{self._diag.shape}")
        super().__init__(self._diag.dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name)

    def _dense(self):
        return matrix_diag(self._diag)

    def _determinant(self):
        return math_ops.reduce_prod(self._diag, -1)

    def _log_abs_determinant(self):
        return math_ops.reduce_sum(math_ops.log(math_ops.abs(self._diag)), -1)

    def _solve(self, rhs, adjoint):
        if adjoint and _is_complex(self._dtype):
            raise NotImplementedError("LinearOperatorDiag.solve(adjoint=True) of a complex "
                                      "diagonal is not implemented")
        return math_ops.divide(rhs, array_ops.expand_dims(self._diag, -1))

    def diag_part(self, name="diag_part"):
        with name_scope(self._name):
            return identity(self._diag, name=name)


class LinearOperatorIdentity(LinearOperator):
    """The ``num_rows x num_rows`` identity (with ``batch_shape`` copies)."""

    def __init__(self, num_rows, batch_shape=None, dtype=None, is_non_singular=True,
                 is_self_adjoint=True, is_positive_definite=True, is_square=True,
                 assert_proper_shapes=False, name="LinearOperatorIdentity"):
        if not isinstance(num_rows, int) or num_rows < 0:
            raise ValueError(f"LinearOperatorIdentity: num_rows must be a non-negative int, "
                             f"got {num_rows!r}")
        self._num_rows = num_rows
        self._batch = list(batch_shape) if batch_shape is not None else None
        super().__init__(dtypes.as_dtype(dtype or dtypes.float32), is_non_singular,
                         is_self_adjoint, is_positive_definite, is_square, name)

    def _dense(self):
        return eye(self._num_rows, batch_shape=self._batch, dtype=self._dtype)

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        if self._batch is not None:
            return super().matmul(x, adjoint, adjoint_arg, name)
        x = convert_to_tensor(x.to_dense() if isinstance(x, LinearOperator) else x,
                              dtype=self._dtype)
        with name_scope(self._name):
            return _adjoint(x) if adjoint_arg else identity(x, name=name)
