"""Specialised kernels compute exactly what the general ones compute (same arithmetic,
faster indexing or blocking): compared bit for bit on the same inputs."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.engine.ops import nn_ops


def _sparse_xent(x_shape, labels_value, dtype=tf.float32):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(dtype, x_shape)
        y = tf.placeholder(tf.int64 if labels_value.dtype == np.int64 else tf.int32)
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x)
        back = loss.op.outputs[1]
        sess = tf.Session(graph=g)
    return sess, x, y, loss, back


@pytest.mark.parametrize("dtype,np_dtype", [(tf.float32, np.float32), (tf.float64, np.float64)])
@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
def test_sparse_xent_2d_fast_path_equals_general_kernel(dtype, np_dtype, label_dtype):
    rng = np.random.default_rng(3)
    xv = (rng.standard_normal((37, 11)) * 6).astype(np_dtype)
    lv = rng.integers(0, 11, 37).astype(label_dtype)
    sess, x, y, loss, back = _sparse_xent([None, 11], lv, dtype)
    got_loss, got_back = sess.run([loss, back], {x: xv, y: lv})
    want_loss, want_back = nn_ops._sparse_xent_kernel(xv, lv)
    assert got_loss.dtype == want_loss.dtype == np_dtype
    np.testing.assert_array_equal(got_loss, want_loss)
    np.testing.assert_array_equal(got_back, want_back)
    # a second batch size reuses nothing stale from the first
    got2, _ = sess.run([loss, back], {x: xv[:5], y: lv[:5]})
    np.testing.assert_array_equal(got2, nn_ops._sparse_xent_kernel(xv[:5], lv[:5])[0])


def test_sparse_xent_fast_path_is_used_for_2d_float_logits():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        y = tf.placeholder(tf.int32, [None])
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x)
    kernel = nn_ops._sparse_xent_kernel_factory(loss.op, None)
    assert kernel is not nn_ops._sparse_xent_kernel
    with g.as_default():
        x3 = tf.placeholder(tf.float32, [None, 2, 4])
        y3 = tf.placeholder(tf.int32, [None, 2])
        loss3 = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y3, logits=x3)
    assert nn_ops._sparse_xent_kernel_factory(loss3.op, None) is nn_ops._sparse_xent_kernel


@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("bad", [-1, 4, "min", "max"])
def test_sparse_xent_fast_path_rejects_labels_out_of_range(bad, label_dtype):
    bad = {"min": np.iinfo(label_dtype).min, "max": np.iinfo(label_dtype).max}.get(bad, bad)
    sess, x, y, loss, _ = _sparse_xent([None, 4], np.array([0], label_dtype))
    with pytest.raises(Exception, match=r"valid range \[0, 4\)"):
        sess.run(loss, {x: np.zeros((2, 4), np.float32), y: np.array([1, bad], label_dtype)})


def _conv_graph(nchw):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float64, [None, 6, 9, 9] if nchw else [None, 9, 9, 6])
        w = tf.placeholder(tf.float64, [3, 3, 6, 5])
        y = tf.nn.conv2d(x, w, [1, 1, 2, 2] if nchw else [1, 2, 2, 1], "SAME",
                         data_format="NCHW" if nchw else "NHWC")
        dx, dw = tf.gradients(tf.reduce_sum(y * y), [x, w])
        sess = tf.Session(graph=g)
    return sess, x, w, (y, dx, dw)


@pytest.mark.parametrize("nchw", [False, True])
def test_conv_in_image_chunks_equals_whole_batch(monkeypatch, nchw):
    """Conv2D and its filter gradient split the batch into im2col chunks when the columns
    are large: same values as the whole-batch columns (float64: to rounding)."""
    from estimator_npu.engine.ops import conv_ops
    rng = np.random.default_rng(5)
    xv = rng.standard_normal((7, 6, 9, 9) if nchw else (7, 9, 9, 6))
    wv = rng.standard_normal((3, 3, 6, 5))
    sess, x, w, fetches = _conv_graph(nchw)
    whole = sess.run(fetches, {x: xv, w: wv})
    per_image = 5 * 5 * 3 * 3 * 6 * 8
    monkeypatch.setattr(conv_ops, "_CHUNKED_COLS_BYTES", 0)
    monkeypatch.setattr(conv_ops, "_CHUNK_BYTES", 3 * per_image)   # chunks of 3, 3, 1
    assert conv_ops._chunk_images(7, 6, (5, 5), (3, 3), np.float64) == 3
    sess2, x2, w2, fetches2 = _conv_graph(nchw)
    chunked = sess2.run(fetches2, {x2: xv, w2: wv})
    for a, b in zip(whole, chunked):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)
    again = sess2.run(fetches2, {x2: xv[:2], w2: wv})            # one short chunk
    for a, b in zip(sess.run(fetches, {x: xv[:2], w: wv}), again):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("stride", [1, 2])
def test_chunked_conv_scratch_is_bounded_by_the_chunk(monkeypatch, stride):
    """In the chunked paths each chunk is padded on its own: no kernel keeps a work buffer
    of the whole (padded) batch, only buffers of one chunk (CLUB's batch-128 net of nine
    96/192-channel convolutions kept a padded whole-batch copy per kernel and ran out of
    memory). Values equal the whole-batch kernels' (forward, both gradients, SAME
    padding so every chunk is padded)."""
    from estimator_npu.engine.ops import conv_ops
    rng = np.random.default_rng(7)
    n, c = 11, conv_ops._CHUNKED_C
    xv = rng.standard_normal((n, 9, 9, c))
    wv = rng.standard_normal((3, 3, c, c))

    def run():
        g = tf.Graph()
        with g.as_default():
            x = tf.placeholder(tf.float64, [None, 9, 9, c])
            w = tf.placeholder(tf.float64, [3, 3, c, c])
            y = tf.nn.conv2d(x, w, [1, stride, stride, 1], "SAME")
            dx, dw = tf.gradients(tf.reduce_sum(y * y), [x, w])
            with tf.Session(graph=g) as sess:
                return sess.run((y, dx, dw), {x: xv, w: wv})
    whole = run()
    shapes = []

    class Recording(conv_ops.Scratch):
        def get(self, key, shape, dtype, fill=None, tag=None):
            shapes.append((key, shape))
            return super().get(key, shape, dtype, fill, tag)
    monkeypatch.setattr(conv_ops, "Scratch", Recording)
    monkeypatch.setattr(conv_ops, "_CHUNKED_COLS_BYTES", 0)
    o = -(-9 // stride)
    per_image = o * o * 3 * 3 * c * 8
    monkeypatch.setattr(conv_ops, "_CHUNK_BYTES", 3 * per_image)   # chunks of <= 3 images
    chunked = run()
    for a, b in zip(whole, chunked):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)
    assert any(k == "x_chunk" for k, _ in shapes)
    assert not [(k, s) for k, s in shapes if len(s) in (4, 6) and s[0] > 3]


def test_conv_chunking_keeps_few_channel_inputs_whole():
    from estimator_npu.engine.ops import conv_ops
    assert conv_ops._chunk_images(100, 1, (28, 28), (5, 5), np.float32) == 100
    assert conv_ops._chunk_images(100, 32, (14, 14), (5, 5), np.float32) < 100


@pytest.mark.parametrize("padding", ["SAME", "VALID", [[0, 0], [2, 1], [0, 3], [0, 0]]])
@pytest.mark.parametrize("nchw", [False, True])
def test_stride1_input_gradient_as_a_forward_conv_equals_col2im(monkeypatch, padding, nchw):
    """Conv2DBackpropInput of a stride-1 convolution into >= 16 channels runs as a forward
    convolution of the padded gradient with the flipped filter: same values as the
    scatter-add (col2im) path, which strided convolutions keep."""
    from estimator_npu.engine.ops import conv_ops
    rng = np.random.default_rng(11)
    c = conv_ops._CHUNKED_C
    shape = [3, c, 7, 8] if nchw else [3, 7, 8, c]
    pad = padding
    if not isinstance(padding, str) and nchw:
        pad = [padding[0], padding[3], padding[1], padding[2]]

    def run():
        g = tf.Graph()
        with g.as_default():
            x = tf.placeholder(tf.float64, shape)
            w = tf.placeholder(tf.float64, [3, 4, c, 5])
            y = tf.nn.conv2d(x, w, [1, 1, 1, 1], pad, data_format="NCHW" if nchw else "NHWC")
            dy = tf.placeholder(tf.float64, y.shape)
            (dx,) = tf.gradients(y, [x], grad_ys=[dy])
            return tf.Session(graph=g).make_callable(dx, [w, dy]), y.shape.as_list()
    calls = []
    real = conv_ops._backprop_input_as_conv
    monkeypatch.setattr(conv_ops, "_backprop_input_as_conv",
                        lambda *a: calls.append(1) or real(*a))
    fast_fn, ys = run()
    wv = rng.standard_normal((3, 4, c, 5))
    dyv = rng.standard_normal(ys)
    fast = fast_fn(wv, dyv)
    assert calls and fast.shape == tuple(shape)
    monkeypatch.setattr(conv_ops, "_CHUNKED_C", c + 1)            # col2im path
    slow_fn, _ = run()
    n_calls = len(calls)
    slow = slow_fn(wv, dyv)
    assert len(calls) == n_calls
    np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-12)


def test_strided_input_gradient_keeps_col2im(monkeypatch):
    from estimator_npu.engine.ops import conv_ops
    monkeypatch.setattr(conv_ops, "_backprop_input_as_conv",
                        lambda *a: pytest.fail("stride 2 must use col2im"))
    c = conv_ops._CHUNKED_C
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float64, [2, 8, 8, c])
        w = tf.constant(np.ones((3, 3, c, 4)))
        y = tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME")
        (dx,) = tf.gradients(tf.reduce_sum(y), [x])
        out = tf.Session(graph=g).run(dx, {x: np.zeros((2, 8, 8, c))})
    assert out.shape == (2, 8, 8, c) and out.max() > 0


def _max_pool_grad(x, dy, monkeypatch=None, pair_c=None):
    from estimator_npu.engine.ops import pool_ops
    if pair_c is not None:
        monkeypatch.setattr(pool_ops, "_PAIR_C", pair_c)
    g = tf.Graph()
    with g.as_default():
        xp = tf.placeholder(tf.float32, x.shape)
        y = tf.nn.max_pool(xp, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        dyp = tf.placeholder(tf.float32, y.shape)
        dx = tf.gradients(y, xp, dyp)[0]
        with tf.Session() as sess:
            return sess.run(dx, {xp: x, dyp: dy})


@pytest.mark.parametrize("shape", [(64, 28, 28, 6), (3, 4, 6, 1), (2, 8, 8, 8)])
def test_pairwise_max_pool_grad_equals_window_loop(monkeypatch, shape):
    """The row-wise 2x2 gradient (few channels) routes each window's gradient to its first
    maximum like the window loop, ties included (integer inputs tie often; a ReLU's zeros
    do in real nets)."""
    rng = np.random.default_rng(5)
    for x in (rng.integers(0, 3, shape).astype(np.float32),
              np.maximum(rng.standard_normal(shape), 0).astype(np.float32)):
        dy = rng.standard_normal((shape[0], shape[1] // 2, shape[2] // 2, shape[3]))
        dy = dy.astype(np.float32)
        fast = _max_pool_grad(x, dy)
        with monkeypatch.context() as m:
            loop = _max_pool_grad(x, dy, m, pair_c=-1)
        np.testing.assert_array_equal(fast, loop)
        assert np.count_nonzero(fast) <= dy.size  # one winner per window


@pytest.mark.parametrize("shape", [(64, 28, 28, 6), (5, 13, 6), (7, 3), (100, 1024), (3, 0, 4),
                                   (128, 10), (512, 10)])
def test_bias_rows_add_equals_broadcast_add(shape):
    from estimator_npu.engine.ops import _fast
    rng = np.random.default_rng(6)
    x = rng.standard_normal(shape).astype(np.float32)
    b = rng.standard_normal(shape[-1]).astype(np.float32)
    rows, brow = _fast.bias_rows(x, b)
    if shape[-1] < 64 and x.size >= _fast.TILE_MIN:
        assert rows.shape[1] > shape[-1]  # few channels: rows of several pixels
    elif x.size:  # small arrays: numpy's own broadcast add (np.tile costs more)
        assert rows.shape == (x.size // shape[-1], shape[-1])
    np.testing.assert_array_equal(np.add(rows, brow).reshape(shape), x + b)
    if x.size:  # a strided view of the same shape takes numpy's own broadcast add
        assert _fast.bias_rows(np.concatenate([x, x])[::2], b) is None
    assert _fast.bias_rows(x, b[:-1]) is None  # a bias of the wrong size: np.add raises


_EDGES = [-0.0, 0.0, np.nan, -np.nan, np.inf, -np.inf, 1e-45, -1e-45, 3.0, -2.0, 1e-39]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 255, 256, 16383, 16384, 16385, 3 * 16384 + 7])
def test_relu_rows_equal_maximum_with_zero(dtype, n):
    """``_fast.relu`` (maximum against a row of zeros) is bit for bit ``np.maximum(x, 0)``:
    NaNs, signed zeros, infinities and subnormals included, new array or in place."""
    from estimator_npu.engine.ops import _fast
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(dtype)
    x[:min(n, len(_EDGES) * 3)] = np.resize(np.array(_EDGES, dtype), min(n, len(_EDGES) * 3))
    rng.shuffle(x)
    want = np.maximum(x, dtype(0))
    for shape in [(n,), (1, n, 1)]:
        got = _fast.relu(x.reshape(shape))
        assert got.shape == shape and got.dtype == dtype
        np.testing.assert_array_equal(got.reshape(-1).view(np.uint8), want.view(np.uint8))
    inplace = x.copy()
    assert _fast.relu(inplace, out=inplace) is inplace
    np.testing.assert_array_equal(inplace.view(np.uint8), want.view(np.uint8))
    if n > 1:  # a strided view takes numpy's broadcast path
        np.testing.assert_array_equal(_fast.relu(x[::2]), want[::2])


def test_relu_kernel_uses_rows_for_large_or_unknown_shapes():
    from estimator_npu.engine.ops import _fast
    g = tf.Graph()
    with g.as_default():
        big = tf.nn.relu(tf.placeholder(tf.float32, [None, 512]))
        small = tf.nn.relu(tf.placeholder(tf.float32, [8, 16]))
        ints = tf.nn.relu(tf.placeholder(tf.int32, [None, 512]))
    assert nn_ops._relu_kernel(big.op, None).bound == {"relu": _fast.relu}
    assert nn_ops._relu_kernel(small.op, None).bound["maximum"] is np.maximum
    assert nn_ops._relu_kernel(ints.op, None) is nn_ops._relu
    xv = np.random.default_rng(0).standard_normal((300, 512)).astype(np.float32)
    with tf.Session(graph=g) as sess:
        got = sess.run(big, {big.op.inputs[0]: xv})
    np.testing.assert_array_equal(got, np.maximum(xv, 0))
