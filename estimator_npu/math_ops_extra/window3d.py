"""3-D convolution and pooling (``tf.nn.conv3d``, ``max_pool3d``, ``avg_pool3d``,
``conv3d_transpose``) and the N-d ``tf.nn.pool``, with their gradients.

The kernels work on channels-last arrays (``NDHWC``; ``NCDHW`` is transposed in and out)
and walk the ``KD*KH*KW`` window offsets over a padded copy of the input, TF's geometry
per spatial dim (``_spatial.dim``): ``SAME`` gives ``ceil(n / s)`` outputs and pads
``total // 2`` before, the rest after; ``VALID`` gives ``(n - k_eff) // s + 1``.

* convolution: the offsets' strided slices form a ``[N*OD*OH*OW, K*C]`` patch matrix that
  multiplies the ``[K*C, C_out]`` filter; the filter gradient is the patch matrix's
  transpose times ``dy``, the input gradient scatters ``dy @ filter^T`` back through the
  same slices.
* max pooling scans each window in depth-row-column order, an element replacing the
  running value unless it compares less (so a NaN after the maximum wins, as in TF's
  MaxPool3D); its gradient goes to every element equal to the pooled value (ties share
  it, as TF's MaxPool3DGrad). Average pooling divides by the in-bounds element count.
"""
import numpy as np

from estimator_npu.engine.ops import array_ops
from estimator_npu.engine.ops._spatial import conv_gradients, dim, shape_of
from estimator_npu.engine.ops.core import convert_to_tensor, make_tensor
from estimator_npu.engine.registry import OpFamily
from estimator_npu.engine.shape import TensorShape

OPS = OpFamily(__name__)


# ------------------------------------------------------------------ argument parsing
def _fmt(data_format, op_type):
    if data_format in (None, "NDHWC", "channels_last"):
        return False
    if data_format in ("NCDHW", "channels_first"):
        return True
    raise ValueError(f"{op_type}: data_format must be 'NDHWC' or 'NCDHW', got "
                     f"{data_format!r}")


def _triple(value, what, ncdhw, op_type, default=None):
    if value is None and default is not None:
        value = default
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        v = [int(value)] * 3
    else:
        try:
            v = [int(i) for i in value]
        except TypeError:
            raise ValueError(f"{op_type}: {what} must be a list of 5 ints, got "
                             f"{value!r}") from None
        if len(v) == 5:
            outer = (v[0], v[1]) if ncdhw else (v[0], v[4])
            if outer != (1, 1):
                raise ValueError(f"{op_type}: {what} in the batch and channel dimensions "
                                 f"must be 1, got {list(value)}")
            v = v[2:] if ncdhw else v[1:4]
        elif len(v) == 1:
            v = v * 3
        elif len(v) != 3:
            raise ValueError(f"{op_type}: {what} must have 5 elements, got {list(value)}")
    if min(v) < 1:
        raise ValueError(f"{op_type}: {what} must be >= 1, got {value!r}")
    return tuple(v)


def _padding(padding, op_type):
    p = padding.decode() if isinstance(padding, bytes) else padding
    if isinstance(p, str) and p.upper() in ("SAME", "VALID"):
        return p.upper()
    raise ValueError(f"{op_type}: padding must be 'SAME' or 'VALID', got {padding!r}")


def _float(value, op_type, what, dtype=None, rank=5):
    t = convert_to_tensor(value, dtype=dtype)
    if not t.dtype.is_floating:
        raise TypeError(f"{op_type}: {what} must be a floating-point tensor, got "
                        f"{t.dtype.name} ({t.name})")
    if t.shape.ndims is not None and t.shape.ndims != rank:
        raise ValueError(f"{op_type}: {what} must be {rank}-D, got shape {t.shape} "
                         f"({t.name})")
    return t


def _spatial_static(shape, ncdhw):
    """``(N, (D, H, W), C)`` static dims of a 5-D shape (``None`` where unknown)."""
    if shape.ndims is None:
        return None, (None,) * 3, None
    v = shape.values
    return (v[0], tuple(v[2:]), v[1]) if ncdhw else (v[0], tuple(v[1:4]), v[4])


