"""Batched dense linear algebra (``tf.linalg``): every op works on the last two dimensions
of its inputs, batched over the leading ones, with numpy's LAPACK kernels.

Gradients (real matrices; ``Y`` the op's output, ``G`` its gradient):

* ``inv``: ``dA = -Y^T G Y^T``; ``det``: ``dA = g det(A) A^-T``; ``slogdet``:
  ``dA = g A^-T`` (the sign has none);
* ``solve`` ``X = A^-1 B``: ``dB = A^-T G``, ``dA = -dB X^T``; triangular solves the same,
  restricted to the triangle the op reads;
* ``cholesky`` ``A = L L^T``: ``dA = sym(L^-T Phi(L^T G) L^-1)`` with ``Phi`` the lower
  triangle with its diagonal halved, ``sym(M) = (M + M^T) / 2``;
* ``qr`` (``m >= n``, reduced): ``dA = (dQ + Q copyltu(M)) R^-T``, ``M = R dR^T - dQ^T Q``,
  ``copyltu`` copying the lower triangle to the upper one;
* ``eigh`` ``A = V diag(e) V^T``: ``V (diag(de) + F o (V^T dV)) V^T`` with
  ``F_ij = 1 / (e_j - e_i)`` off the diagonal, folded onto the lower triangle the op reads;
* ``svd`` (reduced): ``U (diag(ds) + S-terms of U^T dU, V^T dV) V^T`` plus the projections
  of ``dU``, ``dV`` outside the spans of ``U``, ``V`` (distinct singular values).
"""
import numpy as np

from estimator_npu import errors
from estimator_npu.engine.ops import math_ops
from estimator_npu.engine.ops.core import convert_to_tensor, make_op
from estimator_npu.engine.registry import OpFamily
from estimator_npu.engine.shape import TensorShape

OPS = OpFamily(__name__)  # this family's op definitions (data)


# ------------------------------------------------------------------ helpers
def _float_matrix(x, what, square=False, min_rank=2):
    t = convert_to_tensor(x)
    if t.dtype.name not in ("float16", "float32", "float64"):
        raise TypeError(f"{what}: expected a float16/float32/float64 tensor, got "
                        f"{t.dtype.name} ({t.name})")
    v = t.shape.values
    if v is not None:
        if len(v) < min_rank:
            raise ValueError(f"{what}: the input must have rank >= {min_rank}, got shape "
                             f"{t.shape} ({t.name})")
        if square and v[-1] is not None and v[-2] is not None and v[-1] != v[-2]:
            raise ValueError(f"{what}: the input must be square matrices, got shape "
                             f"{t.shape} ({t.name})")
    return t


def _batch(shape):
    return None if shape.values is None else list(shape.values[:-2])


def _shape(batch, *tail):
    return TensorShape(None) if batch is None else TensorShape(batch + list(tail))


def _dims(shape):
    v = shape.values
    return (None, None) if v is None else (v[-2], v[-1])


def _one(op_type, inputs, dtype, shape, attrs=None, name=None):
    return make_op(op_type, inputs, [(dtype, shape)], attrs or {}, name=name).outputs[0]


def _t(x):
    return matrix_transpose(x)


def _mm(a, b, ta=False, tb=False):
    return math_ops.matmul(a, b, transpose_a=ta, transpose_b=tb)


def _lapack(op, fn):
    def run(*args):
        try:
            with np.errstate(all="ignore"):
                return fn(*args)
        except np.linalg.LinAlgError as e:
            raise errors.InvalidArgumentError(None, op, f"{op.type}: {e} (input is not "
                                              "invertible / not positive definite)") from None
    return run


