"""Shared machinery of the window ops (convolution and pooling; see ``conv_ops``).

Argument parsing (data formats, strides, padding), TF's output-size and padding
arithmetic, and the kernel helpers: every kernel views its arrays as NHWC (``nhwc``), pads
into a reused buffer (``padded``, ``Scratch``) and walks the ``KH*KW`` window offsets with
``window``::

    out, (top, bottom, left, right) per dim:
        SAME:  out = ceil(in / s);  total = max((out - 1) * s + k_eff - in, 0);
               top = total // 2, bottom = total - top           (k_eff = (k - 1) * d + 1)
        VALID: out = (in - k_eff) // s + 1;  no padding
"""
import functools
import threading
import weakref

import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops
from estimator_npu.engine.ops.core import constant, convert_to_tensor
from estimator_npu.engine.shape import TensorShape


# ------------------------------------------------------------------ argument parsing
def parse_data_format(data_format, op_name):
    if data_format in (None, "NHWC", "channels_last"):
        return False
    if data_format in ("NCHW", "channels_first"):
        return True
    raise ValueError(f"{op_name}: data_format must be 'NHWC' or 'NCHW', got {data_format!r}")


def parse_hw(value, what, nchw, op_name):
    """``(h, w)`` from an int or a list of 1, 2 or 4 ints (4: in data-format order)."""
    if isinstance(value, (int, np.integer)):
        v = [int(value)] * 2
    else:
        try:
            v = [int(i) for i in value]
        except TypeError:
            raise ValueError(f"{op_name}: {what} must be an int or a list of ints, got "
                             f"{value!r}") from None
        if len(v) == 1:
            v = v * 2
        elif len(v) == 4:
            outer = (v[0], v[1]) if nchw else (v[0], v[3])
            if outer != (1, 1):
                raise ValueError(f"{op_name}: {what} in the batch and channel dimensions must "
                                 f"be 1, got {list(value)}")
            v = v[2:] if nchw else v[1:3]
        elif len(v) != 2:
            raise ValueError(f"{op_name}: {what} must have 1, 2 or 4 elements, got "
                             f"{list(value)}")
    if min(v) < 1:
        raise ValueError(f"{op_name}: {what} must be >= 1, got {value!r}")
    return tuple(v)


def parse_padding(padding, nchw, op_name, explicit=False):
    """``"SAME"``/``"VALID"``, or (conv2d only) explicit ``((top, bottom), (left, right))``."""
    if isinstance(padding, bytes):
        padding = padding.decode()
    if isinstance(padding, str):
        p = padding.upper()
        if p in ("SAME", "VALID"):
            return p
    elif explicit and isinstance(padding, (list, tuple)):
        try:
            pairs = [tuple(int(v) for v in pair) for pair in padding]
        except TypeError:
            pairs = []
        if len(pairs) == 4 and all(len(p) == 2 and min(p) >= 0 for p in pairs):
            outer = pairs[:2] if nchw else (pairs[0], pairs[3])
            if all(p == (0, 0) for p in outer):
                return tuple(pairs[2:] if nchw else pairs[1:3])
    accepted = "'SAME', 'VALID' or explicit [[0, 0], [top, bottom], [left, right], [0, 0]]" \
        if explicit else "'SAME' or 'VALID'"
    raise ValueError(f"{op_name}: padding must be {accepted}, got {padding!r}")


def float_tensor(value, op_name, what, dtype=None):
    t = convert_to_tensor(value, dtype=dtype)
    if not t.dtype.is_floating:
        raise TypeError(f"{op_name}: {what} must be a floating-point tensor, got "
                        f"{t.dtype.name} ({t.name})")
    return t


def check_rank4(t, op_name, what):
    if t.shape.ndims is not None and t.shape.ndims != 4:
        raise ValueError(f"{op_name}: {what} must be 4-D, got shape {t.shape} ({t.name})")