def _compose(ncdhw, n, sp, c):
    return TensorShape([n, c, *sp] if ncdhw else [n, *sp, c])


def _static_out(op_type, sp, ksize, attrs):
    out = []
    for n, k, s, d in zip(sp, ksize, attrs["strides"], attrs["dilations"]):
        o = None if k is None else dim(n, k, s, d, attrs["padding"])[0]
        if o is not None and o < 1:
            raise ValueError(f"{op_type}: input of spatial size {list(sp)} is smaller than "
                             f"the {list(ksize)} window (padding {attrs['padding']})")
        out.append(o)
    return tuple(out)


# ------------------------------------------------------------------ kernel helpers
def _geometry(sp, ksize, strides, dilations, padding):
    out, pads = [], []
    for n, k, s, d in zip(sp, ksize, strides, dilations):
        o, p = dim(n, k, s, d, padding)
        if o < 1:
            raise ValueError(f"input of spatial size {list(sp)} is smaller than the "
                             f"{list(ksize)} window (dilations {list(dilations)}, padding "
                             f"{padding})")
        out.append(o)
        pads.append(p)
    return tuple(out), tuple(pads)


def _to_last(a, ncdhw):
    return np.moveaxis(a, 1, -1) if ncdhw else a


def _from_last(a, ncdhw, dtype):
    return np.ascontiguousarray(np.moveaxis(a, -1, 1) if ncdhw else a, dtype=dtype)


def _pad(a, pads, fill):
    if not any(lo or hi for lo, hi in pads):
        return a
    n, c = a.shape[0], a.shape[-1]
    sp = [s + lo + hi for s, (lo, hi) in zip(a.shape[1:-1], pads)]
    buf = np.full((n, *sp, c), fill, a.dtype)
    buf[(slice(None),) + tuple(slice(lo, lo + s) for s, (lo, _) in
                               zip(a.shape[1:-1], pads))] = a
    return buf


def _offsets(ksize):
    return list(np.ndindex(*ksize))


def _view(a, off, out, strides, dilations):
    return a[(slice(None),) + tuple(slice(o * d, o * d + (n - 1) * s + 1, s) for o, n, s, d
                                    in zip(off, out, strides, dilations))]


def _crop(a, pads, sp):
    return a[(slice(None),) + tuple(slice(lo, lo + s) for (lo, _), s in zip(pads, sp))]


def _cdt(dt):
    return dt if dt in (np.float32, np.float64) else np.dtype(np.float32)


def _patches(x, ksize, out, pads, strides, dilations, cdt):
    xp = _pad(x.astype(cdt, copy=False), pads, 0)
    offs = _offsets(ksize)
    cols = np.empty((x.shape[0], *out, len(offs), x.shape[-1]), cdt)
    for i, off in enumerate(offs):
        cols[..., i, :] = _view(xp, off, out, strides, dilations)
    return cols.reshape(-1, len(offs) * x.shape[-1])


# ------------------------------------------------------------------ convolution kernels
def _conv_kernel(op, ctx):
    a = op.attrs

    def conv3d(x, w):
        xc = _to_last(x, a["nchw"])
        out, pads = _geometry(xc.shape[1:-1], w.shape[:-2], a["strides"], a["dilations"],
                              a["padding"])
        cdt = _cdt(x.dtype)
        cols = _patches(xc, w.shape[:-2], out, pads, a["strides"], a["dilations"], cdt)
        y = cols @ w.astype(cdt, copy=False).reshape(-1, w.shape[-1])
        return _from_last(y.reshape(x.shape[0], *out, w.shape[-1]), a["nchw"], x.dtype)
    return conv3d


def _filter_kernel(op, ctx):
    a = op.attrs

    def backprop_filter(x, sizes, dy):
        xc, dyc = _to_last(x, a["nchw"]), _to_last(dy, a["nchw"])
        ksize = tuple(int(s) for s in sizes[:3])
        out, pads = _geometry(xc.shape[1:-1], ksize, a["strides"], a["dilations"],
                              a["padding"])
        cdt = _cdt(x.dtype)
        cols = _patches(xc, ksize, out, pads, a["strides"], a["dilations"], cdt)
        dw = cols.T @ dyc.astype(cdt, copy=False).reshape(-1, dyc.shape[-1])
        return np.ascontiguousarray(dw.reshape(tuple(int(s) for s in sizes)), x.dtype)
    return backprop_filter


