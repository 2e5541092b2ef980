"""Tests for conv2d, pooling and their backprops (``estimator_npu/engine/ops/conv_ops.py``).

The oracle is a naive float64 loop over every output position and window offset, with
TF's padding rule written out (``pad_before = max((out-1)*s + k_eff - in, 0) // 2``).
Gradients are checked against the same loops here and by finite differences in
``op_specs_conv.py``.
"""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import errors


# ------------------------------------------------------------------ naive references
def _geom(n, k, s, d, pad):
    ke = (k - 1) * d + 1
    if pad == "SAME":
        out = -(-n // s)
        return out, max((out - 1) * s + ke - n, 0) // 2
    if pad == "VALID":
        return (n - ke) // s + 1, 0
    lo, hi = pad
    return (n + lo + hi - ke) // s + 1, lo


def _windows(x, k, s, pad, d=(1, 1)):
    """Yields (oh, ow, [(i, j, r, c) for in-bounds window taps]) over an NHWC input."""
    _, h, w, _ = x.shape
    ph, pw = (pad, pad) if isinstance(pad, str) else pad
    oh, pt = _geom(h, k[0], s[0], d[0], ph)
    ow, pl = _geom(w, k[1], s[1], d[1], pw)
    for a in range(oh):
        for b in range(ow):
            taps = []
            for i in range(k[0]):
                for j in range(k[1]):
                    r, c = a * s[0] + i * d[0] - pt, b * s[1] + j * d[1] - pl
                    if 0 <= r < h and 0 <= c < w:
                        taps.append((i, j, r, c))
            yield a, b, oh, ow, taps


def conv_ref(x, w, s, pad, d=(1, 1)):
    out = None
    for a, b, oh, ow, taps in _windows(x, w.shape[:2], s, pad, d):
        if out is None:
            out = np.zeros((x.shape[0], oh, ow, w.shape[3]))
        for i, j, r, c in taps:
            out[:, a, b] += x[:, r, c] @ w[i, j]
    return out


def conv_grads_ref(x, w, dy, s, pad):
    dx, dw = np.zeros_like(x), np.zeros_like(w)
    for a, b, _, _, taps in _windows(x, w.shape[:2], s, pad):
        for i, j, r, c in taps:
            dx[:, r, c] += dy[:, a, b] @ w[i, j].T
            dw[i, j] += x[:, r, c].T @ dy[:, a, b]
    return dx, dw


def pool_ref(x, k, s, pad, kind):
    out = None
    for a, b, oh, ow, taps in _windows(x, k, s, pad):
        if out is None:
            out = np.zeros((x.shape[0], oh, ow, x.shape[3]))
        vals = np.stack([x[:, r, c] for _, _, r, c in taps])
        out[:, a, b] = vals.max(0) if kind == "max" else vals.mean(0)
    return out


def to_nchw(a):
    return np.ascontiguousarray(a.transpose(0, 3, 1, 2))


def to_nhwc(a):
    return np.ascontiguousarray(a.transpose(0, 2, 3, 1))


def const(a):
    # numpy float64 arrays are given an explicit dtype (tf.constant makes floats float32).
    return tf.constant(a, dtype=tf.float64)


def run(fetches, feeds=None):
    with tf.Session() as sess:
        return sess.run(fetches, feeds)


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


# ------------------------------------------------------------------ forward vs reference
# (input NHWC shape, kernel hxw, stride, padding)
GEOMETRIES = [
    ((2, 7, 7, 3), (3, 3), 1, "SAME"),
    ((2, 7, 7, 3), (3, 3), 2, "SAME"),
    ((2, 8, 8, 2), (3, 3), 2, "SAME"),
    ((1, 8, 9, 5), (2, 2), 2, "SAME"),
    ((2, 10, 7, 1), (5, 5), 1, "VALID"),
    ((2, 9, 9, 6), (3, 3), 2, "VALID"),
    ((1, 8, 8, 4), (2, 3), 3, "VALID"),
    ((2, 7, 8, 3), (3, 2), 3, "SAME"),
    ((1, 5, 5, 2), (1, 1), 2, "SAME"),
]
GEOM_IDS = [f"{'x'.join(map(str, g[0]))}-k{g[1][0]}{g[1][1]}-s{g[2]}-{g[3]}" for g in GEOMETRIES]


@pytest.mark.parametrize("nchw", [False, True], ids=["NHWC", "NCHW"])
@pytest.mark.parametrize("shape, k, s, pad", GEOMETRIES, ids=GEOM_IDS)
def test_conv2d_matches_reference(shape, k, s, pad, nchw):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape)
    w = rng.standard_normal(k + (shape[3], 4))
    expected = conv_ref(x, w, (s, s), pad)
    xin = to_nchw(x) if nchw else x
    y = tf.nn.conv2d(tf.constant(xin, dtype=tf.float64), tf.constant(w, dtype=tf.float64),
                     [1, 1, s, s] if nchw else [1, s, s, 1], pad,
                     data_format="NCHW" if nchw else "NHWC")
    got = run(y)
    assert y.shape == got.shape
    np.testing.assert_allclose(to_nhwc(got) if nchw else got, expected, rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("nchw", [False, True], ids=["NHWC", "NCHW"])
@pytest.mark.parametrize("shape, k, s, pad", GEOMETRIES, ids=GEOM_IDS)
def test_pooling_matches_reference(shape, k, s, pad, nchw, kind):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape)
    expected = pool_ref(x, k, (s, s), pad, kind)
    fn = tf.nn.max_pool if kind == "max" else tf.nn.avg_pool
    ksize = [1, 1, *k] if nchw else [1, *k, 1]
    y = fn(tf.constant(to_nchw(x) if nchw else x, dtype=tf.float64), ksize,
           [1, 1, s, s] if nchw else [1, s, s, 1], pad, data_format="NCHW" if nchw else "NHWC")
    got = run(y)
    assert y.shape == got.shape
    np.testing.assert_allclose(to_nhwc(got) if nchw else got, expected, rtol=1e-12,
                               atol=1e-12)


