"""2-D convolution (``tf.nn.conv2d``, its two backprops and ``conv2d_transpose``).

Also re-exports the pooling ops of ``pool_ops`` (``tf.nn`` imports this module's
``__all__``). Kernels see every array through a canonical NHWC *view* (an NCHW array is
viewed through a transpose, no copy), so one code path serves both data formats. A
convolution is im2col plus one GEMM::

    cols[n, oh, ow, i, j, c] = xpad[n, oh*sh + i*dh, ow*sw + j*dw, c]   # one np.copyto
    y  = cols.reshape(P, KH*KW*C) @ w.reshape(KH*KW*C, O)                # P = N*OH*OW
    dw = cols.T @ dy                                                     # BackpropFilter
    dx = col2im(w @ dy.T)                                                # BackpropInput

``cols`` is copied from a ``sliding_window_view`` into a buffer reused across calls; when
the input has few channels it is laid out channels-outer ``(KH, KW, C, N, OH, OW)`` so the
copy runs along image rows. col2im is ``KH*KW`` shifted adds. float16 (and bfloat16)
convolutions compute in float32 with BLAS and round the result.

The gradient table: each backprop is linear in each input, so its gradient is again a
convolution (``s(t)`` is the shape of ``t``, ``g`` the incoming gradient)::

    Conv2D(x, w)                    dx = BackpropInput(s(x), w, dy)
                                    dw = BackpropFilter(x, s(w), dy)
    Conv2DBackpropInput(s, w, dy)   dw = BackpropFilter(g, s(w), dy),  ddy = Conv2D(g, w)
    Conv2DBackpropFilter(x, s, dy)  dx = BackpropInput(s(x), g, dy),   ddy = Conv2D(x, g)

Padding follows TF exactly (see ``_spatial``); explicit padding is accepted as in TF.
"""
import threading

import numpy as np
from numpy.lib.stride_tricks import as_strided, sliding_window_view

from estimator_npu.engine import threads
from estimator_npu.engine.ops._spatial import (Scratch, check_rank4, compute_dtype,
                                               conv_gradients, float_tensor, from_nhwc,
                                               geometry, nhwc, nhwc_shape, padded,
                                               parse_data_format, parse_hw, parse_padding,
                                               sizes_tensor, split_shape, static_out_hw)
from estimator_npu.engine.ops.core import make_tensor
from estimator_npu.engine.ops.pool_ops import avg_pool, avg_pool2d, max_pool, max_pool2d
from estimator_npu.engine.registry import OpFamily
from estimator_npu.engine.shape import TensorShape

OPS = OpFamily(__name__)  # this family's op definitions (data)

# Inputs with at most this many channels use the channels-outer im2col layout.
_SMALL_C = 4
# Conv2DBackpropInput to inputs with at least this many channels works a chunk of images at a
# time, each chunk's columns about _CHUNK_BYTES.
_CHUNKED_C = 16
_CHUNK_BYTES = 1 << 22
# Conv2D and Conv2DBackpropFilter whose whole-batch im2col columns exceed this many bytes
# work in chunks of about _CHUNK_BYTES of columns: a 63 MB column matrix (the tutorial
# CNN's second convolution at batch 100) streams from memory in the GEMM, a 4 MB chunk
# stays in cache (measured 45-55 ms -> 31-39 ms for that convolution, one thread).
_CHUNKED_COLS_BYTES = 1 << 24
# Inputs with few channels keep whole-batch columns up to this size (a whole test set fed at
# once would otherwise need GBs): beyond it they too work in chunks of about this size.
_MAX_COLS_BYTES = 256 << 20