def _input_kernel(op, ctx):
    a = op.attrs

    def backprop_input(sizes, w, dy):
        nchw = a["nchw"]
        shape = [int(s) for s in sizes]
        shape = [shape[0], *shape[2:], shape[1]] if nchw else shape
        dyc = _to_last(dy, nchw)
        ksize = w.shape[:-2]
        out, pads = _geometry(shape[1:-1], ksize, a["strides"], a["dilations"],
                              a["padding"])
        cdt = _cdt(dy.dtype)
        dcols = dyc.astype(cdt, copy=False).reshape(-1, w.shape[-1]) @ \
            w.astype(cdt, copy=False).reshape(-1, w.shape[-1]).T
        offs = _offsets(ksize)
        dcols = dcols.reshape(shape[0], *out, len(offs), shape[-1])
        padded = [s + lo + hi for s, (lo, hi) in zip(shape[1:-1], pads)]
        buf = np.zeros((shape[0], *padded, shape[-1]), cdt)
        for i, off in enumerate(offs):
            _view(buf, off, out, a["strides"], a["dilations"])[...] += dcols[..., i, :]
        return _from_last(_crop(buf, pads, shape[1:-1]), nchw, dy.dtype)
    return backprop_input


def _rank5(shape):
    return shape if shape.ndims is not None else TensorShape([None] * 5)


def _make_conv(x, w, attrs, name=None):
    op_type = f"Conv3D '{name or 'Conv3D'}'"
    nchw = attrs["nchw"]
    n, sp, c = _spatial_static(x.shape, nchw)
    ws = w.shape.values if w.shape.ndims is not None else (None,) * 5
    if c is not None and ws[3] is not None and c != ws[3]:
        raise ValueError(f"{op_type}: input channels {c} (input shape {x.shape}) do not "
                         f"match the filter's in_channels {ws[3]} (filter shape {w.shape})")
    out = _static_out(op_type, sp, ws[:3], attrs)
    return make_tensor("Conv3D", [x, w], x.dtype, _compose(nchw, n, out, ws[4]),
                       dict(attrs), name=name or "Conv3D")


def _make_input(sizes, w, dy, attrs, shape, name=None):
    return make_tensor("Conv3DBackpropInputV2", [sizes, w, dy], dy.dtype, shape,
                       dict(attrs), name=name or "Conv3DBackpropInputV2")


def _make_filter(x, sizes, dy, attrs, shape, name=None):
    return make_tensor("Conv3DBackpropFilterV2", [x, sizes, dy], x.dtype, shape,
                       dict(attrs), name=name or "Conv3DBackpropFilterV2")


_conv_grad, _input_grad, _filter_grad = conv_gradients(_make_conv, _make_input, _make_filter, 5)


OPS.define("Conv3D", kernel=_conv_kernel, grad=_conv_grad)
OPS.define("Conv3DBackpropInputV2", kernel=_input_kernel, grad=_input_grad)
OPS.define("Conv3DBackpropFilterV2", kernel=_filter_kernel, grad=_filter_grad)


# ------------------------------------------------------------------ pooling kernels
def _pool_windows(xc, a, fill):
    out, pads = _geometry(xc.shape[1:-1], a["ksize"], a["strides"], (1, 1, 1), a["padding"])
    xp = _pad(xc, pads, fill)
    return out, pads, [_view(xp, off, out, a["strides"], (1, 1, 1))
                       for off in _offsets(a["ksize"])]


def _max_windows(xc, a):
    out, pads, views = _pool_windows(xc, a, -np.inf)
    return out, pads, np.stack(views, axis=-2)  # [N, *out, K, C]