def test_conv2d_dilations_and_explicit_padding_match_reference():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 9, 8, 3))
    w = rng.standard_normal((3, 3, 3, 2))
    xt, wt = const(x), const(w)
    dil = tf.nn.conv2d(xt, wt, 1, "SAME", dilations=2)
    explicit = tf.nn.conv2d(xt, wt, [2, 2], [[0, 0], [2, 1], [0, 3], [0, 0]])
    got_dil, got_exp = run([dil, explicit])
    np.testing.assert_allclose(got_dil, conv_ref(x, w, (1, 1), "SAME", (2, 2)), atol=1e-12)
    np.testing.assert_allclose(got_exp, conv_ref(x, w, (2, 2), ((2, 1), (0, 3))),
                               atol=1e-12)
    assert explicit.shape == got_exp.shape == (2, 5, 5, 2)


def test_same_padding_puts_the_extra_pad_after():
    # in=4, k=2, s=1, SAME: total pad 1, all of it after (TF), so the last column of the
    # window sees the zero pad and the first output uses x[0] and x[1].
    x = np.arange(4.0).reshape(1, 1, 4, 1)
    w = np.array([1.0, 10.0]).reshape(1, 2, 1, 1)
    got = run(tf.nn.conv2d(const(x), const(w), 1, "SAME"))
    np.testing.assert_array_equal(got.ravel(), [10.0, 21.0, 32.0, 3.0])


def test_avg_pool_same_divides_by_the_valid_count():
    got = run(tf.nn.avg_pool(tf.ones([1, 5, 5, 1]), [1, 3, 3, 1], [1, 2, 2, 1], "SAME"))
    np.testing.assert_array_equal(got, np.ones((1, 3, 3, 1), np.float32))


def test_max_pool_same_padding_never_wins():
    got = run(tf.nn.max_pool(-tf.ones([1, 3, 3, 1]) - 1.0, 2, 2, "SAME"))
    np.testing.assert_array_equal(got, np.full((1, 2, 2, 1), -2.0, np.float32))


def test_pool2d_aliases_and_int_arguments():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 6, 6, 3))
    a, b, c, d = run([tf.nn.max_pool2d(const(x), 2, 2, "VALID"),
                      tf.nn.max_pool(const(x), [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
                      tf.nn.avg_pool2d(const(x), [2, 2], [2], "VALID"),
                      tf.nn.avg_pool(const(x), [1, 2, 2, 1], [1, 2, 2, 1], "VALID")])
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(c, d)


@pytest.mark.parametrize("dtype, rtol", [(tf.float32, 1e-5), (tf.float16, 2e-2)])
def test_low_precision_conv_keeps_its_dtype(dtype, rtol):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 6, 6, 3)).astype(dtype.np)
    w = (0.3 * rng.standard_normal((3, 3, 3, 4))).astype(dtype.np)
    xt, wt = tf.constant(x), tf.constant(w)
    y = tf.nn.conv2d(xt, wt, 1, "SAME")
    dx, dw = tf.gradients(tf.reduce_sum(y), [xt, wt])
    got = run([y, dx, dw])
    assert [g.dtype for g in got] == [dtype.np] * 3
    expected = conv_ref(x.astype(np.float64), w.astype(np.float64), (1, 1), "SAME")
    np.testing.assert_allclose(got[0], expected, rtol=rtol, atol=rtol)