def _im2col(scr, xp, out_hw, ksize, strides, dilations, key="cols", cap=None):
    """im2col of padded canonical ``xp``: a 2-D ``(N*OH*OW, KH*KW*C)`` matrix (a transposed
    view of a channels-outer buffer when ``C`` is small). ``cap``: the buffer holds that
    many images (chunks of one batch share it, the last and shorter one included)."""
    n, _, _, c = xp.shape
    (oh, ow), (kh, kw), (sh, sw), (dh, dw) = out_hw, ksize, strides, dilations
    win = sliding_window_view(xp, ((kh - 1) * dh + 1, (kw - 1) * dw + 1), axis=(1, 2))
    win = win[:, :(oh - 1) * sh + 1:sh, :(ow - 1) * sw + 1:sw, :, ::dh, ::dw]
    per_image = oh * ow * kh * kw * c
    if c <= _SMALL_C:
        cols = scr.get(key, (kh, kw, c, n, oh, ow), xp.dtype)
        src = win.transpose(4, 5, 3, 0, 1, 2)
        threads.split(n, lambda a, b: np.copyto(cols[:, :, :, a:b], src[:, :, :, a:b]),
                      threads.MIN_SIZE // per_image + 1)
        return cols.reshape(kh * kw * c, n * oh * ow).T
    cols = scr.get(key, (cap or n, oh, ow, kh, kw, c), xp.dtype)[:n]
    src = win.transpose(0, 1, 2, 4, 5, 3)
    threads.split(n, lambda a, b: np.copyto(cols[a:b], src[a:b]),
                  threads.MIN_SIZE // per_image + 1)
    return cols.reshape(n * oh * ow, kh * kw * c)


# Convolutions of inputs with at most _BAND_C channels multiply tiles of T output pixels
# of a row at once: the tile's input is KH image rows of (T-1)*SW+KW pixels, copied in
# runs of that many pixels, times a banded filter of shape (KH*((T-1)*SW+KW)*C, T*O)
# (zeros outside each pixel's window). A deeper, wider GEMM than im2col's (25, 6) for
# LeNet's first convolution and a copy of contiguous runs: 2.9 -> 1.4 ms for its forward
# pass, 2.9 -> 0.6 ms for its filter gradient (given the forward's patches).
_BAND_C = 8
_BAND_COLS = 128  # T * O at most


def _band_tile(c, ow, co, strides, dil):
    """The tile width T of the band path (a divisor of OW, 2 to 8), 0 where it is not used."""
    if c > _BAND_C or dil != (1, 1):
        return 0
    return max((t for t in range(2, 9) if ow % t == 0 and t * co <= _BAND_COLS), default=0)


def _band_patches(scr, xp, oh, ow, t, kh, kw, strides):
    """``(N*OH*OW/T, KH*Wi*C)`` tile inputs of padded canonical ``xp`` (``Wi = (T-1)*SW+KW``)."""
    n, hp, wp, c = xp.shape
    (sh, sw), wi, nt = strides, (t - 1) * strides[1] + kw, ow // t
    x3 = np.ascontiguousarray(xp).reshape(n, hp, wp * c)
    win = sliding_window_view(x3, (kh, wi * c), axis=(1, 2))
    win = win[:, :(oh - 1) * sh + 1:sh, :(nt - 1) * t * sw * c + 1:t * sw * c]
    cols = scr.get("band", (n, oh, nt, kh, wi * c), xp.dtype)
    threads.split(n, lambda a, b: np.copyto(cols[a:b], win[a:b]),
                  threads.MIN_SIZE // cols[0].size + 1)
    return cols.reshape(n * oh * nt, kh * wi * c)


def _band_filter(w, t, sw, cdt):
    kh, kw, c, co = w.shape
    wb = np.zeros((kh, (t - 1) * sw + kw, c, t, co), cdt)
    for j in range(t):
        wb[:, j * sw:j * sw + kw, :, j] = w
    return wb.reshape(-1, t * co)


def _band_filter_grad(cols, dy2, t, ksize, sw, c):
    """The filter gradient from band patches: the banded ``cols.T @ dy`` summed along each
    band (a strided view: entry ``[i, j*SW + q, :, j]`` is tap ``(i, q)`` of pixel j)."""
    (kh, kw), co = ksize, dy2.shape[1]
    d = np.matmul(cols.T, dy2.reshape(-1, t * co)).reshape(kh, -1, c, t, co)
    s = d.strides
    return as_strided(d, (kh, kw, c, t, co), (s[0], s[1], s[2], sw * s[1] + s[3], s[4])).sum(3)


def _band_fits(n, oh, ow, t, kh, kw, c, strides, dtype):
    wi = (t - 1) * strides[1] + kw
    return n * oh * (ow // t) * kh * wi * c * np.dtype(dtype).itemsize <= _MAX_COLS_BYTES


def _chunk_images(n, c, out_hw, ksize, dtype):
    """How many images one im2col chunk holds: all ``n`` when the whole batch's columns
    fit in ``_CHUNKED_COLS_BYTES``; otherwise about ``_CHUNK_BYTES`` of columns, so each
    chunk's columns are still in cache when its GEMM reads them. Inputs with few
    channels keep the whole-batch channels-outer layout (their columns are small) up to
    ``_MAX_COLS_BYTES``."""
    (oh, ow), (kh, kw) = out_hw, ksize
    per_image = max(oh * ow * kh * kw * c * np.dtype(dtype).itemsize, 1)
    if c <= _SMALL_C:
        return n if n * per_image <= _MAX_COLS_BYTES else max(1, _MAX_COLS_BYTES // per_image)
    if n * per_image <= _CHUNKED_COLS_BYTES:
        return n
    return max(1, min(n, _CHUNK_BYTES // per_image))


def _im2col_chunks(scr, xc, pads, dtype, nb, out_hw, ksize, strides, dilations):
    """``(first image, image count, columns)`` for chunks of ``nb`` images of canonical
    ``xc`` padded by ``pads``. Each chunk is padded on its own: the padded input and the
    columns live in buffers of ``nb`` images reused by every chunk, so a kernel's scratch
    is bounded by the chunk, not the batch. The chunk size depends only on the shapes,
    never on the thread count, so results do not either."""
    for s in range(0, xc.shape[0], nb):
        xp = padded(scr, "x_chunk", xc[s:s + nb], pads, dtype, cap=nb)
        yield s, xp.shape[0], _im2col(scr, xp, out_hw, ksize, strides, dilations,
                                      key="cols_chunk", cap=nb)


def _conv_params(op):
    a = op.attrs
    return a["strides"], a["dilations"], a["padding"], a["nchw"]


# ------------------------------------------------------------------ conv kernels
class Patches(threading.local):
    """The im2col matrix a ``Conv2D`` kernel computed, handed to the ``Conv2DBackpropFilter``
    of the same input in the same plan (paired by ``engine.plan_rewrites``), which then
    skips its own im2col. ``x`` is the input array the matrix was made from: the filter
    gradient uses it only for that very array, and only once per forward call. One per
    thread, like the kernels' scratch buffers (two threads may run one plan)."""

    def __init__(self):
        self.x = self.cols = None


def _conv2d_kernel(op, ctx, patches=None):
    strides, dil, padding, nchw = _conv_params(op)
    scr = Scratch()
    own = scr if patches is None else Scratch(shared=False)  # patches outlive the call

    def conv2d(x, w):
        xc = nhwc(x, nchw)
        n, h, wd, c = xc.shape
        kh, kw, ci, co = w.shape
        if ci != c:
            raise ValueError(f"input has {c} channels but the filter expects {ci} "
                             f"(input shape {x.shape}, filter shape {w.shape})")
        oh, ow, pads = geometry(h, wd, kh, kw, strides, dil, padding)
        cdt = compute_dtype(x.dtype)
        w2 = w.reshape(kh * kw * c, co).astype(cdt, copy=False)
        t = _band_tile(c, ow, co, strides, dil)
        if t and _band_fits(n, oh, ow, t, kh, kw, c, strides, cdt):
            cols = _band_patches(own, padded(scr, "x", xc, pads, cdt), oh, ow, t, kh, kw,
                                 strides)
            if patches is not None:
                patches.x, patches.cols = x, cols
            y = np.matmul(cols, _band_filter(w.astype(cdt, copy=False), t, strides[1], cdt))
            return from_nhwc(y.reshape(n, oh, ow, co), nchw, x.dtype)
        nb = _chunk_images(n, c, (oh, ow), (kh, kw), cdt)
        if nb < n:
            if patches is not None:
                patches.x = None
            y = np.empty((n * oh * ow, co), cdt)
            for s, m, cols in _im2col_chunks(scr, xc, pads, cdt, nb, (oh, ow), (kh, kw),
                                             strides, dil):
                np.matmul(cols, w2, out=y[s * oh * ow:(s + m) * oh * ow])
        else:
            cols = _im2col(own, padded(scr, "x", xc, pads, cdt), (oh, ow), (kh, kw), strides,
                           dil)
            if patches is not None:
                patches.x, patches.cols = x, cols
            y = np.matmul(cols, w2)
        return from_nhwc(y.reshape(n, oh, ow, co), nchw, x.dtype)
    if patches is not None:
        def release():  # the plan compiler collects it: a session's switch to another plan
            own.bufs.clear()
            patches.x = patches.cols = None
        conv2d.release = release
    return conv2d


def _conv2d_backprop_filter_kernel(op, ctx, patches=None):
    strides, dil, padding, nchw = _conv_params(op)
    scr = Scratch()

    def backprop_filter(x, sizes, dy):
        xc = nhwc(x, nchw)
        n, h, wd, c = xc.shape
        kh, kw, _, co = (int(s) for s in sizes)
        oh, ow, pads = geometry(h, wd, kh, kw, strides, dil, padding)
        cdt = compute_dtype(x.dtype)
        cols = None
        t = _band_tile(c, ow, co, strides, dil)
        t = t if t and _band_fits(n, oh, ow, t, kh, kw, c, strides, cdt) else 0
        shape = (n * oh * (ow // t), kh * ((t - 1) * strides[1] + kw) * c) if t else \
            (n * oh * ow, kh * kw * c)
        if patches is not None and patches.x is x:
            cols, patches.x = patches.cols, None
            if cols.shape != shape:
                cols = None
        dy2 = nhwc(dy, nchw).reshape(n * oh * ow, co).astype(cdt, copy=False)
        if t:
            if cols is None:
                cols = _band_patches(scr, padded(scr, "x", xc, pads, cdt), oh, ow, t, kh, kw,
                                     strides)
            dw = _band_filter_grad(cols, dy2, t, (kh, kw), strides[1], c)
            return dw.astype(x.dtype, copy=False)
        if cols is None:
            nb = _chunk_images(n, c, (oh, ow), (kh, kw), cdt)
            if nb < n:
                dw = np.zeros((kh * kw * c, co), cdt)
                part = scr.get("dw", dw.shape, cdt)
                for s, m, cols in _im2col_chunks(scr, xc, pads, cdt, nb, (oh, ow), (kh, kw),
                                                 strides, dil):
                    np.matmul(cols.T, dy2[s * oh * ow:(s + m) * oh * ow], out=part)
                    dw += part
                return dw.reshape(kh, kw, c, co).astype(x.dtype, copy=False)
            cols = _im2col(scr, padded(scr, "x", xc, pads, cdt), (oh, ow), (kh, kw), strides,
                           dil)
        dw = np.matmul(cols.T, dy2).reshape(kh, kw, c, co)
        return dw.astype(x.dtype, copy=False)
    return backprop_filter


def _conv2d_backprop_input_kernel(op, ctx):
    strides, dil, padding, nchw = _conv_params(op)
    (sh, sw), (dh, dw) = strides, dil
    scr = Scratch()

    def backprop_input(sizes, w, dy):
        n, a, b, c = (int(s) for s in sizes)
        h, wd, c = (b, c, a) if nchw else (a, b, c)
        kh, kw, _, co = w.shape
        oh, ow, (pt, pb, pl, pr) = geometry(h, wd, kh, kw, strides, dil, padding)
        cdt = compute_dtype(dy.dtype)
        w2 = w.reshape(kh * kw * c, co).astype(cdt, copy=False)
        hp, wp = h + pt + pb, wd + pl + pr
        if c >= _CHUNKED_C and (sh, sw, dh, dw) == (1, 1, 1, 1) and pt < kh and pl < kw \
                and h + pt >= oh and wd + pl >= ow:
            return _backprop_input_as_conv(scr, (n, h, wd, c), w, nhwc(dy, nchw), nchw,
                                           (oh, ow), (kh, kw), (pt, pl), cdt)
        if c >= _CHUNKED_C:
            return _backprop_input_chunked(scr, (n, h, wd, c), w2, nhwc(dy, nchw), nchw,
                                           (oh, ow), (kh, kw), strides, dil, (pt, pl), cdt)
        # dcols and acc are channels-outer so the shifted adds run along contiguous rows;
        # with many adds, batch-innermost buffers make the rows longer (OW*N when s=1).
        if kh * kw >= 16:
            dyt = np.ascontiguousarray(nhwc(dy, nchw).transpose(3, 1, 2, 0), dtype=cdt)
            dcols = np.matmul(w2, dyt.reshape(co, -1)).reshape(kh, kw, c, oh, ow, n)
            dcols = dcols.transpose(0, 1, 2, 5, 3, 4)
            acc = scr.get("acc_n", (c, hp, wp, n), cdt).transpose(0, 3, 1, 2)
        else:
            dy2 = nhwc(dy, nchw).reshape(n * oh * ow, co).astype(cdt, copy=False)
            dcols = np.matmul(w2, dy2.T).reshape(kh, kw, c, n, oh, ow)
            acc = scr.get("acc", (c, n, hp, wp), cdt)
        acc.fill(0)
        for i in range(kh):
            for j in range(kw):
                r, q = i * dh, j * dw
                acc[:, :, r:r + (oh - 1) * sh + 1:sh, q:q + (ow - 1) * sw + 1:sw] += dcols[i, j]
        dx = acc[:, :, pt:pt + h, pl:pl + wd]
        # np.array always copies: the result must not alias the reused buffer.
        return np.array(dx.transpose(1, 0, 2, 3) if nchw else dx.transpose(1, 2, 3, 0),
                        dtype=dy.dtype, order="C")
    return backprop_input


def _backprop_input_as_conv(scr, shape, w, dyc, nchw, out_hw, ksize, pads, cdt):
    """The input gradient of a stride-1 convolution as a forward one: ``dx`` is the VALID
    correlation of ``dy``, padded by ``k - 1 - pad_before`` before and ``h + pad_before -
    oh`` after, with the filter flipped in space and its channel axes swapped. Its
    im2col + GEMM runs in the same cache-sized image chunks as ``Conv2D``'s and needs no
    scatter-adds (the tutorial CNN's second convolution: 61 -> 40 ms, one thread)."""
    n, h, wd, c = shape
    (oh, ow), (kh, kw) = out_hw, ksize
    pt, pl = pads
    bt, bl = kh - 1 - pt, kw - 1 - pl
    co = w.shape[3]
    wf = np.ascontiguousarray(w[::-1, ::-1].transpose(0, 1, 3, 2), dtype=cdt)
    wf = wf.reshape(kh * kw * co, c)
    out = np.empty((n * h * wd, c), cdt)
    nb = _chunk_images(n, co, (h, wd), (kh, kw), cdt)
    pads = (bt, kh - 1 - bt + h - oh, bl, kw - 1 - bl + wd - ow)
    for s, m, cols in _im2col_chunks(scr, dyc, pads, cdt, nb, (h, wd), (kh, kw), (1, 1),
                                     (1, 1)):
        np.matmul(cols, wf, out=out[s * h * wd:(s + m) * h * wd])
    return from_nhwc(out.reshape(n, h, wd, c), nchw, dyc.dtype)


def _backprop_input_chunked(scr, shape, w2, dyc, nchw, out_hw, ksize, strides, dil, pads, cdt):
    """col2im for inputs with many channels, a few images at a time: each chunk's
    ``dcols = dy @ w.T`` (``(m*OH*OW, KH*KW*C)``, about ``_CHUNK_BYTES``) is still in cache
    when its ``KH*KW`` shifted adds read it (the whole batch's would not be)."""
    n, h, wd, c = shape
    (oh, ow), (kh, kw), (sh, sw), (dh, dw) = out_hw, ksize, strides, dil
    pt, pl = pads
    co = w2.shape[1]
    hp = max((oh - 1) * sh + (kh - 1) * dh + 1, pt + h)
    wp = max((ow - 1) * sw + (kw - 1) * dw + 1, pl + wd)
    out = np.empty((n, c, h, wd) if nchw else (n, h, wd, c), dyc.dtype)
    oc = nhwc(out, nchw)
    per_image = oh * ow * kh * kw * c * np.dtype(cdt).itemsize
    nb = max(1, min(n, _CHUNK_BYTES // max(per_image, 1)))
    w2t = w2.T
    acc_all = scr.get("acc_c", (nb, hp, wp, c), cdt)
    for s in range(0, n, nb):
        m = min(nb, n - s)
        d2 = dyc[s:s + m].reshape(m * oh * ow, co).astype(cdt, copy=False)
        dc = np.matmul(d2, w2t).reshape(m, oh, ow, kh, kw, c)
        acc = acc_all[:m]
        acc.fill(0)
        for i in range(kh):
            for j in range(kw):
                r, q = i * dh, j * dw
                acc[:, r:r + (oh - 1) * sh + 1:sh, q:q + (ow - 1) * sw + 1:sw] += \
                    dc[:, :, :, i, j]
        np.copyto(oc[s:s + m], acc[:, pt:pt + h, pl:pl + wd], casting="unsafe")
    return out


# ------------------------------------------------------------------ conv op builders
def _conv_attrs(strides, dilations, padding, nchw):
    return {"strides": strides, "dilations": dilations, "padding": padding, "nchw": nchw}


def _make_conv2d(x, w, attrs, name=None):
    op_name = f"Conv2D '{name or 'Conv2D'}'"
    nchw = attrs["nchw"]
    n, _, _, c = split_shape(x.shape, nchw)
    ws = w.shape.values if w.shape.ndims is not None else (None,) * 4
    if c is not None and ws[2] is not None and c != ws[2]:
        raise ValueError(f"{op_name}: input channels {c} (input shape {x.shape}, "
                         f"{'NCHW' if nchw else 'NHWC'}) do not match the filter's in_channels "
                         f"{ws[2]} (filter shape {w.shape})")
    oh, ow = static_out_hw(op_name, x.shape, ws[0], ws[1], attrs, "filter")
    shape = nhwc_shape(nchw, n, oh, ow, ws[3]) if x.shape.ndims is not None else \
        TensorShape([None, None, None, ws[3]] if not nchw else [None, ws[3], None, None])
    return make_tensor("Conv2D", [x, w], x.dtype, shape, dict(attrs), name=name or "Conv2D")


def _make_backprop_input(sizes, w, dy, attrs, shape, name=None):
    return make_tensor("Conv2DBackpropInput", [sizes, w, dy], dy.dtype, shape, dict(attrs),
                       name=name or "Conv2DBackpropInput")


def _make_backprop_filter(x, sizes, dy, attrs, shape, name=None):
    return make_tensor("Conv2DBackpropFilter", [x, sizes, dy], x.dtype, shape, dict(attrs),
                       name=name or "Conv2DBackpropFilter")


_conv2d_grad, _backprop_input_grad, _backprop_filter_grad = conv_gradients(
    _make_conv2d, _make_backprop_input, _make_backprop_filter, 4)


OPS.define("Conv2D", kernel=_conv2d_kernel, grad=_conv2d_grad)
OPS.define("Conv2DBackpropInput", kernel=_conv2d_backprop_input_kernel,
           grad=_backprop_input_grad)
OPS.define("Conv2DBackpropFilter", kernel=_conv2d_backprop_filter_kernel,
           grad=_backprop_filter_grad)


# ------------------------------------------------------------------ conv public API
def _parse_conv(op_type, strides, padding, data_format, dilations, explicit=True):
    nchw = parse_data_format(data_format, op_type)
    if strides is None:
        raise ValueError(f"{op_type}: strides must be given")
    return _conv_attrs(parse_hw(strides, "strides", nchw, op_type),
                       parse_hw(1 if dilations is None else dilations, "dilations", nchw, op_type),
                       parse_padding(padding, nchw, op_type, explicit), nchw)


def conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True,  # noqa: A002
           data_format="NHWC", dilations=None, name=None, filters=None):
    """2-D convolution of a 4-D ``input`` with a ``[KH, KW, C_in, C_out]`` ``filter``.

    Args:
        input: ``[N, H, W, C]`` (``NHWC``) or ``[N, C, H, W]`` (``NCHW``) float tensor.
        filter: ``[KH, KW, C_in, C_out]`` tensor of the same dtype (``filters`` is the TF2
            spelling).
        strides: an int or a list of 1, 2 or 4 ints (4: in ``data_format`` order, batch
            and channel entries 1).
        padding: ``"SAME"``, ``"VALID"`` or explicit ``[[0, 0], [t, b], [l, r], [0, 0]]``.
        data_format: ``"NHWC"`` (default) or ``"NCHW"``.
        dilations: an int or list like ``strides``; default 1.
        name: optional op name.

    Returns:
        The convolution, ``[N, OH, OW, C_out]`` (or NCHW).

    Raises:
        ValueError: bad padding, data_format, strides or ranks; input channels that do not
            match the filter; a window larger than a ``VALID`` input.
        TypeError: inputs neither float nor int32/int64 (integers convolve exactly, as TF).
    """
    if filter is None:
        filter = filters
    if filter is None:
        raise ValueError("Conv2D: the filter must be given (filter= or filters=)")
    attrs = _parse_conv("Conv2D", strides, padding, data_format, dilations)
    from estimator_npu.engine import dtypes
    from estimator_npu.engine.ops import math_ops
    from estimator_npu.engine.ops.core import convert_to_tensor
    xi = convert_to_tensor(input)
    if xi.dtype in (dtypes.int32, dtypes.int64):  # TF's CPU Conv2D takes integers too
        wi = convert_to_tensor(filter)
        if wi.dtype != xi.dtype:
            raise TypeError(f"Conv2D: filter dtype {wi.dtype.name} must match the input's "
                            f"{xi.dtype.name}")
        y = _make_conv2d(math_ops.cast(xi, dtypes.float64), math_ops.cast(wi, dtypes.float64),
                         attrs)
        return math_ops.cast(y, xi.dtype, name=name)
    x = float_tensor(input, "Conv2D", "input")
    w = float_tensor(filter, "Conv2D", "filter", dtype=x.dtype)
    check_rank4(x, "Conv2D", "input")
    check_rank4(w, "Conv2D", "filter")
    return _make_conv2d(x, w, attrs, name)


def conv2d_backprop_input(input_sizes, filter=None, out_backprop=None, strides=None,  # noqa
                          padding=None, use_cudnn_on_gpu=True, data_format="NHWC",
                          dilations=None, name=None, filters=None):
    """The gradient of ``conv2d`` with respect to its input (of shape ``input_sizes``)."""
    if filter is None:
        filter = filters
    attrs = _parse_conv("Conv2DBackpropInput", strides, padding, data_format, dilations)
    return _backprop_input_public("Conv2DBackpropInput", input_sizes, filter, out_backprop,
                                  attrs, name)


def _backprop_input_public(op_type, input_sizes, filter, out_backprop, attrs, name):  # noqa
    dy = float_tensor(out_backprop, op_type, "out_backprop")
    w = float_tensor(filter, op_type, "filter", dtype=dy.dtype)
    check_rank4(dy, op_type, "out_backprop")
    check_rank4(w, op_type, "filter")
    sizes, static = sizes_tensor(input_sizes, op_type, "input_sizes")
    nchw = attrs["nchw"]
    n, h, wd, c = static[0], *((static[2], static[3], static[1]) if nchw else static[1:])
    ws = w.shape.values if w.shape.ndims is not None else (None,) * 4
    dn, _, _, dc = split_shape(dy.shape, nchw)
    op_name = f"{op_type} '{name or op_type}'"
    if c is not None and ws[2] is not None and c != ws[2]:
        raise ValueError(f"{op_name}: output channels {c} (shape {static}) do not match the "
                         f"filter's dim 2 ({ws[2]}, filter shape {w.shape})")
    if dc is not None and ws[3] is not None and dc != ws[3]:
        raise ValueError(f"{op_name}: input channels {dc} (shape {dy.shape}) do not match "
                         f"the filter's dim 3 ({ws[3]}, filter shape {w.shape})")
    out_shape = nhwc_shape(nchw, n if n is not None else dn, h, wd, c)
    oh, ow = static_out_hw(op_name, out_shape, ws[0], ws[1], attrs, "filter")
    _, dh, dw, _ = split_shape(dy.shape, nchw)
    if (None not in (oh, dh) and oh != dh) or (None not in (ow, dw) and ow != dw):
        raise ValueError(f"{op_name}: output shape {static} convolved with filter "
                         f"{w.shape} gives spatial size {oh}x{ow}, but the input has shape "
                         f"{dy.shape}")
    return _make_backprop_input(sizes, w, dy, attrs, out_shape, name)


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                           use_cudnn_on_gpu=True, data_format="NHWC", dilations=None,
                           name=None):
    """The gradient of ``conv2d`` with respect to its filter (of shape ``filter_sizes``)."""
    attrs = _parse_conv("Conv2DBackpropFilter", strides, padding, data_format, dilations)
    x = float_tensor(input, "Conv2DBackpropFilter", "input")
    dy = float_tensor(out_backprop, "Conv2DBackpropFilter", "out_backprop", dtype=x.dtype)
    check_rank4(x, "Conv2DBackpropFilter", "input")
    check_rank4(dy, "Conv2DBackpropFilter", "out_backprop")
    sizes, static = sizes_tensor(filter_sizes, "Conv2DBackpropFilter", "filter_sizes")
    return _make_backprop_filter(x, sizes, dy, attrs, TensorShape(static), name)


def conv2d_transpose(value=None, filter=None, output_shape=None, strides=None,  # noqa: A002
                     padding="SAME", data_format="NHWC", name=None, input=None,  # noqa: A002
                     filters=None, dilations=None):
    """The transpose of ``conv2d`` (its gradient with respect to the input).

    Args:
        value: ``[N, H, W, C_in]`` (or NCHW) tensor.
        filter: ``[KH, KW, C_out, C_in]`` tensor (note: output channels first).
        output_shape: the 4 output sizes (list or 1-D int tensor), in ``data_format`` order.
        strides, padding, data_format, dilations: as for ``conv2d`` (the forward conv
            that maps ``output_shape`` to ``value``'s shape).
    """
    value = input if value is None else value
    filter = filters if filter is None else filter
    if value is None or filter is None or output_shape is None:
        raise ValueError("conv2d_transpose: value, filter and output_shape must be given")
    attrs = _parse_conv("conv2d_transpose", strides, padding, data_format, dilations,
                        explicit=False)
    return _backprop_input_public("conv2d_transpose", output_shape, filter, value, attrs, name)


__all__ = ["conv2d", "conv2d_backprop_input", "conv2d_backprop_filter", "conv2d_transpose",
           "max_pool", "avg_pool", "max_pool2d", "avg_pool2d"]
