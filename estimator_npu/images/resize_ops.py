"""Image kernels for ``tf.image``: resizing as separable linear maps (bilinear, nearest,
bicubic and area; TF1's ``align_corners`` and ``half_pixel_centers`` rules) and random crops. Images are
``[H, W, C]`` or ``[N, H, W, C]``; crops, flips and colour transforms composed from other
ops live next to it in ``estimator_npu.images.transforms``."""
import math

import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.constant_value import constant_value
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.core import convert_to_tensor, make_tensor
from estimator_npu.engine.ops.random_ops import get_seed
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily

OPS = OpFamily(__name__)  # this family's op definitions (data)


# ------------------------------------------------------------------ resize
def _scale(n_in, n_out, align_corners):
    if align_corners and n_out > 1:
        return (n_in - 1) / (n_out - 1)
    return n_in / n_out


def _interp_matrix(n_in, n_out, method, align_corners, half_pixel):
    """``A`` (``n_out x n_in``) with ``out = A @ in`` along one spatial axis."""
    if method == "bicubic":
        return _cubic_matrix(n_in, n_out, align_corners, half_pixel)
    if method == "area":
        return _area_matrix(n_in, n_out, align_corners)
    if method.startswith("scale:"):  # "scale:<kernel>:<antialias 0/1>"
        _, kernel, aa = method.split(":")
        return _scale_translate_matrix(n_in, n_out, kernel, aa == "1")
    s = _scale(n_in, n_out, align_corners)
    a = np.zeros((n_out, n_in))
    for o in range(n_out):
        src = (o + 0.5) * s - 0.5 if half_pixel else o * s
        if method == "nearest":
            if half_pixel:
                i = math.floor((o + 0.5) * s)
            else:
                i = round(src) if align_corners else math.floor(src)
            a[o, min(max(i, 0), n_in - 1)] = 1.0
        else:
            lo = math.floor(src)
            frac = src - lo
            lo_c = min(max(lo, 0), n_in - 1)
            hi_c = min(max(lo + 1, 0), n_in - 1)
            a[o, lo_c] += 1.0 - frac
            a[o, hi_c] += frac
    return a


_CUBIC_TABLE = 1024  # TF's legacy bicubic quantizes the fraction to 1/1024


def _cubic(x, a):
    """The cubic convolution kernel with parameter ``a`` at distance ``x >= 0``."""
    if x <= 1:
        return ((a + 2) * x - (a + 3)) * x * x + 1
    if x < 2:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return 0.0


def _cubic_matrix(n_in, n_out, align_corners, half_pixel):
    """TF's ResizeBicubic: the fraction of the source position rounded to 1/1024 (TF's
    weight table); the legacy kernel (``a = -0.75``, edge taps clamped to the border
    pixel) or, with ``half_pixel_centers``, Keys' kernel (``a = -0.5``, taps outside the
    image dropped and the rest renormalised). Scales and positions in float32, as TF."""
    f32 = np.float32
    s = f32(n_in - 1) / f32(n_out - 1) if align_corners and n_out > 1 else \
        f32(n_in) / f32(n_out)
    a = np.zeros((n_out, n_in))
    for o in range(n_out):
        src = (f32(o) + f32(0.5)) * s - f32(0.5) if half_pixel else f32(o) * s
        base = math.floor(src)
        delta = float(f32(src) - f32(base))
        taps = [base - 1, base, base + 1, base + 2]
        if half_pixel:
            x = int(np.rint(np.float32(delta) * f32(_CUBIC_TABLE))) / _CUBIC_TABLE
            w = [float(f32(_cubic(d, -0.5))) for d in (x + 1, x, 1 - x, 2 - x)]
            w = [wk if 0 <= t < n_in else 0.0 for wk, t in zip(w, taps)]
            total = sum(w)
            w = [wk / total for wk in w] if abs(total) >= 1e-35 else w
        else:
            x = int(np.rint(np.float32(delta) * f32(_CUBIC_TABLE))) / _CUBIC_TABLE
            w = [float(f32(_cubic(d, -0.75))) for d in (x + 1, x, 1 - x, 2 - x)]
        for wk, t in zip(w, taps):
            a[o, min(max(t, 0), n_in - 1)] += wk
    return a


def _area_matrix(n_in, n_out, align_corners):
    """TF's ResizeArea: output ``o`` averages the input over ``[o * s, (o + 1) * s)``,
    each input pixel weighted by its overlap (indices past the border clamped)."""
    f32 = np.float32
    s = f32(n_in - 1) / f32(n_out - 1) if align_corners and n_out > 1 else \
        f32(n_in) / f32(n_out)
    a = np.zeros((n_out, n_in))
    for o in range(n_out):
        lo, hi = float(f32(o) * s), float(f32(o + 1) * s)
        for i in range(math.floor(lo), math.ceil(hi)):
            a[o, min(i, n_in - 1)] += (min(i + 1, hi) - max(i, lo)) / float(s)
    return a