# ------------------------------------------------------------------ gradients vs reference
@pytest.mark.parametrize("shape, k, s, pad", GEOMETRIES[:6], ids=GEOM_IDS[:6])
def test_conv2d_gradients_match_reference(shape, k, s, pad):
    rng = np.random.default_rng(6)
    x = rng.standard_normal(shape)
    w = rng.standard_normal(k + (shape[3], 3))
    dy = rng.standard_normal(conv_ref(x, w, (s, s), pad).shape)
    xt, wt = const(x), const(w)
    y = tf.nn.conv2d(xt, wt, s, pad)
    gx, gw = run(tf.gradients(y, [xt, wt], grad_ys=const(dy)))
    ex, ew = conv_grads_ref(x, w, dy, (s, s), pad)
    np.testing.assert_allclose(gx, ex, atol=1e-12)
    np.testing.assert_allclose(gw, ew, atol=1e-12)


def test_max_pool_gradient_goes_to_the_first_maximum():
    x = np.array([[1.0, 3.0, 3.0, 0.0], [3.0, 2.0, 1.0, 5.0]]).reshape(1, 2, 4, 1)
    xt = const(x)
    g = run(tf.gradients(tf.nn.max_pool(xt, 2, 2, "VALID"), xt)[0])
    np.testing.assert_array_equal(g.ravel(), [0, 1, 0, 0, 0, 0, 0, 1])


def test_overlapping_max_pool_gradient_accumulates():
    x = np.array([1.0, 9.0, 2.0, 3.0]).reshape(1, 1, 4, 1)
    xt = const(x)
    g = run(tf.gradients(tf.nn.max_pool(xt, [1, 1, 3, 1], 1, "SAME"), xt)[0])
    np.testing.assert_array_equal(g.ravel(), [0, 3, 0, 1])


def test_conv2d_transpose_is_the_input_gradient():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 7, 7, 3))
    w = rng.standard_normal((3, 3, 3, 5))
    dy = rng.standard_normal((2, 4, 4, 5))
    xt = const(x)
    grad = tf.gradients(tf.nn.conv2d(xt, const(w), 2, "SAME"), xt,
                        grad_ys=const(dy))[0]
    tr = tf.nn.conv2d_transpose(const(dy), const(w), [2, 7, 7, 3], [1, 2, 2, 1],
                                "SAME")
    assert tr.shape == (2, 7, 7, 3)
    a, b = run([grad, tr])
    np.testing.assert_allclose(b, a, atol=1e-12)
    np.testing.assert_allclose(b, conv_grads_ref(x, w, dy, (2, 2), "SAME")[0], atol=1e-12)


def test_public_backprop_functions_match_gradients():
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 3, 8, 7))
    w = rng.standard_normal((3, 3, 3, 4))
    dy = rng.standard_normal((2, 4, 4, 4))
    xt, wt, dyt = const(x), const(w), const(dy)
    kw = dict(strides=[1, 1, 2, 2], padding="SAME", data_format="NCHW")
    gx, gw = tf.gradients(tf.nn.conv2d(xt, wt, **kw), [xt, wt], grad_ys=dyt)
    bx = tf.nn.conv2d_backprop_input([2, 3, 8, 7], wt, dyt, **kw)
    bw = tf.nn.conv2d_backprop_filter(xt, tf.constant([3, 3, 3, 4]), dyt, **kw)
    assert bx.shape == x.shape and bw.shape == w.shape
    got = run([gx, gw, bx, bw])
    np.testing.assert_allclose(got[2], got[0], atol=1e-12)
    np.testing.assert_allclose(got[3], got[1], atol=1e-12)
    ex, ew = conv_grads_ref(to_nhwc(x), w, to_nhwc(dy), (2, 2), "SAME")
    np.testing.assert_allclose(to_nhwc(got[2]), ex, atol=1e-12)
    np.testing.assert_allclose(got[3], ew, atol=1e-12)


