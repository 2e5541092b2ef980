"""Gradient-check cases for 3-D convolution / pooling, ``max_pool_with_argmax``
(``math_ops_extra/window3d.py``, ``pool_argmax.py``), bicubic / area resizing and the image
ops of ``images/boxes.py`` (crop_and_resize). As in ``op_specs_conv``, the backprop ops are
reached by building ``tf.gradients`` inside ``build``; max-pool inputs are distinct values
well apart (no ties within the finite-difference step)."""
import numpy as np

import estimator_npu as tf
from op_spec_tools import case_list, normal, pool_gradient_builds, spread, spread_and_normal

CASES, case = case_list()



def _out(n, k, s, pad):
    return -(-n // s) if pad == "SAME" else (n - k) // s + 1


def _shape5(xs, k, s, pad, nchw, co):
    if nchw:
        return (xs[0], co, *[_out(d, k, s, pad) for d in xs[2:]])
    return (xs[0], *[_out(d, k, s, pad) for d in xs[1:4]], co)


# (case id, input shape in data-format order, kernel, stride, padding, nchw, out channels)
CONV3D = [
    ("ndhwc_same_s2", (2, 4, 5, 3, 2), 3, 2, "SAME", False, 3),
    ("ndhwc_valid_s1", (1, 4, 3, 4, 2), 2, 1, "VALID", False, 2),
    ("ncdhw_same_s1", (1, 2, 3, 4, 3), 2, 1, "SAME", True, 2),
]


def _conv(s, pad, nchw):
    st = [1, 1, s, s, s] if nchw else [1, s, s, s, 1]
    return lambda x, w: tf.nn.conv3d(x, w, st, pad, data_format="NCDHW" if nchw else "NDHWC")


for _cid, _xs, _k, _s, _pad, _nchw, _co in CONV3D:
    _ci = _xs[1] if _nchw else _xs[4]
    _ws = (_k, _k, _k, _ci, _co)
    _ys = _shape5(_xs, _k, _s, _pad, _nchw, _co)
    _c = _conv(_s, _pad, _nchw)
    case("Conv3D", _cid, _c, normal(_xs, _ws), order=2)

    def _bin(w, c, xs=_xs, conv=_c):
        x = tf.zeros(list(xs), dtype=tf.float64)
        return tf.gradients(conv(x, w), x, grad_ys=c)[0]

    def _bfilt(x, c, ws=_ws, conv=_c):
        w = tf.zeros(list(ws), dtype=tf.float64)
        return tf.gradients(conv(x, w), w, grad_ys=c)[0]

    case("Conv3DBackpropInputV2", _cid, _bin, normal(_ws, _ys), order=2)
    case("Conv3DBackpropFilterV2", _cid, _bfilt, normal(_xs, _ys), order=2)

case("Conv3DBackpropInputV2", "conv3d_transpose_s2",
     lambda v, w: tf.nn.conv3d_transpose(v, w, [1, 5, 4, 3, 2], [1, 2, 2, 2, 1], "SAME"),
     normal((1, 3, 2, 2, 3), (2, 2, 2, 2, 3)), order=2)
case("Conv3D", "dilated_valid",
     lambda x, w: tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], "VALID", dilations=[1, 2, 1, 2, 1]),
     normal((1, 5, 3, 5, 1), (2, 2, 2, 1, 2)))

POOL3D = [
    ("ndhwc_same_k3s2", (2, 5, 4, 3, 2), 3, 2, "SAME", False),
    ("ndhwc_valid_k2s1", (1, 3, 4, 3, 2), 2, 1, "VALID", False),
    ("ncdhw_valid_k2s2", (1, 2, 4, 4, 5), 2, 2, "VALID", True),
]

for _cid, _xs, _k, _s, _pad, _nchw in POOL3D:
    _ks = [1, 1, _k, _k, _k] if _nchw else [1, _k, _k, _k, 1]
    _st = [1, 1, _s, _s, _s] if _nchw else [1, _s, _s, _s, 1]
    _fmt = "NCDHW" if _nchw else "NDHWC"
    _ys = list(_shape5(_xs, _k, _s, _pad, _nchw, _xs[1] if _nchw else _xs[4]))

    def _mp(x, ks=_ks, st=_st, pad=_pad, fmt=_fmt):
        return tf.nn.max_pool3d(x, ks, st, pad, data_format=fmt)

    def _ap(x, ks=_ks, st=_st, pad=_pad, fmt=_fmt):
        return tf.nn.avg_pool3d(x, ks, st, pad, data_format=fmt)

    _mpg, _mpgg, _apg = pool_gradient_builds(tf, _mp, _ap, _xs, _ys)

    case("MaxPool3D", _cid, _mp, spread(_xs), order=2)
    case("AvgPool3D", _cid, _ap, normal(_xs), order=2)
    case("MaxPool3DGrad", _cid, _mpg, spread_and_normal(_xs, _ys), order=2)
    case("MaxPool3DGradGrad", _cid, _mpgg, spread_and_normal(_xs, _xs), order=2)
    case("AvgPool3DGrad", _cid, _apg, normal(_ys), order=2)


# max_pool_with_argmax: the pooled output (the argmax output has no gradient).
def _mpa(pad, batch=False):
    return lambda x: tf.nn.max_pool_with_argmax(x, [1, 2, 3, 1], [1, 2, 2, 1], pad,
                                                include_batch_in_index=batch)[0]