def _sinc(x):
    return 1.0 if x == 0 else math.sin(math.pi * x) / (math.pi * x)


# TF2's ScaleAndTranslate kernels: (radius, weight at distance x >= 0)
_ST_KERNELS = {
    "triangle": (1.0, lambda x: max(0.0, 1.0 - x)),
    "keyscubic": (2.0, lambda x: _cubic(x, -0.5)),
    "lanczos3": (3.0, lambda x: _sinc(x) * _sinc(x / 3.0) if x < 3.0 else 0.0),
    "lanczos5": (5.0, lambda x: _sinc(x) * _sinc(x / 5.0) if x < 5.0 else 0.0),
    "gaussian": (1.5, lambda x: math.exp(-2.0 * x * x) if x < 1.5 else 0.0),
    "mitchellcubic": (2.0, lambda x: ((7.0 * x - 12.0) * x * x + 16.0 / 3.0) / 6.0 if x < 1
                      else (((-7.0 / 3.0 * x + 12.0) * x - 20.0) * x + 32.0 / 3.0) / 6.0
                      if x < 2 else 0.0),
}


def _scale_translate_matrix(n_in, n_out, kernel, antialias):
    """TF2's ScaleAndTranslate (``tf.image.resize`` with ``antialias`` or the lanczos,
    gaussian and mitchellcubic methods): output ``o`` samples the input at
    ``(o + 0.5) / scale`` (pixel-centre coordinates) with ``kernel``, widened by
    ``1 / scale`` when downsampling with ``antialias``; taps outside the image are
    dropped and the rest renormalised."""
    radius, fn = _ST_KERNELS[kernel]
    inv_scale = n_in / n_out
    ks = max(inv_scale, 1.0) if antialias else 1.0
    a = np.zeros((n_out, n_in))
    for o in range(n_out):
        sample = (o + 0.5) * inv_scale
        if sample < 0 or sample > n_in:
            continue
        lo = min(max(math.ceil(sample - radius * ks - 0.5), 0), n_in - 1)
        hi = min(max(math.floor(sample + radius * ks - 0.5), 0), n_in - 1) + 1
        w = np.array([fn(abs((i + 0.5 - sample) / ks)) for i in range(lo, hi)])
        total = w.sum()
        if abs(total) >= 1000.0 * np.finfo(np.float32).tiny:
            w = w / total
        a[o, lo:hi] = w
    return a


def _resize_maps(x_shape, size, attrs):
    h, w = x_shape[-3], x_shape[-2]
    ah = _interp_matrix(h, size[0], attrs["method"], attrs["align_corners"],
                        attrs["half_pixel"])
    aw = _interp_matrix(w, size[1], attrs["method"], attrs["align_corners"],
                        attrs["half_pixel"])
    return ah, aw


def _resize_kernel(op, ctx):
    attrs = op.attrs
    size = attrs["size"]
    out_dt = op.outputs[0].dtype.np

    def resize(x, dynamic=None):  # ``dynamic``: the run-time [h, w] when size is a tensor
        ah, aw = _resize_maps(np.shape(x), size if dynamic is None else
                              [int(v) for v in np.asarray(dynamic).reshape(-1)], attrs)
        if attrs["method"] == "nearest":  # a selection: keep the dtype, exact values
            rows = ah.argmax(1)
            cols = aw.argmax(1)
            return np.ascontiguousarray(x[..., rows, :, :][..., cols, :])
        y = np.einsum("oh,...hwc,pw->...opc", ah, x.astype(np.float64), aw)
        return y.astype(out_dt)
    return resize


def _resize_grad_kernel(op, ctx):
    attrs = op.attrs

    def resize_grad(dy, x):
        ah, aw = _resize_maps(np.shape(x), np.shape(dy)[-3:-1], attrs)
        return np.einsum("oh,...opc,pw->...hwc", ah, dy.astype(np.float64),
                         aw).astype(dy.dtype)
    return resize_grad


def _resize_grad(op, dy):
    x = op.inputs[0]
    if not x.dtype.is_floating:
        return [None]
    return [make_tensor("ResizeGrad", [dy, x], dy.dtype, x.shape, dict(op.attrs))] + \
        [None] * (len(op.inputs) - 1)


