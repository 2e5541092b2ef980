"""2-D pooling (``tf.nn.max_pool``, ``avg_pool`` and their gradients).

Each kernel walks the ``KH*KW`` window offsets over a padded canonical NHWC view (see
``_spatial``): max pooling pads with ``-inf``, average pooling with zeros and divides each
window by its number of non-padded elements (TF's ``SAME`` rule). The gradient of a max
pool goes to the first maximum of each window (row-major), as TF's CPU kernel does. The
gradient table::

    MaxPool(x)                  dx = MaxPoolGrad(x, y, dy)
    MaxPoolGrad(x, y, dy)       ddy = MaxPoolGradGrad(x, y, g)    (zero for x and y)
    MaxPoolGradGrad(x, y, g)    dg = MaxPoolGrad(x, y, h)         (zero for x and y)
    AvgPool(x)                  dx = AvgPoolGrad(s(x), dy)
    AvgPoolGrad(s, dy)          ddy = AvgPool(g)
"""
import functools
import threading

import numpy as np

from estimator_npu.engine import threads
from estimator_npu.engine.ops import array_ops
from estimator_npu.engine.ops._spatial import (Scratch, check_rank4, float_tensor, geometry, nhwc,
                                               nhwc_shape, padded, parse_data_format, parse_hw,
                                               parse_padding, shape_of, split_shape, static_out_hw,
                                               window)
from estimator_npu.engine.ops.core import make_tensor
from estimator_npu.engine.registry import OpFamily
from estimator_npu.engine.shape import TensorShape

OPS = OpFamily(__name__)  # this family's op definitions (data)


# ------------------------------------------------------------------ pooling kernels
def _pool_params(op):
    a = op.attrs
    return a["ksize"], a["strides"], a["padding"], a["nchw"]


def _out_array(shape_nhwc, nchw, dtype):
    """A new array in the op's data format and its canonical NHWC view."""
    n, h, w, c = shape_nhwc
    out = np.empty((n, c, h, w) if nchw else (n, h, w, c), dtype)
    return out, nhwc(out, nchw)