def _max3d(xc, a):
    """TF's MaxPool3D: the window's elements in depth-row-column order, each replacing the
    running value unless it compares less (a NaN after the maximum wins; the start value
    is the lowest finite float)."""
    out, pads, views = _pool_windows(xc, a, -np.inf)
    acc = np.full(views[0].shape, np.finfo(xc.dtype).min, xc.dtype)
    for v in views:
        acc = np.where(v < acc, acc, v)
    return out, pads, acc


def _max_pool_kernel(op, ctx):
    a = op.attrs

    def max_pool3d(x):
        _, _, y = _max3d(_to_last(x, a["nchw"]), a)
        return _from_last(y, a["nchw"], x.dtype)
    return max_pool3d


def _scatter_to_input(xc_shape, a, pads, out, per_window, dtype):
    """Sums ``per_window[..., k, :]`` (window offset k) into the (unpadded) input."""
    padded = [s + lo + hi for s, (lo, hi) in zip(xc_shape[1:-1], pads)]
    buf = np.zeros((xc_shape[0], *padded, xc_shape[-1]), dtype)
    for k, off in enumerate(_offsets(a["ksize"])):
        _view(buf, off, out, a["strides"], (1, 1, 1))[...] += per_window[..., k, :]
    return _crop(buf, pads, xc_shape[1:-1])


def _max_mask(x, y, a):
    """``[N, *out, K, C]``: where the window's element equals the pooled value (TF's
    MaxPool3DGrad sends the gradient to every maximum of a window)."""
    out, pads, win = _max_windows(_to_last(x, a["nchw"]), a)
    return out, pads, win == _to_last(y, a["nchw"])[..., None, :]


def _max_pool_grad_kernel(op, ctx):
    a = op.attrs

    def max_pool3d_grad(x, y, dy):
        out, pads, mask = _max_mask(x, y, a)
        dyc = _to_last(dy, a["nchw"])
        dx = _scatter_to_input(_to_last(x, a["nchw"]).shape, a, pads, out,
                               mask * dyc[..., None, :], dy.dtype)
        return _from_last(dx, a["nchw"], x.dtype)
    return max_pool3d_grad


def _max_pool_grad_grad_kernel(op, ctx):
    a = op.attrs

    def max_pool3d_grad_grad(x, y, g):
        _, _, mask = _max_mask(x, y, a)
        _, _, gwin = _max_windows(_to_last(g, a["nchw"]), a)
        gy = np.sum(np.where(mask, gwin, 0), axis=-2)
        return _from_last(gy, a["nchw"], x.dtype)
    return max_pool3d_grad_grad


def _inv_count(sp, a, dtype):
    ones = np.ones((1, *sp, 1), dtype)
    out, pads, views = _pool_windows(ones, a, 0)
    return 1.0 / np.sum(views, axis=0), out, pads


def _avg_pool_kernel(op, ctx):
    a = op.attrs

    def avg_pool3d(x):
        xc = _to_last(x, a["nchw"])
        cdt = _cdt(x.dtype)
        _, _, views = _pool_windows(xc.astype(cdt, copy=False), a, 0)
        inv, _, _ = _inv_count(xc.shape[1:-1], a, cdt)
        return _from_last(np.sum(views, axis=0) * inv, a["nchw"], x.dtype)
    return avg_pool3d


def _avg_pool_grad_kernel(op, ctx):
    a = op.attrs

    def avg_pool3d_grad(sizes, dy):
        nchw = a["nchw"]
        shape = [int(s) for s in sizes]
        shape = [shape[0], *shape[2:], shape[1]] if nchw else shape
        cdt = _cdt(dy.dtype)
        inv, out, pads = _inv_count(shape[1:-1], a, cdt)
        share = _to_last(dy, nchw).astype(cdt) * inv
        k = len(_offsets(a["ksize"]))
        per = np.broadcast_to(share[..., None, :], share.shape[:-1] + (k, share.shape[-1]))
        return _from_last(_scatter_to_input(shape, a, pads, out, per, cdt), nchw, dy.dtype)
    return avg_pool3d_grad