OPS.define("Resize", kernel=_resize_kernel, grad=_resize_grad)
# TF has no gradient for ResizeArea: the same kernel under its own, non-differentiable type
OPS.define("ResizeArea", kernel=_resize_kernel, grad=NOT_DIFFERENTIABLE)
OPS.define("ResizeGrad", kernel=_resize_grad_kernel,
           grad=lambda op, g: [_resize(g, op.attrs, size_t=array_ops.shape(op.inputs[0])[-3:-1]
                                       if op.attrs["size"] is None else None), None])


def _resize(x, attrs, name=None, size_t=None):
    """``size_t``: an int32 ``[2]`` tensor when the size is only known at run time (then
    ``attrs["size"]`` is None)."""
    shape = None
    if x.shape.ndims is not None:
        hw = list(attrs["size"]) if size_t is None else [None, None]
        shape = list(x.shape.values[:-3]) + hw + [x.shape[-1]]
    dt = x.dtype if attrs["method"] == "nearest" or x.dtype.is_floating and \
        x.dtype != dtypes.float16 else dtypes.float32
    if size_t is not None:
        attrs = dict(attrs, size=None)
    inputs = [x] if size_t is None else [x, size_t]
    op_type = "ResizeArea" if attrs["method"] == "area" else "Resize"
    return make_tensor(op_type, inputs, dt, shape, attrs, name=name)


def _size(size, what):
    """``(static (h, w) or None, the size tensor or None)``: a size computed in the graph
    (``[tf.cast(h * r, tf.int32), ...]``, as scripts that keep the aspect ratio do) is
    read when the op runs."""
    try:
        dims = array_ops._static_ints(size, "size", what)
    except TypeError:
        dims = None
    if dims is None:
        t = array_ops.stack(list(size)) if isinstance(size, (list, tuple)) else \
            convert_to_tensor(size)
        if t.shape.ndims not in (None, 1) or (t.shape.ndims == 1 and t.shape.values[0] not in
                                               (None, 2)) or not t.dtype.is_integer:
            raise ValueError(f"{what}: size must be 2 ints [new_height, new_width], got "
                             f"{size!r}")
        return None, math_ops.cast(t, dtypes.int32)
    if len(dims) != 2:
        raise ValueError(f"{what}: size must be 2 ints [new_height, new_width], got "
                         f"{size!r}")
    return tuple(int(d) for d in dims), None


def _image(images, what):
    x = convert_to_tensor(images)
    if x.shape.ndims not in (None, 3, 4):
        raise ValueError(f"{what}: images must be 3-D [H, W, C] or 4-D [N, H, W, C], got "
                         f"shape {x.shape}")
    return x


