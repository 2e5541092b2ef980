"""``tf.linalg`` functions built from the linalg ops and the engine's: ``trace``,
``logdet``, ``cholesky_solve``, ``lstsq`` (``matrix_solve_ls``), ``tensordot``, ``adjoint``,
``matvec`` and TF1's ``tf.diag`` / ``tf.diag_part`` (``tensor_diag`` / ``tensor_diag_part``)."""
import numpy as np

from estimator_npu.engine.graph import name_scope
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.linalg.linalg_ops import (cholesky, matrix_diag, matrix_diag_part,
                                             matrix_transpose, matrix_triangular_solve)


def trace(x, name=None):
    """The sum of each matrix's main diagonal: shape ``[...]``."""
    with name_scope(name, "Trace"):
        return math_ops.reduce_sum(matrix_diag_part(x), -1)


def logdet(matrix, name=None):
    """``log(det(A))`` of each Hermitian positive definite matrix, via its Cholesky factor."""
    with name_scope(name, "logdet"):
        chol = cholesky(matrix)
        return 2.0 * math_ops.reduce_sum(math_ops.log(matrix_diag_part(chol)), -1)


def cholesky_solve(chol, rhs, name=None):
    """``X`` with ``A X = B`` given ``chol``, the Cholesky factor of ``A``."""
    with name_scope(name, "cholesky_solve"):
        y = matrix_triangular_solve(chol, rhs, lower=True, adjoint=False)
        return matrix_triangular_solve(chol, y, lower=True, adjoint=True)


def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """The least-squares solution of ``A X = B`` (minimum norm, with optional L2
    regularization), through the normal equations and a Cholesky factorization (TF's
    ``fast`` path, the one it differentiates)."""
    with name_scope(name, "matrix_solve_ls"):
        a = convert_to_tensor(matrix)
        b = convert_to_tensor(rhs, dtype=a.dtype)
        lam = convert_to_tensor(l2_regularizer, dtype=a.dtype)
        m, n = (None, None) if a.shape.ndims is None else a.shape.values[-2:]
        if m is not None and n is not None:
            return _lstsq_wide(a, b, lam) if m < n else _lstsq_tall(a, b, lam)
        # as TF: the branch is chosen at run time when the matrix's shape is not static
        from estimator_npu.engine.ops.control_ops import cond
        shape = array_ops.shape(a)
        rank = array_ops.rank(a)
        return cond(math_ops.less(array_ops.gather(shape, rank - 2),
                                  array_ops.gather(shape, rank - 1)),
                    lambda: _lstsq_wide(a, b, lam), lambda: _lstsq_tall(a, b, lam))


def _regularized_cholesky(gram, lam):
    k_eye = matrix_diag(array_ops.ones_like(matrix_diag_part(gram)))
    return cholesky(gram + lam * k_eye)


def _lstsq_tall(a, b, lam):
    chol = _regularized_cholesky(math_ops.matmul(a, a, transpose_a=True), lam)
    return cholesky_solve(chol, math_ops.matmul(a, b, transpose_a=True))


def _lstsq_wide(a, b, lam):
    chol = _regularized_cholesky(math_ops.matmul(a, a, transpose_b=True), lam)
    return math_ops.matmul(a, cholesky_solve(chol, b), transpose_a=True)


def adjoint(matrix, name=None):
    """The (conjugate) transpose of each matrix (real dtypes: the transpose)."""
    return matrix_transpose(matrix, name=name or "adjoint")


def matvec(a, b, transpose_a=False, adjoint_a=False, name=None):
    """``a @ b`` for matrices ``a`` and vectors ``b`` (batched)."""
    with name_scope(name, "MatVec"):
        out = math_ops.matmul(a, array_ops.expand_dims(b, -1),
                              transpose_a=transpose_a or adjoint_a)
        return array_ops.squeeze(out, -1)


def _axes_lists(axes, ra, rb):
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0 or (ra is not None and n > ra) or (rb is not None and n > rb):
            raise ValueError(f"tensordot: axes={n} must be between 0 and the ranks "
                             f"({ra}, {rb})")
        return list(range(ra - n, ra)), list(range(n))
    if len(axes) != 2:
        raise ValueError(f"tensordot: axes must be an int or a pair of lists, got {axes!r}")
    a_axes, b_axes = ([int(v)] if np.isscalar(v) else [int(i) for i in v] for v in axes)
    if len(a_axes) != len(b_axes):
        raise ValueError(f"tensordot: different numbers of axes {a_axes} and {b_axes}")
    return [x % ra for x in a_axes], [x % rb for x in b_axes]


