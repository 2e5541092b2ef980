"""Values of tf.linalg ops and TF1's top-level aliases on fixed inputs, shared by
``tools/record_tf_linalg.py`` (real TF writes linalg_golden.json) and test_linalg.py. The
decompositions are compared through what does not depend on LAPACK's sign choices
(products, absolute values, eigen/singular values)."""
import numpy as np

CASES = {}
R = np.random.RandomState(21)
SQ = (R.normal(0, 0.4, (2, 3, 3)) + 3 * np.eye(3)).astype(np.float32)
SQ64 = SQ.astype(np.float64)
RHS = R.normal(0, 1, (2, 3, 2)).astype(np.float32)
TALL = R.normal(0, 1, (2, 4, 3)).astype(np.float64)
WIDE = R.normal(0, 1, (3, 5)).astype(np.float64)
SYM = (lambda a: a @ np.swapaxes(a, -1, -2) + 3 * np.eye(3))(R.normal(0, 1, (2, 3, 3)))


def case(fn):
    CASES[fn.__name__] = fn
    return fn


@case
def inverse_det(tf):
    return [tf.linalg.inv(SQ), tf.matrix_inverse(SQ64, adjoint=True), tf.linalg.det(SQ),
            tf.matrix_determinant(SQ64), tf.linalg.slogdet(-SQ64)[0],
            tf.linalg.slogdet(-SQ64)[1], tf.linalg.logdet(SYM)]


@case
def solves(tf):
    return [tf.linalg.solve(SQ, RHS), tf.matrix_solve(SQ, RHS, adjoint=True),
            tf.linalg.triangular_solve(SQ, RHS), tf.matrix_triangular_solve(
                SQ, RHS, lower=False), tf.linalg.triangular_solve(SQ, RHS, adjoint=True),
            tf.linalg.cholesky(SYM), tf.linalg.cholesky_solve(tf.cholesky(SYM), RHS.astype(
                np.float64))]


@case
def least_squares(tf):
    return [tf.linalg.lstsq(TALL, TALL[..., :2]), tf.matrix_solve_ls(TALL, TALL[..., :1], 0.5),
            tf.linalg.lstsq(WIDE, WIDE[:, :2], 0.01)]


@case
def qr(tf):
    q, r = tf.linalg.qr(TALL)
    qf, rf = tf.qr(TALL, full_matrices=True)
    return [tf.matmul(q, r), tf.abs(q), tf.abs(r), tf.matmul(qf, rf), tf.abs(rf)]


@case
def eigh(tf):
    e, v = tf.linalg.eigh(SYM)
    return [e, tf.abs(v), tf.linalg.eigvalsh(SYM), tf.self_adjoint_eigvals(SYM),
            tf.self_adjoint_eig(SYM)[0]]


@case
def svd(tf):
    s, u, v = tf.linalg.svd(TALL)
    s2, u2, v2 = tf.svd(WIDE, full_matrices=True)
    return [s, tf.abs(u), tf.abs(v), tf.matmul(u * tf.expand_dims(s, -2), v, transpose_b=True),
            tf.linalg.svd(WIDE, compute_uv=False), s2, tf.abs(u2)]


@case
def diagonals(tf):
    d = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    return [tf.linalg.diag(d), tf.matrix_diag(d), tf.linalg.diag_part(x),
            tf.matrix_diag_part(x), tf.linalg.set_diag(x, d), tf.matrix_set_diag(x, -d),
            tf.linalg.band_part(x, 1, 0), tf.matrix_band_part(x, 0, -1),
            tf.linalg.band_part(x, -1, 1), tf.linalg.trace(SQ), tf.trace(x[:, :, :3]),
            tf.diag(d), tf.diag_part(tf.diag(d)), tf.diag([1., 2.])]


@case
def products(tf):
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    b = np.arange(40, dtype=np.float32).reshape(4, 2, 5)
    return [tf.tensordot(a, b, [[0, 2], [1, 0]]), tf.linalg.tensordot(a[0], b[:, 0], 1),
            tf.tensordot(a, b, 0)[0, 0, 0], tf.linalg.transpose(a), tf.matrix_transpose(a),
            tf.linalg.adjoint(a), tf.linalg.matvec(SQ, RHS[..., 0]),
            tf.linalg.matmul(SQ, RHS), tf.linalg.eye(3, batch_shape=[2]),
            tf.linalg.norm(SQ), tf.linalg.l2_normalize(RHS, axis=1)]