def sizes_tensor(sizes, op_name, what):
    """A 1-D int32 tensor of 4 sizes and its static value (``None`` entries unknown)."""
    if isinstance(sizes, (list, tuple, np.ndarray)) and not any(
            hasattr(s, "op") or hasattr(s, "_as_tensor") for s in sizes):
        vals = [int(s) for s in sizes]
        if len(vals) != 4:
            raise ValueError(f"{op_name}: {what} must have 4 elements, got {list(sizes)}")
        return constant(vals, dtype=dtypes.int32), vals
    t = convert_to_tensor(sizes)
    if not t.dtype.is_integer or t.shape.ndims not in (None, 1) or \
            t.shape.ndims == 1 and t.shape.values[0] not in (None, 4):
        raise ValueError(f"{op_name}: {what} must be a 1-D integer tensor of 4 sizes, got "
                         f"{t}")
    static = array_ops._static_ints(t, what, op_name)
    if static is None:
        static = _packed_static(t)
    return t, (static if static is not None else [None] * 4)


def _packed_static(t):
    """The constant entries of a stacked sizes tensor (``tf.stack([batch, 8, 8, 1])`` ->
    ``[None, 8, 8, 1]``), which TF1's shape inference keeps."""
    if t.op.type not in ("Pack", "ConcatV2"):
        return None
    out = []
    for x in t.op.inputs if t.op.type == "Pack" or "axis" in t.op.attrs else t.op.inputs[:-1]:
        x = x.op.inputs[0] if x.op.type == "ExpandDims" else x
        if x.shape.ndims not in (0, 1) or None in (x.shape.values or []):
            return None
        value = np.asarray(x.op.attrs["value"]) if x.op.type == "Const" else None
        out += ([None] * max(1, x.shape.num_elements()) if value is None
                else [int(v) for v in value.reshape(-1)])
    return out if len(out) == 4 else None


def shape_of(t):
    """The runtime shape of ``t`` as an int32 tensor (a constant when static)."""
    if t.shape.is_fully_defined():
        return constant(t.shape.as_list(), dtype=dtypes.int32)
    return array_ops.shape(t)