def test_results_do_not_alias_reused_buffers():
    # Kernels reuse work buffers across runs; a returned array must never be one of them.
    rng = np.random.default_rng(8)
    x = tf.placeholder(tf.float64, [1, 6, 6, 2])
    w = const(rng.standard_normal((3, 3, 2, 2)))
    y = tf.nn.conv2d(x, w, 2, "VALID")
    ops = [y, tf.nn.max_pool(x, 2, 2, "SAME"), tf.nn.avg_pool(x, 3, 1, "SAME")]
    ops += tf.gradients(tf.reduce_sum(y * y) + tf.reduce_sum(ops[1] ** 2) +
                        tf.reduce_sum(ops[2] ** 2), [x, w])
    a, b = rng.standard_normal((2, 1, 6, 6, 2))
    with tf.Session() as sess:
        first = sess.run(ops, {x: a})
        kept = [v.copy() for v in first]
        sess.run(ops, {x: b})
        again = sess.run(ops, {x: a})
    for f, k, g in zip(first, kept, again):
        np.testing.assert_array_equal(f, k)
        np.testing.assert_array_equal(g, k)


# ------------------------------------------------------------------ static shapes and errors
def test_static_shapes_keep_unknown_dims():
    x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    w = tf.zeros([5, 5, 1, 6])
    assert tf.nn.conv2d(x, w, 1, "SAME").shape == [None, 28, 28, 6]
    assert tf.nn.conv2d(x, w, 2, "VALID").shape == [None, 12, 12, 6]
    assert tf.nn.max_pool(x, 2, 2, "SAME").shape == [None, 14, 14, 1]
    assert tf.nn.avg_pool(x, 3, 3, "VALID").shape == [None, 9, 9, 1]
    xn = tf.placeholder(tf.float32, [None, 3, None, 7])
    wn = tf.zeros([3, 3, 3, 4])
    assert tf.nn.conv2d(xn, wn, [1, 1, 2, 2], "SAME", data_format="NCHW").shape == \
        [None, 4, None, 4]


def test_unknown_spatial_dims_run_and_differentiate():
    rng = np.random.default_rng(9)
    x = tf.placeholder(tf.float64, [None, None, None, 2])
    w = const(rng.standard_normal((3, 3, 2, 2)))
    y = tf.nn.max_pool(tf.nn.conv2d(x, w, 2, "SAME"), 2, 1, "SAME")
    g = tf.gradients(tf.reduce_sum(y), x)[0]
    val = rng.standard_normal((1, 5, 6, 2))
    yv, gv = run([y, g], {x: val})
    assert yv.shape == (1, 3, 3, 2) and gv.shape == val.shape


@pytest.mark.parametrize("build, words", [
    (lambda: tf.nn.conv2d(tf.zeros([1, 8, 8, 3]), tf.zeros([3, 3, 4, 2]), 1, "SAME"),
     ["Conv2D", "(1, 8, 8, 3)", "(3, 3, 4, 2)", "channels"]),
    (lambda: tf.nn.conv2d(tf.zeros([1, 3, 8, 8]), tf.zeros([3, 3, 8, 2]), 1, "SAME",
                          data_format="NCHW"), ["Conv2D", "(1, 3, 8, 8)", "(3, 3, 8, 2)"]),
    (lambda: tf.nn.conv2d(tf.zeros([1, 8, 8, 3]), tf.zeros([3, 3, 3, 2]), 1, "FULL"),
     ["Conv2D", "padding", "FULL"]),
    (lambda: tf.nn.conv2d(tf.zeros([1, 8, 8, 3]), tf.zeros([3, 3, 3, 2]), 1, "SAME",
                          data_format="HWCN"), ["Conv2D", "data_format", "HWCN"]),
    (lambda: tf.nn.conv2d(tf.zeros([1, 4, 4, 3]), tf.zeros([5, 5, 3, 2]), 1, "VALID"),
     ["Conv2D", "(1, 4, 4, 3)", "5x5"]),
    (lambda: tf.nn.conv2d(tf.zeros([8, 8, 3]), tf.zeros([3, 3, 3, 2]), 1, "SAME"),
     ["Conv2D", "4-D", "(8, 8, 3)"]),
    (lambda: tf.nn.conv2d(tf.zeros([1, 8, 8, 3]), tf.zeros([3, 3, 3, 2]), [2, 1, 1, 1],
                          "SAME"), ["Conv2D", "strides", "batch"]),
    (lambda: tf.nn.max_pool(tf.zeros([1, 8, 8, 3]), 2, 2, "same_ish"),
     ["MaxPool", "padding", "same_ish"]),
    (lambda: tf.nn.avg_pool(tf.zeros([1, 2, 2, 3]), 3, 1, "VALID"),
     ["AvgPool", "(1, 2, 2, 3)", "3x3"]),
    (lambda: tf.nn.max_pool(tf.zeros([1, 8, 8, 3]), [1, 2, 2, 1], 2, "SAME",
                            data_format="NDHWC"), ["MaxPool", "data_format"]),
    (lambda: tf.nn.conv2d_transpose(tf.zeros([1, 4, 4, 5]), tf.zeros([3, 3, 2, 5]),
                                    [1, 9, 9, 2], 2, "SAME"),
     ["conv2d_transpose", "[1, 9, 9, 2]", "(1, 4, 4, 5)"]),
    (lambda: tf.nn.conv2d_transpose(tf.zeros([1, 4, 4, 5]), tf.zeros([3, 3, 2, 4]),
                                    [1, 8, 8, 2], 2, "SAME"),
     ["conv2d_transpose", "(3, 3, 2, 4)", "5"]),
])
def test_bad_arguments_raise_value_error_naming_op_and_shapes(build, words):
    with pytest.raises(ValueError) as info:
        build()
    for word in words:
        assert word in str(info.value)