def _make_pool(op_type, x, attrs, name=None):
    nchw = attrs["nchw"]
    n, sp, c = _spatial_static(x.shape, nchw)
    out = _static_out(f"{op_type} '{name or op_type}'", sp, attrs["ksize"],
                      dict(attrs, dilations=(1, 1, 1)))
    return make_tensor(op_type, [x], x.dtype, _compose(nchw, n, out, c), dict(attrs),
                       name=name or op_type)


def _max_pool_grad(op, dy):
    x, y = op.inputs[0], op.outputs[0]
    return [make_tensor("MaxPool3DGrad", [x, y, dy], x.dtype, _rank5(x.shape),
                        dict(op.attrs), name="MaxPool3DGrad")]


def _max_pool_grad_grad(op, g):
    x, y, _ = op.inputs
    gg = make_tensor("MaxPool3DGradGrad", [x, y, g], x.dtype, _rank5(y.shape),
                     dict(op.attrs), name="MaxPool3DGradGrad")
    return [array_ops.zeros_like(x), array_ops.zeros_like(y), gg]


def _max_pool_grad_grad_grad(op, h):
    x, y, _ = op.inputs
    g = make_tensor("MaxPool3DGrad", [x, y, h], x.dtype, _rank5(x.shape), dict(op.attrs),
                    name="MaxPool3DGrad")
    return [array_ops.zeros_like(x), array_ops.zeros_like(y), g]


def _avg_pool_grad(op, dy):
    x = op.inputs[0]
    return [make_tensor("AvgPool3DGrad", [shape_of(x), dy], dy.dtype, _rank5(x.shape),
                        dict(op.attrs), name="AvgPool3DGrad")]


def _avg_pool_grad_grad(op, g):
    return [None, make_tensor("AvgPool3D", [g], g.dtype, _rank5(op.inputs[1].shape),
                              dict(op.attrs), name="AvgPool3D")]


OPS.define("MaxPool3D", kernel=_max_pool_kernel, grad=_max_pool_grad)
OPS.define("MaxPool3DGrad", kernel=_max_pool_grad_kernel, grad=_max_pool_grad_grad)
OPS.define("MaxPool3DGradGrad", kernel=_max_pool_grad_grad_kernel,
           grad=_max_pool_grad_grad_grad)
OPS.define("AvgPool3D", kernel=_avg_pool_kernel, grad=_avg_pool_grad)
OPS.define("AvgPool3DGrad", kernel=_avg_pool_grad_kernel, grad=_avg_pool_grad_grad)


# ------------------------------------------------------------------ public API
def _conv_attrs(op_type, strides, padding, data_format, dilations):
    nchw = _fmt(data_format, op_type)
    if strides is None:
        raise ValueError(f"{op_type}: strides must be given")
    return {"strides": _triple(strides, "strides", nchw, op_type),
            "dilations": _triple(dilations, "dilations", nchw, op_type, default=1),
            "padding": _padding(padding, op_type), "nchw": nchw}


def conv3d(input, filter=None, strides=None, padding=None, data_format="NDHWC",  # noqa: A002
           dilations=(1, 1, 1, 1, 1), name=None, filters=None):
    """3-D convolution of a ``[N, D, H, W, C]`` (or ``NCDHW``) ``input`` with a
    ``[KD, KH, KW, C_in, C_out]`` ``filter``; ``strides`` / ``dilations`` are 5 ints in
    ``data_format`` order (batch and channel entries 1), ``padding`` ``"SAME"`` or
    ``"VALID"``."""
    filter = filters if filter is None else filter
    if filter is None:
        raise ValueError("Conv3D: the filter must be given (filter= or filters=)")
    attrs = _conv_attrs("Conv3D", strides, padding, data_format, dilations)
    x = _float(input, "Conv3D", "input")
    w = _float(filter, "Conv3D", "filter", dtype=x.dtype)
    return _make_conv(x, w, attrs, name)


def conv3d_backprop_filter_v2(input, filter_sizes, out_backprop, strides, padding,  # noqa
                              data_format="NDHWC", dilations=(1, 1, 1, 1, 1), name=None):
    """The gradient of ``conv3d`` with respect to its filter (of shape ``filter_sizes``)."""
    op_type = "Conv3DBackpropFilterV2"
    attrs = _conv_attrs(op_type, strides, padding, data_format, dilations)
    x = _float(input, op_type, "input")
    dy = _float(out_backprop, op_type, "out_backprop", dtype=x.dtype)
    sizes, static = _sizes(filter_sizes, op_type, "filter_sizes")
    return _make_filter(x, sizes, dy, attrs, TensorShape(static), name)


