"""tf.linalg.LinearOperator* (linalg/linear_operator.py) against numpy's dense algebra."""
import numpy as np
import pytest

import estimator_npu as tf

RNG = np.random.RandomState(0)
TRIL = RNG.randn(2, 4, 4) + 4 * np.eye(4)
X = RNG.randn(2, 4, 3)


def _run(*tensors, feed=None):
    with tf.Session() as s:
        return s.run(list(tensors), feed)


def test_lower_triangular_ignores_the_upper_triangle():
    # Kyubyong/transformer's causal mask: LinearOperatorLowerTriangular(ones).to_dense()
    g = tf.Graph()
    with g.as_default():
        op = tf.linalg.LinearOperatorLowerTriangular(tf.constant(TRIL))
        assert op.shape.as_list() == [2, 4, 4] and op.batch_shape.as_list() == [2]
        assert op.is_square and op.dtype == tf.float64 and op.domain_dimension == 4
        dense, mm, mv, det, lad, sol, tr = _run(
            op.to_dense(), op.matmul(X), op.matvec(X[..., 0]), op.determinant(),
            op.log_abs_determinant(), op.solve(X), op.trace())
    low = np.tril(TRIL)
    np.testing.assert_allclose(dense, low)
    np.testing.assert_allclose(mm, low @ X)
    np.testing.assert_allclose(mv, (low @ X[..., :1])[..., 0])
    np.testing.assert_allclose(det, np.linalg.det(low))
    np.testing.assert_allclose(lad, np.log(np.abs(np.linalg.det(low))))
    np.testing.assert_allclose(sol, np.linalg.solve(low, X))
    np.testing.assert_allclose(tr, np.trace(low, axis1=-2, axis2=-1))


def test_full_matrix_diag_and_identity():
    g = tf.Graph()
    with g.as_default():
        full = tf.linalg.LinearOperatorFullMatrix(TRIL)
        diag = tf.linalg.LinearOperatorDiag(np.array([2.0, -4.0, 0.5]))
        ident = tf.linalg.LinearOperatorIdentity(3, dtype=tf.float64)
        v = RNG.randn(3, 2)
        out = _run(full.matmul(X, adjoint=True), full.solve(X), full.determinant(),
                   diag.to_dense(), diag.matmul(v), diag.solve(v), diag.determinant(),
                   diag.log_abs_determinant(), ident.to_dense(), ident.matmul(v),
                   ident.matmul(v.T, adjoint_arg=True))
    np.testing.assert_allclose(out[0], np.swapaxes(TRIL, -1, -2) @ X)
    np.testing.assert_allclose(out[1], np.linalg.solve(TRIL, X))
    np.testing.assert_allclose(out[2], np.linalg.det(TRIL))
    d = np.diag([2.0, -4.0, 0.5])
    np.testing.assert_allclose(out[3], d)
    np.testing.assert_allclose(out[4], d @ v)
    np.testing.assert_allclose(out[5], np.linalg.solve(d, v))
    np.testing.assert_allclose(out[6], -4.0)
    np.testing.assert_allclose(out[7], np.log(4.0))
    np.testing.assert_allclose(out[8], np.eye(3))
    np.testing.assert_allclose(out[9], v)
    np.testing.assert_allclose(out[10], v)


@pytest.mark.parametrize("shape", [[2, 4, 4], None])
def test_gradients_flow_to_the_operator_tensor(shape):
    # d sum(tril(A) @ X) / dA = ones @ X^T on the lower triangle, 0 above
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.float64, shape)
        op = tf.linalg.LinearOperatorLowerTriangular(a)
        y = tf.reduce_sum(op.matmul(X)) + tf.reduce_sum(op.solve(X))
        grad, = tf.gradients(y, a)
        got, = _run(grad, feed={a: TRIL})
    eps = 1e-6
    num = np.zeros_like(TRIL)
    f = lambda m: (np.tril(m) @ X).sum() + np.linalg.solve(np.tril(m), X).sum()  # noqa: E731
    for idx in np.ndindex(*TRIL.shape):
        d = np.zeros_like(TRIL)
        d[idx] = eps
        num[idx] = (f(TRIL + d) - f(TRIL - d)) / (2 * eps)
    np.testing.assert_allclose(got, num, rtol=1e-5, atol=1e-7)
    assert (got[:, 0, 1:] == 0).all()


def test_bad_arguments():
    g = tf.Graph()
    with g.as_default():
        with pytest.raises(ValueError, match="tril must have rank >= 2"):
            tf.linalg.LinearOperatorLowerTriangular(tf.constant([1.0, 2.0]))
        with pytest.raises(ValueError, match="Only square"):
            tf.linalg.LinearOperatorLowerTriangular(np.eye(2), is_square=False)
        with pytest.raises(ValueError, match="diag must have rank >= 1"):
            tf.linalg.LinearOperatorDiag(3.0)
        with pytest.raises(ValueError, match="num_rows must be a non-negative int"):
            tf.linalg.LinearOperatorIdentity(-1)