def test_dtype_errors():
    with pytest.raises(TypeError, match="Conv2D"):
        tf.nn.conv2d(tf.zeros([1, 4, 4, 1], dtype=tf.int32), tf.zeros([2, 2, 1, 1]), 1,
                     "SAME")
    with pytest.raises(ValueError, match="float64"):
        tf.nn.conv2d(tf.zeros([1, 4, 4, 1]), tf.zeros([2, 2, 1, 1], dtype=tf.float64), 1,
                     "SAME")


def test_runtime_channel_mismatch_names_the_op():
    x = tf.placeholder(tf.float32, [None, 6, 6, None])
    y = tf.nn.conv2d(x, tf.zeros([3, 3, 2, 4]), 1, "SAME", name="my_conv")
    with pytest.raises(errors.InvalidArgumentError, match="my_conv"):
        run(y, {x: np.zeros((1, 6, 6, 3), np.float32)})


# ------------------------------------------------------------------ a LeNet runs and learns
def _lenet(images, rng):
    def var(shape, scale):
        return tf.Variable((scale * rng.standard_normal(shape)).astype(np.float32))
    w1, b1 = var([5, 5, 1, 6], 0.2), var([6], 0.0)
    w2, b2 = var([5, 5, 6, 16], 0.08), var([16], 0.0)
    w3, b3 = var([400, 120], 0.05), var([120], 0.0)
    w4, b4 = var([120, 10], 0.1), var([10], 0.0)
    h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(images, w1, 1, "SAME"), b1))
    h = tf.nn.max_pool(h, 2, 2, "VALID")                                # 14x14x6
    h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, w2, 1, "VALID"), b2))  # 10x10x16
    h = tf.nn.avg_pool(h, 2, 2, "VALID")                                # 5x5x16
    h = tf.nn.relu(tf.matmul(tf.reshape(h, [-1, 400]), w3) + b3)
    return tf.matmul(h, w4) + b4, [w1, b1, w2, b2, w3, b3, w4, b4]


def test_lenet_forward_backward_runs_and_loss_decreases():
    rng = np.random.default_rng(10)
    images = tf.placeholder(tf.float32, [None, 28, 28, 1])
    labels = tf.placeholder(tf.int32, [None])
    logits, params = _lenet(images, rng)
    assert logits.shape == [None, 10]
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits))
    grads = tf.gradients(loss, params)
    assert [g.shape for g in grads] == [p.shape for p in params]
    train = tf.group(*[tf.assign_sub(p, 0.05 * g) for p, g in zip(params, grads)])
    feed = {images: rng.standard_normal((16, 28, 28, 1)).astype(np.float32),
            labels: rng.integers(0, 10, 16)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, feed)
        for _ in range(20):
            sess.run(train, feed)
        last = sess.run(loss, feed)
    assert np.isfinite(first) and last < 0.6 * first