def _sizes(sizes, op_type, what):
    if isinstance(sizes, (list, tuple, np.ndarray)) and not any(
            hasattr(s, "op") for s in sizes):
        vals = [int(s) for s in sizes]
        if len(vals) != 5:
            raise ValueError(f"{op_type}: {what} must have 5 elements, got {list(sizes)}")
        return convert_to_tensor(np.array(vals, np.int32)), vals
    t = convert_to_tensor(sizes)
    if not t.dtype.is_integer or t.shape.ndims not in (None, 1):
        raise ValueError(f"{op_type}: {what} must be a 1-D integer tensor of 5 sizes, got "
                         f"{t}")
    static = array_ops._static_ints(t, what, op_type)
    return t, (static if static is not None else [None] * 5)


def conv3d_backprop_input_v2(input_sizes, filter, out_backprop, strides, padding,  # noqa
                             data_format="NDHWC", dilations=(1, 1, 1, 1, 1), name=None):
    """The gradient of ``conv3d`` with respect to its input (of shape ``input_sizes``)."""
    op_type = "Conv3DBackpropInputV2"
    attrs = _conv_attrs(op_type, strides, padding, data_format, dilations)
    return _input_public(op_type, input_sizes, filter, out_backprop, attrs, name)


def _input_public(op_type, input_sizes, filter, out_backprop, attrs, name):  # noqa: A002
    dy = _float(out_backprop, op_type, "out_backprop")
    w = _float(filter, op_type, "filter", dtype=dy.dtype)
    sizes, static = _sizes(input_sizes, op_type, "input_sizes")
    nchw = attrs["nchw"]
    shape = TensorShape(static)
    n, sp, c = _spatial_static(shape, nchw)
    ws = w.shape.values if w.shape.ndims is not None else (None,) * 5
    _, dsp, dc = _spatial_static(dy.shape, nchw)
    if c is not None and ws[3] is not None and c != ws[3]:
        raise ValueError(f"{op_type}: output channels {c} (shape {static}) do not match "
                         f"the filter's dim 3 ({ws[3]}, filter shape {w.shape})")
    if dc is not None and ws[4] is not None and dc != ws[4]:
        raise ValueError(f"{op_type}: input channels {dc} (shape {dy.shape}) do not match "
                         f"the filter's dim 4 ({ws[4]}, filter shape {w.shape})")
    out = _static_out(op_type, sp, ws[:3], attrs)
    if any(None not in (o, d) and o != d for o, d in zip(out, dsp)):
        raise ValueError(f"{op_type}: output shape {static} convolved with filter {w.shape} "
                         f"gives spatial size {list(out)}, but the input has shape "
                         f"{dy.shape}")
    return _make_input(sizes, w, dy, attrs, shape, name)


def conv3d_transpose(value=None, filter=None, output_shape=None, strides=None,  # noqa: A002
                     padding="SAME", data_format="NDHWC", name=None, input=None,  # noqa: A002
                     filters=None, dilations=None):
    """The transpose of ``conv3d``: ``filter`` is ``[KD, KH, KW, C_out, C_in]`` and
    ``output_shape`` the 5 output sizes (the forward conv maps them to ``value``'s)."""
    value = input if value is None else value
    filter = filters if filter is None else filter
    if value is None or filter is None or output_shape is None:
        raise ValueError("conv3d_transpose: value, filter and output_shape must be given")
    attrs = _conv_attrs("conv3d_transpose", strides, padding, data_format, dilations)
    return _input_public("conv3d_transpose", output_shape, filter, value, attrs, name)