# ------------------------------------------------------------------ geometry
def dim(n, k, s, d, pad):
    """Output size and (before, after) padding of one spatial dim; ``None`` if ``n`` is."""
    ke = (k - 1) * d + 1
    if n is None:
        return None, None
    if pad == "SAME":
        out = -(-n // s)
        total = max((out - 1) * s + ke - n, 0)
        return out, (total // 2, total - total // 2)
    lo, hi = (0, 0) if pad == "VALID" else pad
    if n + lo + hi < ke:
        return -1, (lo, hi)
    return (n + lo + hi - ke) // s + 1, (lo, hi)


@functools.lru_cache(maxsize=256)
def geometry(h, w, kh, kw, strides, dilations, padding):
    """``(OH, OW, (top, bottom, left, right))`` for an ``h x w`` input (runtime)."""
    ph, pw = (padding, padding) if isinstance(padding, str) else padding
    oh, (pt, pb) = dim(h, kh, strides[0], dilations[0], ph)
    ow, (pl, pr) = dim(w, kw, strides[1], dilations[1], pw)
    if oh < 1 or ow < 1:
        raise ValueError(f"input of spatial size {h}x{w} is smaller than the "
                         f"{(kh - 1) * dilations[0] + 1}x{(kw - 1) * dilations[1] + 1} "
                         f"window (padding {padding})")
    return oh, ow, (pt, pb, pl, pr)


def static_out_hw(op_name, in_shape, kh, kw, attrs, what="window"):
    """Static output ``(OH, OW)`` at build time; ``ValueError`` if the window is too big."""
    nchw = attrs["nchw"]
    v = in_shape.values if hasattr(in_shape, "values") else in_shape
    h, w = (None, None) if v is None else (v[2], v[3]) if nchw else (v[1], v[2])
    pad = attrs["padding"]
    ph, pw = (pad, pad) if isinstance(pad, str) else pad
    strides, dil = attrs["strides"], attrs["dilations"]
    if kh is None or kw is None:
        return None, None
    oh, _ = dim(h, kh, strides[0], dil[0], ph)
    ow, _ = dim(w, kw, strides[1], dil[1], pw)
    if (oh is not None and oh < 1) or (ow is not None and ow < 1):
        raise ValueError(f"{op_name}: input shape {in_shape} is smaller than the {kh}x{kw} "
                         f"{what} (dilations {list(dil)}, padding {pad}): negative output "
                         "size")
    return oh, ow


def nhwc_shape(nchw, n, h, w, c):
    return TensorShape([n, c, h, w] if nchw else [n, h, w, c])


def split_shape(shape, nchw):
    """``(N, H, W, C)`` static dims of a 4-D shape in data-format order."""
    if shape.ndims is None:
        return None, None, None, None
    n, a, b, c = shape.values
    return (n, b, c, a) if nchw else (n, a, b, c)


# ------------------------------------------------------------------ kernel helpers
class _Arena(threading.local):
    def __init__(self):
        self.bufs = weakref.WeakValueDictionary()  # (key, shape, dtype, fill, tag) -> buf


_ARENA = _Arena()


class Scratch(threading.local):
    """Per-kernel work buffers reused across calls (one set per thread). Kernels of any
    plan asking for the same key, shape, dtype, fill and tag share one buffer (a per-thread
    arena holds it while one of them does): work buffers are bounded by the distinct
    shapes, not summed over kernels and plans. ``shared=False``: contents that outlive the
    call (the im2col patches a Conv2D hands on to its filter gradient)."""

    def __init__(self, shared=True):
        self.bufs = {}
        self.shared = shared

    def get(self, key, shape, dtype, fill=None, tag=None):
        b = self.bufs.get(key)
        if b is None or b.shape != shape or b.dtype != dtype:
            arena = _ARENA.bufs if self.shared else {}
            k = (key, shape, np.dtype(dtype), fill, tag)
            b = arena.get(k)
            if b is None:
                b = arena[k] = np.empty(shape, dtype) if fill is None else \
                    np.full(shape, fill, dtype)
            self.bufs[key] = b
        return b


def nhwc(a, nchw):
    return a.transpose(0, 2, 3, 1) if nchw else a


def compute_dtype(dt):
    # numpy's float16 matmul does not use BLAS: compute in float32 and round the result.
    return dt if dt == np.float32 or dt == np.float64 else np.dtype(np.float32)


def from_nhwc(y, nchw, dtype):
    """A contiguous array in the op's data format from a canonical NHWC array."""
    if nchw:
        return np.ascontiguousarray(y.transpose(0, 3, 1, 2), dtype=dtype)
    return np.ascontiguousarray(y, dtype=dtype)


def padded(scr, key, xc, pads, dtype, fill=0, cap=None):
    """``xc`` (canonical NHWC) with spatial padding ``fill``, in a reused buffer (of
    ``cap >= len(xc)`` images when given: chunks of a batch share it)."""
    if not any(pads) and xc.dtype == dtype:
        return xc
    pt, pb, pl, pr = pads
    n, h, w, c = xc.shape
    buf = scr.get(key, (cap or n, h + pt + pb, w + pl + pr, c), dtype, fill, pads)[:n]
    buf[:, pt:pt + h, pl:pl + w] = xc
    return buf


def window(a, i, j, out_hw, strides, dilations):
    """The strided slice of canonical ``a`` seen by window offset ``(i, j)``."""
    (oh, ow), (sh, sw), (dh, dw) = out_hw, strides, dilations
    r, c = i * dh, j * dw
    return a[:, r:r + (oh - 1) * sh + 1:sh, c:c + (ow - 1) * sw + 1:sw]


def conv_gradients(make_conv, make_input, make_filter, rank):
    """The gradient functions ``(conv, backprop input, backprop filter)`` of a convolution
    family of ``rank``-D operands, from its three tensor makers (``make_conv(x, w, attrs)``,
    ``make_input(sizes, w, dy, attrs, shape)``, ``make_filter(x, sizes, dy, attrs, shape)``).
    The operands keep their rank whatever their static shape says (TF infers
    ``[?, ?, ?, ?]``)."""
    def fixed(shape):
        return shape if shape.ndims is not None else TensorShape([None] * rank)

    def conv_grad(op, dy):
        x, w = op.inputs
        return [make_input(shape_of(x), w, dy, op.attrs, fixed(x.shape)),
                make_filter(x, shape_of(w), dy, op.attrs, fixed(w.shape))]

    def input_grad(op, g):
        _, w, dy = op.inputs
        return [None, make_filter(g, shape_of(w), dy, op.attrs, fixed(w.shape)),
                make_conv(g, w, op.attrs)]

    def filter_grad(op, g):
        x, _, dy = op.inputs
        return [make_input(shape_of(x), g, dy, op.attrs, fixed(x.shape)), None,
                make_conv(x, g, op.attrs)]
    return conv_grad, input_grad, filter_grad