def _batch_split(n, per_image, fn):
    """``fn(a, b)`` over slices of the batch, across the thread pool when large (each
    image's windows are independent: the same float operations either way)."""
    threads.split(n, fn, threads.MIN_SIZE // max(per_image, 1) + 1)


class PoolMasks(threading.local):
    """The first-maximum masks a 2x2 ``MaxPool`` computed (``_pool_2x2``), handed to the
    ``MaxPoolGrad`` of the same input and output in the same plan (paired by
    ``engine.plan_rewrites``); used once, and only for those very arrays."""

    def __init__(self):
        self.x = self.y = self.masks = None


def _pairs(x, c, nchw, ksize, strides, pads):
    """A 2x2 stride-2 unpadded NHWC pool of even size over more than ``_PAIR_C`` channels:
    it runs on the window's pixel pairs (``_pool_2x2``)."""
    return not nchw and ksize == strides == (2, 2) and not any(pads) and c > _PAIR_C and \
        x.shape[1] % 2 == 0 and x.shape[2] % 2 == 0 and x.flags.c_contiguous


def _pool_2x2(x, y, masks):
    """2x2 stride-2 max pool of contiguous NHWC ``x`` into ``y`` (both split along the
    batch), with the masks of each window's first maximum (row-major, as TF): ``ht``/``hb``
    the left pixel of the top/bottom pair is that pair's first maximum, ``vt`` the top
    pair holds the window's. The max of the same four values as the window loop."""
    n, oh, ow, c = y.shape

    def part(a, b):
        v = x[a:b].reshape(-1, 2, ow, 2, c)
        ht, hb, vt = (m[a:b].reshape(-1, ow, c) for m in masks)
        np.greater_equal(v[:, 0, :, 0], v[:, 0, :, 1], out=ht)
        np.greater_equal(v[:, 1, :, 0], v[:, 1, :, 1], out=hb)
        top, bottom = np.fmax(v[:, 0, :, 0], v[:, 0, :, 1]), np.fmax(v[:, 1, :, 0],
                                                                    v[:, 1, :, 1])
        np.greater_equal(top, bottom, out=vt)
        np.fmax(top, bottom, out=y[a:b].reshape(-1, ow, c))
    _batch_split(n, 4 * oh * ow * c, part)


def _pool_grad_2x2(dy, masks, out):
    """MaxPoolGrad from ``_pool_2x2``'s masks: ``dy`` times each quarter's mask written into
    that quarter of ``out`` (no equality tests: 6.5 -> 1.9 ms at (100, 14, 14, 64))."""
    n, oh, ow, c = dy.shape

    def part(a, b):
        ht, hb, vt = (m[a:b].reshape(-1, ow, c) for m in masks)
        d, o = dy[a:b].reshape(-1, ow, c), out[a:b].reshape(-1, 2, ow, 2, c)
        t = np.logical_and(vt, ht)
        np.multiply(d, t, out=o[:, 0, :, 0])
        np.multiply(d, np.greater(vt, ht, out=t), out=o[:, 0, :, 1])
        np.multiply(d, np.greater(hb, vt, out=t), out=o[:, 1, :, 0])
        np.multiply(d, np.logical_not(np.logical_or(vt, hb, out=t), out=t), out=o[:, 1, :, 1])
    _batch_split(n, 4 * oh * ow * c, part)


def _max_pool_kernel(op, ctx, pairing=None):
    ksize, strides, padding, nchw = _pool_params(op)
    scr = Scratch()

    def max_pool(x):
        xc = nhwc(x, nchw)
        n, h, w, c = xc.shape
        oh, ow, pads = geometry(h, w, ksize[0], ksize[1], strides, (1, 1), padding)
        out, oc = _out_array((n, oh, ow, c), nchw, x.dtype)
        if pairing is not None and _pairs(x, c, nchw, ksize, strides, pads):
            masks = tuple(np.empty(out.shape, np.bool_) for _ in range(3))
            _pool_2x2(x, out, masks)
            pairing.x, pairing.y, pairing.masks = x, out, masks
            return out

        def part(a, b):
            xp = padded(scr, "x", xc[a:b], pads, x.dtype, -np.inf)
            o = oc[a:b]
            for i in range(ksize[0]):
                for j in range(ksize[1]):
                    win = window(xp, i, j, (oh, ow), strides, (1, 1))
                    if i == 0 and j == 0:
                        np.copyto(o, win)
                    else:
                        np.fmax(o, win, out=o)  # TF skips NaNs (maxpool_nan)
        _batch_split(n, h * w * c, part)
        return out
    return max_pool


def _first_max_masks(scr, xp, yc, ksize, strides):
    """Yields ``(i, j, mask)``: where window offset ``(i, j)`` holds the first maximum.

    The first offset's mask is its equality itself (nothing is taken yet), and the last
    offset does not update ``taken``: two boolean passes fewer than the plain loop."""
    oh, ow = yc.shape[1:3]
    taken = scr.get("taken", yc.shape, np.bool_)
    mask = scr.get("mask", yc.shape, np.bool_)
    last = (ksize[0] - 1, ksize[1] - 1)
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            win = window(xp, i, j, (oh, ow), strides, (1, 1))
            if i == 0 and j == 0:
                np.equal(win, yc, out=taken)
                yield i, j, taken  # used by the caller before the next offset runs
                continue
            np.equal(win, yc, out=mask)
            np.greater(mask, taken, out=mask)  # mask and not taken
            if (i, j) != last:
                np.logical_or(taken, mask, out=taken)
            yield i, j, mask


def _scatter_target(scr, shape, pads, out_hw, ksize, strides, oc):
    """The canonical buffer a pooling gradient writes its windows into: ``oc`` (a slice
    of the result) itself without padding, else a reused padded buffer (``_finish`` copies
    its interior into ``oc``). Zeroed unless the windows tile it exactly (each element
    written once)."""
    n, h, w, c = shape
    pt, pb, pl, pr = pads
    hp, wp = h + pt + pb, w + pl + pr
    acc = scr.get("acc", (n, hp, wp, c), oc.dtype) if any(pads) else oc
    if not (ksize == strides and hp == out_hw[0] * strides[0] and
            wp == out_hw[1] * strides[1]):
        acc.fill(0)
    return acc


def _finish(oc, acc, pads):
    if acc is not oc:
        h, w = oc.shape[1:3]
        np.copyto(oc, acc[:, pads[0]:pads[0] + h, pads[2]:pads[2] + w])


# 2x2 stride-2 unpadded pools over at most this many channels take the gradient on whole
# image rows (``_max_pool_grad_2x2``): 1.08 -> 0.47 ms for LeNet's (64, 28, 28, 6) pool,
# no gain from 16 channels up (numpy's window loops are already long enough there).
_PAIR_C = 8


@functools.lru_cache(maxsize=32)
def _right_halves(w, c):
    """Along one image row of ``w`` pixels of ``c`` channels: where a pixel is the second
    of its 2-wide window."""
    p = np.zeros((w // 2, 2, c), np.bool_)
    p[:, 1] = True
    p = p.reshape(-1)
    p.setflags(write=False)
    return p, ~p


def _moved(e, c, keep):
    """``e`` moved ``c`` places along its rows (left when negative), ``False`` where
    nothing moves in, and only where ``keep``."""
    s = np.zeros_like(e)
    if c > 0:
        s[:, c:] = e[:, :-c]
    else:
        s[:, :c] = e[:, -c:]
    s &= keep
    return s


def _max_pool_grad_2x2(x, y, dy, out):
    """MaxPoolGrad of a 2x2 stride-2 unpadded NHWC pool, on image rows of ``W*C`` elements
    instead of 4 window views with ``C``-long inner loops. ``y`` and ``dy`` are repeated to
    the input's width; each window's first maximum (row-major, as TF) is found with
    shifted boolean rows. The same float products as the window loop: bit-identical."""
    n, h, w, c = x.shape
    rows, width = n * h // 2, w * c
    xr, o = x.reshape(rows, 2, width), out.reshape(rows, 2, width)
    yu, du = (np.repeat(a.reshape(-1, c), 2, axis=0).reshape(rows, width) for a in (y, dy))
    right, left = _right_halves(w, c)
    top = np.equal(xr[:, 0], yu)
    before = _moved(top, c, right)  # the window's left pixel matched first
    taken = top | before | _moved(top, -c, left)
    top &= ~before
    bottom = np.equal(xr[:, 1], yu)
    bottom &= ~taken
    bottom &= ~_moved(bottom, c, right)
    np.multiply(du, top, out=o[:, 0])
    np.multiply(du, bottom, out=o[:, 1])


def _max_pool_grad_kernel(op, ctx, pairing=None):
    ksize, strides, padding, nchw = _pool_params(op)
    overlap = strides[0] < ksize[0] or strides[1] < ksize[1]
    scr = Scratch()

    def max_pool_grad(x, y, dy):
        xc, yc, dyc = nhwc(x, nchw), nhwc(y, nchw), nhwc(dy, nchw)
        n, h, w, c = xc.shape
        oh, ow, pads = geometry(h, w, ksize[0], ksize[1], strides, (1, 1), padding)
        out, oc = _out_array(xc.shape, nchw, dy.dtype)
        if _pairs(x, c, nchw, ksize, strides, pads) and dy.shape == y.shape:
            masks = None
            if pairing is not None and pairing.y is y and pairing.x is x:
                masks, pairing.x, pairing.y, pairing.masks = pairing.masks, None, None, None
            if masks is None:  # the masks (and a max pool whose result is y's values)
                masks = tuple(scr.get(k, y.shape, np.bool_) for k in ("ht", "hb", "vt"))
                _pool_2x2(x, scr.get("y", y.shape, x.dtype), masks)
            _pool_grad_2x2(np.ascontiguousarray(dy), masks, out)
            return out
        if not nchw and ksize == strides == (2, 2) and not any(pads) and h % 2 == 0 and \
                w % 2 == 0 and c <= _PAIR_C:
            xs, ys, ds = (np.ascontiguousarray(a) for a in (x, y, dy))
            _batch_split(n, h * w * c,
                         lambda a, b: _max_pool_grad_2x2(xs[a:b], ys[a:b], ds[a:b], out[a:b]))
            return out

        def part(a, b):
            xp = padded(scr, "x", xc[a:b], pads, x.dtype, -np.inf)
            acc = _scatter_target(scr, (b - a, h, w, c), pads, (oh, ow), ksize, strides,
                                  oc[a:b])
            ys, dys = yc[a:b], dyc[a:b]
            tmp = scr.get("tmp", ys.shape, dy.dtype)
            for i, j, mask in _first_max_masks(scr, xp, ys, ksize, strides):
                win = window(acc, i, j, (oh, ow), strides, (1, 1))
                # A multiply by the mask beats copyto(where=mask) by ~4x on real masks.
                if overlap:
                    np.multiply(dys, mask, out=tmp)
                    win += tmp
                else:
                    np.multiply(dys, mask, out=win)
            _finish(oc[a:b], acc, pads)
        _batch_split(n, h * w * c, part)
        return out
    return max_pool_grad


def _max_pool_grad_grad_kernel(op, ctx):
    ksize, strides, padding, nchw = _pool_params(op)
    scr = Scratch()

    def max_pool_grad_grad(x, y, g):
        xc, yc, gc = nhwc(x, nchw), nhwc(y, nchw), nhwc(g, nchw)
        n, h, w, c = xc.shape
        oh, ow, pads = geometry(h, w, ksize[0], ksize[1], strides, (1, 1), padding)
        xp = padded(scr, "x", xc, pads, x.dtype, -np.inf)
        gp = padded(scr, "g", gc, pads, g.dtype, 0)
        out, oc = _out_array((n, oh, ow, c), nchw, g.dtype)
        tmp = scr.get("tmp", yc.shape, g.dtype)
        for i, j, mask in _first_max_masks(scr, xp, yc, ksize, strides):
            gwin = window(gp, i, j, (oh, ow), strides, (1, 1))
            if i == 0 and j == 0:
                np.multiply(gwin, mask, out=oc)
            else:
                np.multiply(gwin, mask, out=tmp)
                oc += tmp
        return out
    return max_pool_grad_grad


@functools.lru_cache(maxsize=64)
def _inv_counts(h, w, ksize, strides, padding, dtype):
    """``1 / (number of non-padded elements)`` per output position, shape ``(OH, OW, 1)``."""
    oh, ow, (pt, _, pl, _) = geometry(h, w, ksize[0], ksize[1], strides, (1, 1), padding)

    def counts(n_out, n_in, k, s, before):
        start = np.arange(n_out) * s - before
        return np.minimum(start + k, n_in) - np.maximum(start, 0)
    cnt = np.outer(counts(oh, h, ksize[0], strides[0], pt),
                   counts(ow, w, ksize[1], strides[1], pl))
    inv = (1.0 / cnt).astype(dtype)[:, :, None]
    inv.setflags(write=False)
    return inv


def _avg_pool_kernel(op, ctx):
    ksize, strides, padding, nchw = _pool_params(op)
    scr = Scratch()

    def avg_pool(x):
        xc = nhwc(x, nchw)
        n, h, w, c = xc.shape
        oh, ow, pads = geometry(h, w, ksize[0], ksize[1], strides, (1, 1), padding)
        xp = padded(scr, "x", xc, pads, x.dtype, 0)
        out, oc = _out_array((n, oh, ow, c), nchw, x.dtype)
        for i in range(ksize[0]):
            for j in range(ksize[1]):
                win = window(xp, i, j, (oh, ow), strides, (1, 1))
                if i == 0 and j == 0:
                    np.copyto(oc, win)
                else:
                    np.add(oc, win, out=oc)
        oc *= _inv_counts(h, w, ksize, strides, padding, x.dtype)
        return out
    return avg_pool


def _avg_pool_grad_kernel(op, ctx):
    ksize, strides, padding, nchw = _pool_params(op)
    overlap = strides[0] < ksize[0] or strides[1] < ksize[1]
    scr = Scratch()

    def avg_pool_grad(sizes, dy):
        n, a, b, c = (int(s) for s in sizes)
        h, w, c = (b, c, a) if nchw else (a, b, c)
        oh, ow, pads = geometry(h, w, ksize[0], ksize[1], strides, (1, 1), padding)
        g = nhwc(dy, nchw) * _inv_counts(h, w, ksize, strides, padding, dy.dtype)
        out, oc = _out_array((n, h, w, c), nchw, dy.dtype)
        acc = _scatter_target(scr, (n, h, w, c), pads, (oh, ow), ksize, strides, oc)
        for i in range(ksize[0]):
            for j in range(ksize[1]):
                win = window(acc, i, j, (oh, ow), strides, (1, 1))
                if overlap:
                    win += g
                else:
                    np.copyto(win, g)
        _finish(oc, acc, pads)
        return out
    return avg_pool_grad


# ------------------------------------------------------------------ pooling ops
def _make_pool(op_type, x, attrs, name=None):
    nchw = attrs["nchw"]
    n, _, _, c = split_shape(x.shape, nchw)
    kh, kw = attrs["ksize"]
    oh, ow = static_out_hw(f"{op_type} '{name or op_type}'", x.shape, kh, kw, attrs)
    shape = nhwc_shape(nchw, n, oh, ow, c) if x.shape.ndims is not None else \
        TensorShape([None] * 4)
    return make_tensor(op_type, [x], x.dtype, shape, dict(attrs), name=name or op_type)


def _rank4(shape):
    """Pooling operands are 4-D whatever their static shape says (TF: ``[?, ?, ?, ?]``)."""
    return shape if shape.ndims is not None else TensorShape([None] * 4)


def _max_pool_grad_op(x, y, dy, attrs):
    return make_tensor("MaxPoolGrad", [x, y, dy], dy.dtype, _rank4(x.shape), dict(attrs),
                       name="MaxPoolGrad")


def _max_pool_grad_grad_op(x, y, g, attrs):
    return make_tensor("MaxPoolGradGrad", [x, y, g], g.dtype, _rank4(y.shape), dict(attrs),
                       name="MaxPoolGradGrad")


def _max_pool_grad_grad_grad(op, h):
    x, y, _ = op.inputs
    return [array_ops.zeros_like(x), array_ops.zeros_like(y),
            _max_pool_grad_op(x, y, h, op.attrs)]


OPS.define("MaxPool", kernel=_max_pool_kernel,
           grad=lambda op, dy: [_max_pool_grad_op(op.inputs[0], op.outputs[0], dy, op.attrs)])
OPS.define("MaxPoolGrad", kernel=_max_pool_grad_kernel,
           grad=lambda op, g: [array_ops.zeros_like(op.inputs[0]),
                               array_ops.zeros_like(op.inputs[1]),
                               _max_pool_grad_grad_op(op.inputs[0], op.inputs[1], g, op.attrs)])
OPS.define("MaxPoolGradGrad", kernel=_max_pool_grad_grad_kernel, grad=_max_pool_grad_grad_grad)
OPS.define("AvgPool", kernel=_avg_pool_kernel,
           grad=lambda op, dy: [make_tensor("AvgPoolGrad", [shape_of(op.inputs[0]), dy],
                                            dy.dtype, _rank4(op.inputs[0].shape),
                                            dict(op.attrs),
                                            name="AvgPoolGrad")])
OPS.define("AvgPoolGrad", kernel=_avg_pool_grad_kernel,
           grad=lambda op, g: [None, _make_pool("AvgPool", g, op.attrs)])


def _pool(op_type, value, ksize, strides, padding, data_format, name):
    nchw = parse_data_format(data_format, op_type)
    if ksize is None or strides is None:
        raise ValueError(f"{op_type}: ksize and strides must be given")
    attrs = {"ksize": parse_hw(ksize, "ksize", nchw, op_type),
             "strides": parse_hw(strides, "strides", nchw, op_type),
             "dilations": (1, 1), "padding": parse_padding(padding, nchw, op_type), "nchw": nchw}
    x = float_tensor(value, op_type, "input")
    check_rank4(x, op_type, "input")
    return _make_pool(op_type, x, attrs, name)


def max_pool(value=None, ksize=None, strides=None, padding=None, data_format="NHWC",
             name=None, input=None):  # noqa: A002
    """Max pooling over ``ksize`` windows of a 4-D tensor.

    Args:
        value: ``[N, H, W, C]`` (or NCHW) float tensor (``input`` is the TF2 spelling).
        ksize, strides: an int or a list of 1, 2 or 4 ints (4: batch and channel entries 1).
        padding: ``"SAME"`` (padding never wins the max) or ``"VALID"``.
        data_format: ``"NHWC"`` or ``"NCHW"``.
    """
    return _pool("MaxPool", value if value is not None else input, ksize, strides, padding,
                 data_format, name)


def avg_pool(value=None, ksize=None, strides=None, padding=None, data_format="NHWC",
             name=None, input=None):  # noqa: A002
    """Average pooling; with ``SAME`` each window is divided by its non-padded count."""
    return _pool("AvgPool", value if value is not None else input, ksize, strides, padding,
                 data_format, name)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """``tf.nn.max_pool2d`` (TF2 argument names)."""
    return max_pool(input, ksize, strides, padding, data_format, name)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """``tf.nn.avg_pool2d`` (TF2 argument names)."""
    return avg_pool(input, ksize, strides, padding, data_format, name)


__all__ = ["max_pool", "avg_pool", "max_pool2d", "avg_pool2d"]