def _pool(op_type, input, ksize, strides, padding, data_format, name):  # noqa: A002
    nchw = _fmt(data_format, op_type)
    if ksize is None or strides is None:
        raise ValueError(f"{op_type}: ksize and strides must be given")
    attrs = {"ksize": _triple(ksize, "ksize", nchw, op_type),
             "strides": _triple(strides, "strides", nchw, op_type),
             "padding": _padding(padding, op_type), "nchw": nchw}
    x = _float(input, op_type, "input")
    return _make_pool(op_type, x, attrs, name)


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """3-D max pooling of a ``[N, D, H, W, C]`` (or ``NCDHW``) tensor; ``ksize`` and
    ``strides`` are 5 ints (batch and channel entries 1)."""
    return _pool("MaxPool3D", input, ksize, strides, padding, data_format, name)


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """3-D average pooling (windows average their in-bounds elements, as TF)."""
    return _pool("AvgPool3D", input, ksize, strides, padding, data_format, name)


__all__ = ["conv3d", "conv3d_transpose", "conv3d_backprop_input_v2", "pool",
           "conv3d_backprop_filter_v2", "max_pool3d", "avg_pool3d"]


def pool(input, window_shape, pooling_type, padding, dilation_rate=None,  # noqa: A002
         strides=None, name=None, data_format=None, dilations=None):
    """N-d pooling (N = len(window_shape), 1 to 3): ``pooling_type`` ``"MAX"`` or
    ``"AVG"`` over ``[N, *spatial, C]`` inputs (``data_format`` ``NWC``/``NHWC``/``NDHWC``
    or the channels-first ones), ``strides`` default 1. Dilated pooling
    (``dilation_rate`` > 1) is not implemented."""
    from estimator_npu.engine.ops import pool_ops
    try:
        window = [int(k) for k in window_shape]
    except TypeError:
        raise ValueError(f"pool: window_shape must be a list of ints, got "
                         f"{window_shape!r}") from None
    nd = len(window)
    if nd not in (1, 2, 3):
        raise ValueError(f"pool: window_shape must have 1 to 3 elements, got {window_shape!r}")
    ptype = pooling_type.decode() if isinstance(pooling_type, bytes) else pooling_type
    if ptype not in ("MAX", "AVG"):
        raise ValueError(f"pool: pooling_type must be 'MAX' or 'AVG', got {pooling_type!r}")
    strides = [1] * nd if strides is None else [int(s) for s in strides]
    rate = dilation_rate if dilations is None else dilations
    rate = [1] * nd if rate is None else [int(r) for r in rate]
    if len(strides) != nd or len(rate) != nd:
        raise ValueError(f"pool: strides {strides} and dilation_rate {rate} must have "
                         f"len(window_shape) = {nd} elements")
    if any(r != 1 for r in rate):
        raise NotImplementedError(f"estimator_npu does not implement tf.nn.pool with "
                                  f"dilation_rate > 1 (yet), got {rate}")
    first = data_format is not None and data_format.startswith("NC")
    if data_format not in (None, ["NWC", "NHWC", "NDHWC"][nd - 1],
                           ["NCW", "NCHW", "NCDHW"][nd - 1]):
        raise ValueError(f"pool: data_format {data_format!r} does not fit a "
                         f"{nd}-d window")
    x = convert_to_tensor(input)
    if x.shape.ndims is not None and x.shape.ndims != nd + 2:
        raise ValueError(f"pool: input must be {nd + 2}-D for a {nd}-d window, got shape "
                         f"{x.shape}")
    _padding(padding, "pool")
    full = [1, 1] + window if first else [1] + window + [1]
    step = [1, 1] + strides if first else [1] + strides + [1]
    if nd == 3:
        fn = max_pool3d if ptype == "MAX" else avg_pool3d
        return fn(x, full, step, padding, "NCDHW" if first else "NDHWC", name)
    fn = pool_ops.max_pool if ptype == "MAX" else pool_ops.avg_pool
    if nd == 2:
        return fn(x, full, step, padding, "NCHW" if first else "NHWC", name)
    axis = 2 if first else 1
    y = fn(array_ops.expand_dims(x, axis), full[:axis] + [1] + full[axis:],
           step[:axis] + [1] + step[axis:], padding, "NCHW" if first else "NHWC")
    return array_ops.squeeze(y, [axis], name=name)
