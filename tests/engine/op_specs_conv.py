"""Gradient-check cases for convolution and pooling (``engine/ops/conv_ops.py``).

Each case is ``(op_type, case_id, build, make_inputs[, options])`` (see ``gradcheck``).
The backprop ops are reached by building ``tf.gradients`` inside ``build``, so that the
op under test sits in the forward graph and is itself differentiated (its gradient is
again a convolution or a pooling op). Max-pool inputs are distinct values well apart, so
no window has a tie within the finite-difference step.
"""

import estimator_npu as tf
from op_spec_tools import case_list, normal, pool_gradient_builds, spread, spread_and_normal

CASES, case = case_list()



def _strides(s, nchw):
    return [1, 1, s, s] if nchw else [1, s, s, 1]


def _fmt(nchw):
    return "NCHW" if nchw else "NHWC"


def _nchw_shape(shape, nchw):
    n, h, w, c = shape
    return (n, c, h, w) if nchw else shape


def _out_shape(x_shape, k, s, pad, nchw, channels=None):
    """The output shape (in data-format order) of a k x k window op, by TF's rules."""
    n, c, h, w = x_shape if nchw else (x_shape[0], x_shape[3], x_shape[1], x_shape[2])
    oh, ow = ((-(-d // s)) if pad == "SAME" else (d - k) // s + 1 for d in (h, w))
    c = c if channels is None else channels
    return (n, c, oh, ow) if nchw else (n, oh, ow, c)


# (case id, input NHWC shape, kernel, stride, padding, nchw, out channels, options)
CONV_GEOMETRIES = [
    ("nhwc_same_s2", (2, 7, 7, 3), 3, 2, "SAME", False, 4, {"order": 2}),
    ("nhwc_valid_s1", (2, 6, 5, 2), 3, 1, "VALID", False, 3, {"order": 2}),
    ("nhwc_valid_s2_even", (1, 8, 8, 5), 2, 2, "VALID", False, 2, {}),
    ("nhwc_same_s3", (2, 8, 7, 6), 3, 3, "SAME", False, 3, {}),
    ("nchw_same_s2", (2, 6, 7, 3), 3, 2, "SAME", True, 2, {"order": 2}),
    ("nchw_valid_s3", (1, 9, 8, 2), 2, 3, "VALID", True, 3, {}),
    ("nhwc_same_s1_dynamic", (2, 5, 6, 3), 3, 1, "SAME", False, 2, {"dynamic": True}),
    # 4x4 windows take the batch-innermost col2im path of Conv2DBackpropInput.
    ("nchw_k4_same_s2", (2, 7, 6, 2), 4, 2, "SAME", True, 3, {"order": 2}),
    ("nhwc_k4_valid_s1", (1, 6, 7, 5), 4, 1, "VALID", False, 2, {}),
]


def _conv(nchw, s, pad, dil=None):
    return lambda x, w: tf.nn.conv2d(x, w, _strides(s, nchw), pad, data_format=_fmt(nchw),
                                     dilations=dil)


for _cid, _shape, _k, _s, _pad, _nchw, _co, _opts in CONV_GEOMETRIES:
    _xs = _nchw_shape(_shape, _nchw)
    _ws = (_k, _k, _shape[3], _co)
    case("Conv2D", _cid, _conv(_nchw, _s, _pad), normal(_xs, _ws), **_opts)

    # d(conv)/dx as a function of (w, cotangent c): differentiates Conv2DBackpropInput.
    def _bin(w, c, x_shape=_xs, nchw=_nchw, s=_s, pad=_pad):
        x = tf.zeros(list(x_shape), dtype=tf.float64)
        return tf.gradients(_conv(nchw, s, pad)(x, w), x, grad_ys=c)[0]

    # d(conv)/dw as a function of (x, cotangent c): differentiates Conv2DBackpropFilter.
    def _bfilt(x, c, w_shape=_ws, nchw=_nchw, s=_s, pad=_pad):
        w = tf.zeros(list(w_shape), dtype=tf.float64)
        return tf.gradients(_conv(nchw, s, pad)(x, w), w, grad_ys=c)[0]

    def _cot_inputs(first, ys=_out_shape(_xs, _k, _s, _pad, _nchw, _co)):
        return lambda rng: [rng.standard_normal(first), rng.standard_normal(ys)]

    _o2 = {k: v for k, v in _opts.items() if k == "order"}
    case("Conv2DBackpropInput", _cid, _bin, _cot_inputs(_ws), **_o2)
    case("Conv2DBackpropFilter", _cid, _bfilt, _cot_inputs(_xs), **_o2)

case("Conv2D", "nhwc_dilated_same", _conv(False, 1, "SAME", [1, 2, 2, 1]),
     normal((1, 7, 8, 2), (3, 3, 2, 2)), order=2)
case("Conv2D", "nhwc_explicit_padding",
     lambda x, w: tf.nn.conv2d(x, w, [1, 2, 2, 1], [[0, 0], [1, 2], [0, 1], [0, 0]]),
     normal((2, 6, 6, 2), (3, 3, 2, 3)))
case("Conv2DBackpropInput", "conv2d_transpose_s2",
     lambda v, w: tf.nn.conv2d_transpose(v, w, [2, 7, 7, 3], [1, 2, 2, 1], "SAME"),
     normal((2, 4, 4, 5), (3, 3, 3, 5)), order=2)

# (case id, input shape in data-format order, ksize, stride, padding, nchw, options)
POOL_GEOMETRIES = [
    ("nhwc_valid_k2s2", (2, 6, 6, 3), 2, 2, "VALID", False, {"order": 2}),
    ("nhwc_same_k3s2_odd", (2, 7, 5, 2), 3, 2, "SAME", False, {"order": 2}),
    ("nhwc_valid_k3s1_overlap", (1, 6, 7, 2), 3, 1, "VALID", False, {}),
    ("nhwc_same_k2s3", (2, 8, 7, 2), 2, 3, "SAME", False, {}),
    ("nchw_same_k3s2", (2, 3, 6, 5), 3, 2, "SAME", True, {"order": 2}),
    ("nchw_valid_k2s2", (1, 2, 7, 6), 2, 2, "VALID", True, {}),
    ("nhwc_same_k3s2_dynamic", (2, 5, 6, 2), 3, 2, "SAME", False, {"dynamic": True}),
]


def _pool(fn, k, s, pad, nchw):
    ksize = [1, 1, k, k] if nchw else [1, k, k, 1]
    return lambda x: fn(x, ksize, _strides(s, nchw), pad, data_format=_fmt(nchw))


for _cid, _xs, _k, _s, _pad, _nchw, _opts in POOL_GEOMETRIES:
    _mp = _pool(tf.nn.max_pool, _k, _s, _pad, _nchw)
    _ap = _pool(tf.nn.avg_pool, _k, _s, _pad, _nchw)
    _ys = list(_out_shape(_xs, _k, _s, _pad, _nchw))
    case("MaxPool", _cid, _mp, spread(_xs), **_opts)
    case("AvgPool", _cid, _ap, normal(_xs), **_opts)

    _mpg, _mpgg, _apg = pool_gradient_builds(tf, _mp, _ap, _xs, _ys)

    _o2 = {k: v for k, v in _opts.items() if k == "order"}
    case("MaxPoolGrad", _cid, _mpg, spread_and_normal(_xs, _ys), **_o2)
    case("MaxPoolGradGrad", _cid, _mpgg, spread_and_normal(_xs, _xs), **_o2)
    case("AvgPoolGrad", _cid, _apg, normal(_ys), **_o2)