def tensordot(a, b, axes, name=None):
    """Sums the products of ``a``'s and ``b``'s elements over ``axes`` (an int ``N``: the
    last ``N`` of ``a`` with the first ``N`` of ``b``; or two lists of axes)."""
    with name_scope(name, "Tensordot"):
        a, b = convert_to_tensor(a), convert_to_tensor(b)
        ra, rb = a.shape.ndims, b.shape.ndims
        if ra is None or rb is None:
            raise ValueError("tensordot: the ranks of both inputs must be known statically "
                             f"(got shapes {a.shape} and {b.shape})")
        a_axes, b_axes = _axes_lists(axes, ra, rb)
        a_free = [i for i in range(ra) if i not in a_axes]
        b_free = [i for i in range(rb) if i not in b_axes]
        sa, sb = array_ops.shape(a), array_ops.shape(b)
        at = array_ops.transpose(a, a_free + a_axes)
        bt = array_ops.transpose(b, b_axes + b_free)
        free_a = array_ops.gather(sa, a_free) if a_free else array_ops.zeros([0], sa.dtype)
        free_b = array_ops.gather(sb, b_free) if b_free else array_ops.zeros([0], sb.dtype)
        out = math_ops.matmul(array_ops.reshape(at, [-1, _prod(a, a_axes)]),
                              array_ops.reshape(bt, [_prod(b, b_axes), -1]))
        res = array_ops.reshape(out, array_ops.concat([free_a, free_b], 0))
        static = [a.shape.values[i] for i in a_free] + [b.shape.values[i] for i in b_free]
        res.set_shape(static)
        return res


def _prod(t, axes):
    dims = [t.shape.values[i] for i in axes]
    if all(d is not None for d in dims):
        return int(np.prod(dims, dtype=np.int64)) if dims else 1
    return math_ops.reduce_prod(array_ops.gather(array_ops.shape(t), axes)) if axes else 1


def tensor_diag(diagonal, name=None):
    """TF1's ``tf.diag``: ``out[i1..ik, i1..ik] = diagonal[i1..ik]``, rank ``2k``."""
    with name_scope(name, "Diag"):
        d = convert_to_tensor(diagonal)
        shape = array_ops.shape(d)
        flat = matrix_diag(array_ops.reshape(d, [-1]))
        out = array_ops.reshape(flat, array_ops.concat([shape, shape], 0))
        if d.shape.ndims is not None:
            out.set_shape(list(d.shape.values) * 2)
        return out


def tensor_diag_part(input, name=None):  # noqa: A002 - TF's name
    """TF1's ``tf.diag_part``: the inverse of ``tf.diag`` (input of rank ``2k``)."""
    with name_scope(name, "DiagPart"):
        x = convert_to_tensor(input)
        if x.shape.ndims is None or x.shape.ndims % 2:
            raise ValueError(f"diag_part: the input must have an even, known rank, got "
                             f"shape {x.shape} ({x.name})")
        k = x.shape.ndims // 2
        half = array_ops.shape(x)[:k]
        n = math_ops.reduce_prod(half)
        flat = array_ops.reshape(x, array_ops.stack([n, n]))
        out = array_ops.reshape(matrix_diag_part(flat), half)
        out.set_shape(list(x.shape.values[:k]))
        return out


def cross(a, b, name=None):
    """``tf.cross`` / ``tf.linalg.cross``: the cross product of 3-vectors along the last
    axis (``a`` and ``b`` of the same shape ``[..., 3]``)."""
    with name_scope(name, "Cross"):
        a, b = convert_to_tensor(a), convert_to_tensor(b, dtype=None)
        for arg, t in (("a", a), ("b", b)):
            last = t.shape.values[-1] if t.shape.ndims else None
            if t.shape.ndims == 0 or (last is not None and last != 3):
                raise ValueError(f"cross: {arg} must have a last dimension of size 3, got "
                                 f"shape {t.shape}")
        if a.dtype != b.dtype:
            raise TypeError(f"cross: a and b must have the same dtype, got {a.dtype.name} "
                            f"and {b.dtype.name}")
        ai = array_ops.unstack(a, num=3, axis=-1)
        bi = array_ops.unstack(b, num=3, axis=-1)
        return array_ops.stack([ai[1] * bi[2] - ai[2] * bi[1], ai[2] * bi[0] - ai[0] * bi[2],
                                ai[0] * bi[1] - ai[1] * bi[0]], axis=-1)
