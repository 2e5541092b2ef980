"""Order-0/1 interpolation of a 2-D array through an affine map, with the fill modes of
``tf.keras.preprocessing.image.apply_affine_transform`` (constant, nearest, reflect, wrap),
in numpy: ``out[o] = in[matrix @ o + offset]``."""
import numpy as np

FILL_MODES = ("constant", "nearest", "reflect", "wrap")


def _fold(idx, n, mode):
    """Integer sample indices outside ``[0, n)`` mapped back in for ``mode``."""
    if mode == "nearest":
        return np.clip(idx, 0, n - 1)
    if mode == "reflect":  # half-sample symmetric: d c b a | a b c d | d c b a
        period = 2 * n
        idx = np.mod(idx, period)
        return np.where(idx >= n, period - 1 - idx, idx)
    return np.clip(idx, 0, n - 1)  # wrap: folded already; constant: masked by the caller


def _fold_coord(c, n, mode):
    """Coordinates folded into the input's extent before interpolation."""
    if mode == "nearest":
        return np.clip(c, 0, n - 1)
    if mode == "wrap":  # the first and the last sample overlap: period n - 1
        if n == 1:
            return np.zeros_like(c)
        return np.where((c >= 0) & (c <= n - 1), c, np.mod(c, n - 1))
    if mode == "reflect":
        if n == 1:
            return np.zeros_like(c)
        period = 2 * n
        c = np.mod(c + 0.5, period) - 0.5
        return np.where(c > n - 0.5, period - 1 - c, c)
    return c


def affine_transform_2d(image, matrix, offset, order=1, mode="nearest", cval=0.0):
    """``image`` (2-D) resampled at ``matrix @ (row, col) + offset`` for every output
    pixel; points outside the input are filled per ``mode``. The result has the input's
    dtype (integers rounded)."""
    if mode not in FILL_MODES:
        raise ValueError(f"fill_mode must be one of {FILL_MODES}, got {mode!r}")
    if order not in (0, 1):
        raise NotImplementedError(f"interpolation order {order}: only 0 and 1 are "
                                  "implemented (TF's ImageDataGenerator default is 1)")
    image = np.asarray(image)
    h, w = image.shape
    src = image.astype(np.float64)
    rows, cols = np.meshgrid(np.arange(h, dtype=np.float64), np.arange(w, dtype=np.float64),
                             indexing="ij")
    matrix = np.asarray(matrix, np.float64)
    offset = np.asarray(offset, np.float64)
    r = matrix[0, 0] * rows + matrix[0, 1] * cols + offset[0]
    c = matrix[1, 0] * rows + matrix[1, 1] * cols + offset[1]
    outside = None
    if mode == "constant":
        eps = 1e-9
        outside = (r < -eps) | (r > h - 1 + eps) | (c < -eps) | (c > w - 1 + eps)
    r, c = _fold_coord(r, h, mode), _fold_coord(c, w, mode)
    if order == 0:
        r0 = _fold(np.floor(r + 0.5).astype(np.int64), h, mode)
        c0 = _fold(np.floor(c + 0.5).astype(np.int64), w, mode)
        out = src[r0, c0]
    else:
        fr, fc = np.floor(r), np.floor(c)
        wr, wc = r - fr, c - fc
        r0, c0 = fr.astype(np.int64), fc.astype(np.int64)
        r1, c1 = _fold(r0 + 1, h, mode), _fold(c0 + 1, w, mode)
        r0, c0 = _fold(r0, h, mode), _fold(c0, w, mode)
        out = ((1 - wr) * ((1 - wc) * src[r0, c0] + wc * src[r0, c1])
               + wr * ((1 - wc) * src[r1, c0] + wc * src[r1, c1]))
    if outside is not None:
        out = np.where(outside, cval, out)
    if np.issubdtype(image.dtype, np.integer):
        info = np.iinfo(image.dtype)
        out = np.clip(np.round(out), info.min, info.max)
    return out.astype(image.dtype)