for _pad, _batch in [("VALID", False), ("SAME", True)]:
    _cid = f"{_pad.lower()}_batch{int(_batch)}"
    _ys = [2, 3, 2 if _pad == "VALID" else 3, 2]

    def _gwa(x, c, f=_mpa(_pad, _batch)):
        return tf.gradients(f(x), x, grad_ys=c)[0]

    def _ggwa(x, g, f=_mpa(_pad, _batch), ys=_ys):
        c = tf.zeros(ys, dtype=tf.float64)
        return tf.gradients(_gwa(x, c, f), c, grad_ys=g)[0]

    case("MaxPoolWithArgmax", _cid, _mpa(_pad, _batch), spread((2, 6, 6, 2)), order=2)
    case("MaxPoolGradWithArgmax", _cid, _gwa,
         lambda rng, ys=_ys: spread((2, 6, 6, 2))(rng) + normal(tuple(ys))(rng), order=2)
    case("MaxPoolGradGradWithArgmax", _cid, _ggwa, spread((2, 6, 6, 2), (2, 6, 6, 2)),
         order=2)


# bicubic resizing (a separable linear map; ResizeGrad is reached by order 2; TF has no
# gradient for ResizeArea)
for _m, _ac, _hp in [("bicubic", False, False), ("bicubic", True, False),
                     ("bicubic", False, True)]:
    _fn = getattr(tf.image, "resize_" + _m)
    _kw = {"half_pixel_centers": True} if _hp else {}
    for _size, _tag in [([5, 7], "up"), ([2, 3], "down")]:
        case("Resize", f"{_m}_{_tag}_ac{int(_ac)}_hp{int(_hp)}",
             lambda x, f=_fn, s=_size, a=_ac, kw=_kw: f(x, s, align_corners=a, **kw),
             normal((2, 4, 5, 2)), order=2)


# crop_and_resize: TF's op computes in float32 (boxes float32, result float32), so the
# check runs through casts with a float32-sized step and tolerance.
def _crop(method, crop, ind=(0, 1, 1)):
    def build(image, boxes):
        out = tf.image.crop_and_resize(image, tf.cast(boxes, tf.float32), list(ind), crop,
                                       method=method, extrapolation_value=0.5)
        return tf.cast(out, tf.float64)
    return build


def _crop_inputs(rng):
    image = rng.standard_normal((2, 5, 6, 2)) if rng is not None else None
    boxes = np.array([[0.13, 0.21, 0.77, 0.88], [0.91, 0.07, 0.18, 0.62],
                      [-0.17, 0.33, 0.52, 1.24]])
    # every sample position is >= 0.05 pixel from an integer (the bilinear kinks)
    return [image, boxes]


_F32 = {"eps": 1e-3, "rtol": 2e-2, "atol": 2e-3}
case("CropAndResize", "bilinear_3x4", _crop("bilinear", [3, 4]), _crop_inputs, **_F32)
case("CropAndResize", "bilinear_1x2", _crop("bilinear", [1, 2]), _crop_inputs, **_F32)
case("CropAndResize", "nearest_image", lambda im: _crop("nearest", [3, 3])(
    im, tf.constant(_crop_inputs(None)[1])), lambda rng: _crop_inputs(rng)[:1], **_F32)


# incomplete gamma / beta, scaled Bessel functions (math_ops_extra/incomplete.py)
def _pos(lo, hi, *shapes):
    return lambda rng: [rng.uniform(lo, hi, s) for s in shapes]


case("Igamma", "broadcast", tf.math.igamma, _pos(0.5, 3.0, (2, 3), (3,)),
     rtol=1e-5, atol=1e-7)
case("Igammac", "series_and_fraction", tf.math.igammac,
     lambda rng: [np.array([[0.7, 2.5, 1.2], [3.0, 0.9, 1.6]]),
                  np.array([[0.3, 4.8, 1.1], [1.0, 2.7, 0.4]])], rtol=1e-5, atol=1e-7)
case("Betainc", "x_only", lambda x: tf.math.betainc(
    tf.constant([0.7, 2.0, 3.5], tf.float64), tf.constant([1.5, 0.8, 2.2], tf.float64), x),
    _pos(0.1, 0.9, (2, 3)), order=2)
case("BesselI0e", "both_signs", tf.math.bessel_i0e,
     lambda rng: [np.array([[-3.1, -0.4, 0.2], [0.9, 12.0, 35.0]])], order=2)
case("BesselI1e", "both_signs", tf.math.bessel_i1e,
     lambda rng: [np.array([[-3.1, -0.4, 0.2], [0.9, 12.0, 35.0]])], order=2)


def _mirror_grad(c, mode):
    x = tf.zeros([4, 3], tf.float64)
    return tf.gradients(tf.pad(x, [[2, 1], [0, 2]], mode=mode), x, grad_ys=c)[0]


# REFLECT / SYMMETRIC pad gradients (MirrorPadGrad; sobel_edges pads by reflection)
for _mode in ["REFLECT", "SYMMETRIC"]:
    case("Pad", _mode.lower(), lambda x, m=_mode: tf.pad(x, [[2, 1], [1, 2]], mode=m),
         normal((4, 3)), order=2)
    case("MirrorPadGrad", _mode.lower(), lambda c, m=_mode: _mirror_grad(c, m),
         normal((7, 5)), order=2)


case("Pad", "sobel_edges", lambda x: tf.image.sobel_edges(x),
     normal((1, 5, 4, 2)), order=2,
     unknown_shape_skip={"rank": "sobel_edges needs the channel count statically (its "
                                 "depthwise filter is built from it)"})