# ------------------------------------------------------------------ transpose, diag, band
def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Swaps the last two dimensions."""
    x = convert_to_tensor(a)
    v = x.shape.values
    if v is not None and len(v) < 2:
        raise ValueError(f"matrix_transpose: the input must have rank >= 2, got shape "
                         f"{x.shape} ({x.name})")
    shape = TensorShape(None) if v is None else TensorShape(list(v[:-2]) + [v[-1], v[-2]])
    return _one("MatrixTranspose", [x], x.dtype, shape, name=name)


OPS.define("MatrixTranspose", kernel=lambda op, ctx: lambda x: np.swapaxes(x, -1, -2),
           grad=lambda op, g: [matrix_transpose(g)], may_alias=True)


def matrix_diag(diagonal, name="diag"):
    """``[..., n]`` -> ``[..., n, n]`` with ``diagonal`` on the main diagonal."""
    d = convert_to_tensor(diagonal)
    v = d.shape.values
    if v is not None and not v:
        raise ValueError(f"matrix_diag: the input must have rank >= 1, got a scalar ({d.name})")
    shape = TensorShape(None) if v is None else TensorShape(list(v) + [v[-1]])
    return _one("MatrixDiag", [d], d.dtype, shape, name=name)


def _matrix_diag(d):
    n = d.shape[-1]
    out = np.zeros(d.shape + (n,), d.dtype)
    idx = np.arange(n)
    out[..., idx, idx] = d
    return out


OPS.define("MatrixDiag", kernel=lambda op, ctx: _matrix_diag,
           grad=lambda op, g: [matrix_diag_part(g)])


def matrix_diag_part(input, name="diag_part"):  # noqa: A002 - TF's name
    """The main diagonal of each matrix: ``[..., min(m, n)]``."""
    x = convert_to_tensor(input)
    v = x.shape.values
    if v is not None and len(v) < 2:
        raise ValueError(f"matrix_diag_part: the input must have rank >= 2, got shape "
                         f"{x.shape} ({x.name})")
    if v is None:
        shape = TensorShape(None)
    else:
        k = None if v[-1] is None or v[-2] is None else min(v[-1], v[-2])
        shape = TensorShape(list(v[:-2]) + [k])
    return _one("MatrixDiagPart", [x], x.dtype, shape, name=name)


OPS.define("MatrixDiagPart",
           kernel=lambda op, ctx: lambda x: np.diagonal(x, axis1=-2, axis2=-1).copy(),
           grad=lambda op, g: [matrix_set_diag(math_ops.multiply(op.inputs[0], 0), g)])


def matrix_set_diag(input, diagonal, name="set_diag"):  # noqa: A002 - TF's name
    """``input`` with its main diagonals replaced by ``diagonal``."""
    x = convert_to_tensor(input)
    d = convert_to_tensor(diagonal, dtype=x.dtype)
    return _one("MatrixSetDiag", [x, d], x.dtype, x.shape, name=name)


def _set_diag(x, d):
    out = np.array(x)
    k = min(x.shape[-2:])
    idx = np.arange(k)
    if d.shape[-1:] != (k,):
        raise ValueError(f"set_diag: the diagonal's last dimension must be {k}, got shape "
                         f"{list(d.shape)}")
    out[..., idx, idx] = d
    return out


OPS.define("MatrixSetDiag", kernel=lambda op, ctx: _set_diag,
           grad=lambda op, g: [matrix_set_diag(g, math_ops.multiply(op.inputs[1], 0)),
                               matrix_diag_part(g)])


def matrix_band_part(input, num_lower, num_upper, name="band_part"):  # noqa: A002
    """Keeps ``num_lower`` sub- and ``num_upper`` super-diagonals (negative: all)."""
    x = convert_to_tensor(input)
    lo = convert_to_tensor(num_lower)
    hi = convert_to_tensor(num_upper)
    if not (lo.dtype.is_integer and hi.dtype.is_integer):
        raise TypeError(f"matrix_band_part: num_lower and num_upper must be integers, got "
                        f"{lo.dtype.name} and {hi.dtype.name}")
    return _one("MatrixBandPart", [x, lo, hi], x.dtype, x.shape, name=name)


def _band(x, lo, hi):
    m, n = x.shape[-2:]
    i = np.arange(m)[:, None]
    j = np.arange(n)[None, :]
    keep = np.ones((m, n), bool)
    if lo >= 0:
        keep &= (i - j) <= lo
    if hi >= 0:
        keep &= (j - i) <= hi
    return np.where(keep, x, np.zeros((), x.dtype))


OPS.define("MatrixBandPart", kernel=lambda op, ctx: _band,
           grad=lambda op, g: [matrix_band_part(g, op.inputs[1], op.inputs[2]), None, None])


# ------------------------------------------------------------------ inverse, determinants
def matrix_inverse(input, adjoint=False, name=None):  # noqa: A002 - TF's name
    """The inverse of each square matrix (of its transpose with ``adjoint``)."""
    x = _float_matrix(input, "matrix_inverse", square=True)
    return _one("MatrixInverse", [x], x.dtype, x.shape, {"adjoint": bool(adjoint)}, name=name)


def _inverse_kernel(op, ctx):
    adj = op.attrs["adjoint"]
    return _lapack(op, lambda a: np.linalg.inv(np.swapaxes(a, -1, -2) if adj else a))


def _inverse_grad(op, g):
    y = op.outputs[0]
    if op.attrs["adjoint"]:
        return [-_mm(_mm(y, g, tb=True), y)]
    return [-_mm(_mm(y, g, ta=True), y, tb=True)]


OPS.define("MatrixInverse", kernel=_inverse_kernel, grad=_inverse_grad)


def matrix_determinant(input, name=None):  # noqa: A002 - TF's name
    """The determinant of each square matrix: shape ``[...]``."""
    x = _float_matrix(input, "matrix_determinant", square=True)
    return _one("MatrixDeterminant", [x], x.dtype, _shape(_batch(x.shape)), name=name)


def _expand2(t):
    from estimator_npu.engine.ops import array_ops
    return array_ops.expand_dims(array_ops.expand_dims(t, -1), -1)


OPS.define("MatrixDeterminant",
           kernel=lambda op, ctx: lambda a: np.asarray(np.linalg.det(a), a.dtype),
           grad=lambda op, g: [_expand2(g * op.outputs[0]) *
                               matrix_inverse(op.inputs[0], adjoint=True)])


def log_matrix_determinant(input, name=None):  # noqa: A002 - TF's name
    """``(sign, log|det|)`` of each square matrix."""
    x = _float_matrix(input, "slogdet", square=True)
    s = _shape(_batch(x.shape))
    op = make_op("LogMatrixDeterminant", [x], [(x.dtype, s), (x.dtype, s)], {}, name=name)
    return op.outputs[0], op.outputs[1]


def _slogdet(a):
    sign, logdet = np.linalg.slogdet(a)
    return np.asarray(sign, a.dtype), np.asarray(logdet, a.dtype)


OPS.define("LogMatrixDeterminant", kernel=lambda op, ctx: _slogdet,
           grad=lambda op, gs, gl: [None if gl is None else
                                    _expand2(gl) * matrix_inverse(op.inputs[0], adjoint=True)])


# ------------------------------------------------------------------ solves
def matrix_solve(matrix, rhs, adjoint=False, name=None):
    """``X`` with ``A X = B`` (``A^T X = B`` with ``adjoint``)."""
    a = _float_matrix(matrix, "matrix_solve", square=True)
    b = _float_matrix(rhs, "matrix_solve")
    if b.dtype != a.dtype:
        raise TypeError(f"matrix_solve: matrix is {a.dtype.name}, rhs {b.dtype.name}")
    return _one("MatrixSolve", [a, b], a.dtype, b.shape, {"adjoint": bool(adjoint)},
                name=name)


def _solve_kernel(op, ctx):
    adj = op.attrs["adjoint"]
    return _lapack(op, lambda a, b: np.linalg.solve(np.swapaxes(a, -1, -2) if adj else a, b))


def _solve_grads(op, g, solve_again, mask=None):
    x = op.outputs[0]
    gb = solve_again(g)
    ga = -_mm(x, gb, tb=True) if op.attrs["adjoint"] else -_mm(gb, x, tb=True)
    return [ga if mask is None else mask(ga), gb]


OPS.define("MatrixSolve", kernel=_solve_kernel,
           grad=lambda op, g: _solve_grads(op, g, lambda t: matrix_solve(
               op.inputs[0], t, adjoint=not op.attrs["adjoint"])))


def matrix_triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """``X`` with ``T X = B`` for ``T`` the lower (or upper) triangle of ``matrix``."""
    a = _float_matrix(matrix, "matrix_triangular_solve", square=True)
    b = _float_matrix(rhs, "matrix_triangular_solve")
    return _one("MatrixTriangularSolve", [a, b], a.dtype, b.shape,
                {"lower": bool(lower), "adjoint": bool(adjoint)}, name=name)


def _tri_kernel(op, ctx):
    lower, adj = op.attrs["lower"], op.attrs["adjoint"]

    def solve(a, b):
        t = np.tril(a) if lower else np.triu(a)
        return np.linalg.solve(np.swapaxes(t, -1, -2) if adj else t, b)
    return _lapack(op, solve)


def _tri_grad(op, g):
    lower, adj = op.attrs["lower"], op.attrs["adjoint"]
    return _solve_grads(op, g, lambda t: matrix_triangular_solve(
        op.inputs[0], t, lower=lower, adjoint=not adj),
        mask=lambda m: matrix_band_part(m, -1, 0) if lower else matrix_band_part(m, 0, -1))


OPS.define("MatrixTriangularSolve", kernel=_tri_kernel, grad=_tri_grad)


# ------------------------------------------------------------------ cholesky
def cholesky(input, name=None):  # noqa: A002 - TF's name
    """The lower-triangular ``L`` with ``L L^T = A`` (reads the lower triangle of ``A``)."""
    x = _float_matrix(input, "cholesky", square=True)
    return _one("Cholesky", [x], x.dtype, x.shape, name=name)


def _cholesky_grad(op, g):
    lo = op.outputs[0]
    phi = matrix_band_part(_mm(lo, g, ta=True), -1, 0)
    phi = phi - 0.5 * matrix_diag(matrix_diag_part(phi))
    # L^-T phi L^-1 with two triangular solves
    left = matrix_triangular_solve(lo, phi, lower=True, adjoint=True)
    mid = _t(matrix_triangular_solve(lo, _t(left), lower=True, adjoint=True))
    return [0.5 * (mid + _t(mid))]


OPS.define("Cholesky", kernel=lambda op, ctx: _lapack(op, np.linalg.cholesky),
           grad=_cholesky_grad)


# ------------------------------------------------------------------ decompositions
def qr(input, full_matrices=False, name=None):  # noqa: A002 - TF's name
    """``(q, r)`` of each matrix (reduced unless ``full_matrices``)."""
    x = _float_matrix(input, "qr")
    b = _batch(x.shape)
    m, n = _dims(x.shape)
    k = None if m is None or n is None else min(m, n)
    qs = _shape(b, m, m if full_matrices else k)
    rs = _shape(b, m if full_matrices else k, n)
    op = make_op("Qr", [x], [(x.dtype, qs), (x.dtype, rs)],
                 {"full_matrices": bool(full_matrices)}, name=name)
    return op.outputs[0], op.outputs[1]


def _qr_kernel(op, ctx):
    mode = "complete" if op.attrs["full_matrices"] else "reduced"
    return _lapack(op, lambda a: tuple(np.linalg.qr(a, mode=mode)))


def _copyltu(m):
    lower = matrix_band_part(m, -1, 0)
    return lower + _t(lower) - matrix_diag(matrix_diag_part(m))


def _qr_grad(op, dq, dr):
    q, r = op.outputs
    m, n = _dims(op.inputs[0].shape)
    if op.attrs["full_matrices"] or m is None or n is None or m < n:
        raise NotImplementedError("QR gradient: only the reduced decomposition of matrices "
                                  "with statically known rows >= columns (as TF)")
    dq = math_ops.multiply(q, 0) if dq is None else dq
    dr = math_ops.multiply(r, 0) if dr is None else dr
    mm = _mm(r, dr, tb=True) - _mm(dq, q, ta=True)
    b = dq + _mm(q, _copyltu(mm))
    # b R^-T: solve R X^T = b^T
    return [_t(matrix_triangular_solve(r, _t(b), lower=False))]


OPS.define("Qr", kernel=_qr_kernel, grad=_qr_grad)


def self_adjoint_eig(tensor, name=None):
    """``(e, v)``: the eigenvalues (ascending) and eigenvectors of each symmetric matrix
    (its lower triangle)."""
    x = _float_matrix(tensor, "self_adjoint_eig", square=True)
    b = _batch(x.shape)
    n = _dims(x.shape)[1]
    op = make_op("SelfAdjointEigV2", [x], [(x.dtype, _shape(b, n)), (x.dtype, x.shape)],
                 {"compute_v": True}, name=name)
    return op.outputs[0], op.outputs[1]


def self_adjoint_eigvals(tensor, name=None):
    """The eigenvalues (ascending) of each symmetric matrix."""
    return self_adjoint_eig(tensor, name=name)[0]


def _sym_lower(ga):
    """A gradient onto the lower triangle the op reads: ``tril(G + G^T)``, diagonal once."""
    s = matrix_band_part(ga + _t(ga), -1, 0)
    return s - 0.5 * matrix_diag(matrix_diag_part(s))


def _inv_gaps(e):
    from estimator_npu.engine.ops import array_ops
    diff = array_ops.expand_dims(e, -2) - array_ops.expand_dims(e, -1)   # e_j - e_i
    eye = matrix_diag(array_ops.ones_like(e))
    return (1.0 - eye) / (diff + eye)


def _eig_grad(op, de, dv):
    e, v = op.outputs
    inner = 0 * _mm(v, v, ta=True)
    if de is not None:
        inner = inner + matrix_diag(de)
    if dv is not None:
        inner = inner + _inv_gaps(e) * _mm(v, dv, ta=True)
    return [_sym_lower(_mm(_mm(v, inner), v, tb=True))]


OPS.define("SelfAdjointEigV2", kernel=lambda op, ctx: _lapack(op, lambda a: tuple(
    np.linalg.eigh(a))), grad=_eig_grad)


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """``s`` (descending), or ``(s, u, v)`` with ``a = u diag(s) v^T``."""
    x = _float_matrix(tensor, "svd")
    b = _batch(x.shape)
    m, n = _dims(x.shape)
    k = None if m is None or n is None else min(m, n)
    specs = [(x.dtype, _shape(b, k)), (x.dtype, _shape(b, m, m if full_matrices else k)),
             (x.dtype, _shape(b, n, n if full_matrices else k))]
    op = make_op("Svd", [x], specs, {"full_matrices": bool(full_matrices),
                                     "compute_uv": bool(compute_uv)}, name=name)
    return (op.outputs[0], op.outputs[1], op.outputs[2]) if compute_uv else op.outputs[0]


def _svd_kernel(op, ctx):
    full = op.attrs["full_matrices"]

    def run(a):
        u, s, vh = np.linalg.svd(a, full_matrices=full)
        return s.astype(a.dtype), u.astype(a.dtype), np.swapaxes(vh, -1, -2).astype(a.dtype)
    return _lapack(op, run)


def _svd_grad(op, ds, du, dv):
    from estimator_npu.engine.ops import array_ops
    s, u, v = op.outputs
    if du is None and dv is None:
        return [_mm(u * array_ops.expand_dims(ds, -2), v, tb=True)]
    m, n = _dims(op.inputs[0].shape)
    if op.attrs["full_matrices"] and m != n:
        raise NotImplementedError("SVD gradient of u/v with full_matrices for non-square "
                                  "matrices (as TF)")
    du = 0 * u if du is None else du
    dv = 0 * v if dv is None else dv
    ds = 0 * s if ds is None else ds
    s2 = s * s
    f = _inv_gaps(s2)                                   # 1 / (s_j^2 - s_i^2)
    row = array_ops.expand_dims(s, -2)                  # s_j along columns
    col = array_ops.expand_dims(s, -1)                  # s_i along rows
    j_u = _mm(u, du, ta=True)
    j_v = _mm(v, dv, ta=True)
    inner = (f * (j_u - _t(j_u))) * row + col * (f * (j_v - _t(j_v))) + matrix_diag(ds)
    ga = _mm(_mm(u, inner), v, tb=True)
    inv_s = array_ops.expand_dims(1.0 / s, -2)
    eye_m = _mm(u, u, tb=True)
    eye_n = _mm(v, v, tb=True)
    ga = ga + _mm(du * inv_s - _mm(eye_m, du * inv_s), v, tb=True)
    ga = ga + _mm(u, dv * inv_s - _mm(eye_n, dv * inv_s), tb=True)
    return [ga]


OPS.define("Svd", kernel=_svd_kernel, grad=_svd_grad)