def resize_bilinear(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """Bilinear resize (float32 output for non-float inputs, as TF)."""
    x = _image(images, "resize_bilinear")
    static, size_t = _size(size, "resize_bilinear")
    return _resize(x, {"size": static, "method": "bilinear",
                       "align_corners": bool(align_corners),
                       "half_pixel": bool(half_pixel_centers)}, name, size_t)


def resize_bicubic(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """Bicubic resize (TF's ResizeBicubic kernels; float32 output for non-float inputs)."""
    x = _image(images, "resize_bicubic")
    if align_corners and half_pixel_centers:
        raise ValueError("resize_bicubic: align_corners and half_pixel_centers cannot both "
                         "be True")
    static, size_t = _size(size, "resize_bicubic")
    return _resize(x, {"size": static, "method": "bicubic",
                       "align_corners": bool(align_corners),
                       "half_pixel": bool(half_pixel_centers)}, name, size_t)


def resize_area(images, size, align_corners=False, name=None):
    """Area resize: each output pixel averages the input area it covers (float32)."""
    x = _image(images, "resize_area")
    static, size_t = _size(size, "resize_area")
    return _resize(x, {"size": static, "method": "area",
                       "align_corners": bool(align_corners), "half_pixel": False}, name,
                   size_t)


def resize_nearest_neighbor(images, size, align_corners=False, name=None,
                            half_pixel_centers=False):
    x = _image(images, "resize_nearest_neighbor")
    static, size_t = _size(size, "resize_nearest_neighbor")
    return _resize(x, {"size": static, "method": "nearest",
                       "align_corners": bool(align_corners),
                       "half_pixel": bool(half_pixel_centers)}, name, size_t)


class ResizeMethod:
    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


def resize_images(images, size, method=ResizeMethod.BILINEAR, align_corners=False,
                  preserve_aspect_ratio=False, name=None):
    """TF1 ``tf.image.resize_images``: bilinear, bicubic or area (float32 result) or nearest
    neighbour (the input dtype)."""
    if isinstance(size, (int, np.integer)):   # TF 0.x: resize_images(images, h, w, method)
        raise ValueError("resize_images: 'size' must be a 1-D Tensor of 2 elements: new_height, "
                         "new_width (TF 0.x's resize_images(images, new_height, new_width) is "
                         "resize_images(images, [new_height, new_width]) since TF 1.0)")
    if preserve_aspect_ratio:
        raise NotImplementedError("resize_images: preserve_aspect_ratio=True")
    if method in (ResizeMethod.BILINEAR, "bilinear"):
        return math_ops.cast(resize_bilinear(images, size, align_corners, name),
                             dtypes.float32)
    if method in (ResizeMethod.NEAREST_NEIGHBOR, "nearest"):
        return resize_nearest_neighbor(images, size, align_corners, name)
    if method in (ResizeMethod.BICUBIC, "bicubic"):
        return resize_bicubic(images, size, align_corners, name)
    if method in (ResizeMethod.AREA, "area"):
        return resize_area(images, size, align_corners, name)
    raise ValueError(f"resize_images: method must be a tf.image.ResizeMethod (BILINEAR, "
                     f"NEAREST_NEIGHBOR, BICUBIC or AREA), got {method!r}")


_V2_METHODS = {"bilinear": "triangle", "bicubic": "keyscubic", "lanczos3": "lanczos3",
               "lanczos5": "lanczos5", "gaussian": "gaussian",
               "mitchellcubic": "mitchellcubic", "area": None, "nearest": None}


def resize_images_v2(images, size, method="bilinear", preserve_aspect_ratio=False,
                     antialias=False, name=None):
    """TF2's ``tf.image.resize`` (``tf.compat.v2.image.resize``): half-pixel centres,
    ``antialias`` (a kernel widened when downsampling: TF's ScaleAndTranslate), the
    lanczos3/5, gaussian and mitchellcubic methods; float32 results except for
    ``nearest``, which keeps the dtype."""
    method = {0: "bilinear", 1: "nearest", 2: "bicubic", 3: "area"}.get(method, method)
    if method not in _V2_METHODS:
        raise ValueError(f"resize: method must be one of {sorted(_V2_METHODS)}, got "
                         f"{method!r}")
    x = _image(images, "resize")
    static, size_t = _size(size, "resize")
    if preserve_aspect_ratio:
        if static is None or x.shape.ndims is None or None in x.shape.values[-3:-1]:
            raise ValueError("resize: preserve_aspect_ratio=True needs a static size and "
                             "static image height and width")
        h, w = x.shape.values[-3:-1]
        r = min(static[0] / h, static[1] / w)
        static = (int(np.rint(h * r)), int(np.rint(w * r)))
    if method == "nearest":
        return _resize(x, {"size": static, "method": "nearest", "align_corners": False,
                           "half_pixel": True}, name, size_t)
    if not x.dtype.is_floating or x.dtype != dtypes.float32:
        x = math_ops.cast(x, dtypes.float32)
    if method == "area":
        kind = "area"
    elif antialias or method not in ("bilinear", "bicubic"):
        kind = "scale:%s:%d" % (_V2_METHODS[method], bool(antialias))
    else:
        kind = method
    return _resize(x, {"size": static, "method": kind, "align_corners": False,
                       "half_pixel": True}, name, size_t)


def random_crop(value, size, seed=None, name=None):
    """A crop of ``size`` (one entry per dim of ``value``) at a uniformly random offset."""
    x = convert_to_tensor(value)
    if isinstance(size, (list, tuple)):  # [n, n, 3] with n = tf.cast(227, tf.int32): constants
        folded = [constant_value(s) if hasattr(s, "op") else s for s in size]
        size = size if any(f is None for f in folded) else [int(f) for f in folded]
    dims = array_ops._static_ints(size, "size", "random_crop")
    if dims is None:
        raise TypeError("random_crop: size must be static")
    if x.shape.ndims is not None and x.shape.ndims != len(dims):
        raise ValueError(f"random_crop: size {dims} must have one entry per dim of "
                         f"{x.shape}")
    s1, s2 = get_seed(seed)
    seed2 = None if s1 is None else [s1 & 0xFFFFFFFF, s2 & 0xFFFFFFFF]
    return make_tensor("RandomCrop", [x], x.dtype, dims, {"size": tuple(dims),
                                                         "seed2": seed2}, name=name)


def _random_crop_kernel(op, ctx):
    rng, size = ctx.rng(op), op.attrs["size"]

    def crop(x):
        if any(s > d for s, d in zip(size, x.shape)):
            raise ValueError(f"random_crop: need value shape {x.shape} >= size {size}")
        off = [int(rng.integers(0, d - s + 1)) for s, d in zip(size, x.shape)]
        return np.array(x[tuple(slice(o, o + s) for o, s in zip(off, size))])
    return crop


OPS.define("RandomCrop", kernel=_random_crop_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)
