"""Fast paths where numpy's inner loops would run over short rows.

On the machines this project targets, ``np.add.reduce(x, axis=-1)`` of a (100, 10)
float32 array costs ~4× a BLAS product with a vector of ones, which gives the same sums
(to rounding). Sums over the first or last axis of float arrays use that product.
"""
import numpy as np

_ones_cache = {}
_row_widths = {}
# Channel counts below which a bias add runs over rows of several pixels (see bias_rows),
# for arrays of at least TILE_MIN elements (below, np.tile costs more than it saves).
_SHORT_ROW, TILE_MIN = 64, 1 << 15
# np.dot without its __array_function__ dispatcher (the same C function: 1.06 -> 0.43 us
# for 8x16 @ 16x16); plan values are plain ndarrays.
dot = getattr(np.dot, "_implementation", np.dot)


def ones(n, dtype):
    key = (n, dtype)
    v = _ones_cache.get(key)
    if v is None:
        v = _ones_cache[key] = np.ones(n, dtype)
        v.setflags(write=False)
    return v


def sum_last(x, keepdims=False):
    """``x.sum(axis=-1)`` for a float array of rank >= 1."""
    r = np.matmul(x, ones(x.shape[-1], x.dtype))
    return r[..., None] if keepdims else r


def sum_first(x, keepdims=False):
    """``x.sum(axis=0)`` for a float array of rank >= 2."""
    n = x.shape[0]
    if x.ndim == 2 and not keepdims:  # a dense layer's bias gradient: no reshapes
        return dot(ones(n, x.dtype), x)
    r = dot(ones(n, x.dtype), x.reshape(n, -1)).reshape(x.shape[1:])
    return r[None] if keepdims else r


def sum_leading(x, k, keepdims=False):
    """``x.sum(axis=tuple(range(k)))`` for a float array of rank > k (a bias gradient over
    ``(N, H, W)``): one BLAS product with a vector of ones instead of a multi-axis reduce."""
    n = 1
    for d in x.shape[:k]:
        n *= d
    r = dot(ones(n, x.dtype), x.reshape(n, -1)).reshape(x.shape[k:])
    return r.reshape((1,) * k + r.shape) if keepdims else r


def make_sum(axis, keepdims, ndim, floating):
    """A kernel summing over ``axis`` (a tuple or None), using BLAS where it is faster."""
    if floating and ndim is not None and axis is not None and len(axis) == 1 and ndim >= 1:
        a = axis[0]
        if a == ndim - 1:
            return lambda x: sum_last(x, keepdims) if x.ndim else x
        if a == 0 and ndim >= 2:
            return lambda x: sum_first(x, keepdims)
    if floating and ndim is not None and axis is not None and 1 < len(axis) < ndim and \
            tuple(axis) == tuple(range(len(axis))):
        k = len(axis)
        return lambda x: sum_leading(x, k, keepdims)
    reduce = np.add.reduce
    return lambda x: reduce(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


_TINY = {}


def _tiny(dtype):
    """A row sum below this means the row's largest value underflowed after the shift."""
    t = _TINY.get(dtype)
    if t is None:
        t = _TINY[dtype] = np.finfo(dtype).tiny * 1e10
    return t


def shifted_exp(x, axis, keep_shifted=False):
    """``exp(x - shift)`` and its sums along ``axis``, with a per-row shift making each
    row's largest value <= 0.

    Softmax is invariant to a per-row shift; the global max is a valid shift as long as
    no row underflows entirely, so we use it and fall back to the exact per-row max for
    rows whose sum came out too small (one cheap check). With ``keep_shifted`` the shifted
    input ``x - shift`` is returned too.
    """
    z = np.subtract(x, x.max() if x.size else 0)
    e = np.exp(z)
    last = axis in (-1, x.ndim - 1)
    s = sum_last(e, True) if last else np.add.reduce(e, axis=axis, keepdims=True)
    if s.size and not s.min() > _tiny(e.dtype):
        z = np.subtract(x, np.maximum.reduce(x, axis=axis, keepdims=True))
        e = np.exp(z)
        s = np.add.reduce(e, axis=axis, keepdims=True)
    return (e, s, z) if keep_shifted else (e, s)


def bias_rows(x, b):
    """``(rows, b_row)``: ``x`` as a 2-D view and the bias for one of its rows, for adding a
    1-D ``b`` along ``x``'s last axis (``np.add(rows, b_row)``); ``None`` when ``x`` is not
    a C-contiguous array whose last axis has ``b.size`` elements.

    With few channels numpy's inner loop runs ``C`` elements at a time; a row of ``k``
    pixels with ``b`` tiled ``k`` times is the same float additions (bit-identical) in
    long loops: measured 0.28 -> 0.05 ms for a (64, 28, 28, 6) activation."""
    c = x.shape[-1] if x.ndim >= 2 else 0
    if not c or b.shape != (c,) or not x.flags.c_contiguous:
        return None
    rows = x.size // c
    k = 1
    if c < _SHORT_ROW and rows and x.size >= TILE_MIN:
        k = _row_widths.get((rows, c))
        if k is None:  # the widest row of at most ~1024 elements that divides x
            k = next(d for d in range(max(1, 1024 // c), 0, -1) if rows % d == 0)
            _row_widths[(rows, c)] = k
    return x.reshape(rows // k, k * c), (np.tile(b, k) if k > 1 else b)


# numpy's maximum runs its vector loop only for two arrays of the same length; against a
# 0-d zero it is 3-8x slower (65,536 float32: 38 against 15 us). Rows of this many zeros:
_RELU_ROW = 1 << 14
_relu_zeros = {}
# 0-d zeros of the float dtypes: numpy 2 takes a slower path for a Python scalar operand
# (np.maximum of an 8x16 array: 2.4 -> 1.3 us).
ZEROS_0D = {np.dtype(t): np.zeros((), t) for t in (np.float32, np.float64)}


def relu(x, out=None):
    """``np.maximum(x, 0, out=out)`` (``out`` may be ``x``), bit-identical: the same ufunc
    loop over the same pairs, in rows of ``_RELU_ROW`` elements against cached zeros."""
    z, z0 = _relu_zeros.get(x.dtype) or _relu_zeros.setdefault(
        x.dtype, (np.zeros(_RELU_ROW, x.dtype), np.zeros((), x.dtype)))
    n, w = x.size, _RELU_ROW
    if n < 256 or not x.flags.c_contiguous or out is not None and (
            not out.flags.c_contiguous or out.shape != x.shape or out.dtype != x.dtype):
        return np.maximum(x, z0, out=out)
    o = np.empty_like(x) if out is None else out
    f, of, q = x.reshape(-1), o.reshape(-1), n // w * w
    if q:
        np.maximum(f[:q].reshape(-1, w), z, out=of[:q].reshape(-1, w))
    if q < n:
        np.maximum(f[q:], z[:n - q], out=of[q:])
    return o


def scatter_add_rows(out, idx, rows):
    """``np.add.at(out, idx, rows)`` for 1-D ``idx`` along axis 0, 2-7x faster: rows of
    repeated indices are summed with one ``reduceat`` over the sorted order, then added."""
    if idx.size < 2 or out.ndim < 2:
        np.add.at(out, idx, rows)
        return
    order = np.argsort(idx, kind="stable")
    s = idx[order]
    starts = np.flatnonzero(np.concatenate(([True], s[1:] != s[:-1])))
    if starts.size == s.size:
        out[s] += rows[order]
    else:
        out[s[starts]] += np.add.reduceat(rows[order], starts, axis=0)
