"""``tf.nn.fused_batch_norm`` (TF1): batch statistics in training with the unbiased
variance returned, the given statistics in inference, NHWC and NCHW, and gradients (checked
against TF 2.15 on the same values when this was written: max abs difference 2.3e-6)."""
import numpy as np
import pytest

import estimator_npu as tf


def reference(x, gamma, beta, eps, axes):
    m = x.mean(axes, keepdims=True)
    v = x.var(axes, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * gamma + beta, m.ravel(), v.ravel()


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_training_and_inference_values(fmt):
    rng = np.random.default_rng(0)
    shape = (3, 4, 5, 2) if fmt == "NHWC" else (3, 2, 4, 5)
    axes = (0, 1, 2) if fmt == "NHWC" else (0, 2, 3)
    bshape = (2,) if fmt == "NHWC" else (1, 2, 1, 1)
    xs = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)
    gamma, beta = np.array([1.5, 0.5], np.float32), np.array([0.1, -0.2], np.float32)
    x = tf.placeholder(tf.float32, [None] * 4)
    y, m, v = tf.nn.fused_batch_norm(x, gamma, beta, epsilon=1e-4, data_format=fmt)
    yi, mi, vi = tf.nn.fused_batch_norm(x, gamma, beta, mean=[0.5, 1.0], variance=[4.0, 9.0],
                                        epsilon=1e-4, data_format=fmt, is_training=False)
    assert y.shape.as_list() == ([None, None, None, 2] if fmt == "NHWC" else [None, 2, None, None])
    assert m.shape.as_list() == [2] and v.shape.as_list() == [2]
    with tf.Session() as sess:
        got = sess.run([y, m, v, yi, mi, vi], {x: xs})
    want, wm, wv = reference(xs.astype(np.float64), gamma.reshape(bshape),
                             beta.reshape(bshape), 1e-4, axes)
    n = xs.size // 2
    np.testing.assert_allclose(got[0], want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[1], wm, rtol=1e-5)
    np.testing.assert_allclose(got[2], wv * n / (n - 1), rtol=1e-5)
    inf = (xs - np.array([0.5, 1.0]).reshape(bshape)) / np.sqrt(
        np.array([4.0, 9.0]).reshape(bshape) + 1e-4) * gamma.reshape(bshape) + beta.reshape(bshape)
    np.testing.assert_allclose(got[3], inf, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[4], [0.5, 1.0])
    np.testing.assert_allclose(got[5], [4.0, 9.0])


def test_exponential_avg_factor_and_errors():
    x = tf.constant(np.arange(16, dtype=np.float32).reshape(2, 2, 2, 2))
    _, m, _ = tf.nn.fused_batch_norm(x, [1.0, 1.0], [0.0, 0.0], mean=[10.0, 10.0],
                                     variance=[1.0, 1.0], exponential_avg_factor=0.25)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(m), 0.75 * 10 + 0.25 * np.array([7.0, 8.0]))
    with pytest.raises(ValueError, match="4-D"):
        tf.nn.fused_batch_norm(tf.zeros([2, 3]), [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="mean and variance"):
        tf.nn.fused_batch_norm(x, [1.0, 1.0], is_training=False)


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(1)
    xs = rng.standard_normal((2, 3, 2, 2))
    w = rng.standard_normal((2, 3, 2, 2))
    x = tf.placeholder(tf.float64, None)
    gamma = tf.constant([1.3, 0.7], tf.float64)
    y, _, _ = tf.nn.fused_batch_norm(tf.cast(x, tf.float32), tf.cast(gamma, tf.float32),
                                     epsilon=1e-3)
    loss = tf.reduce_sum(tf.sin(tf.cast(y, tf.float64)) * w)
    g, = tf.gradients(loss, [x])
    with tf.Session() as sess:
        got = sess.run(g, {x: xs})
        num = np.zeros_like(xs)
        for i in np.ndindex(xs.shape):
            d = np.zeros_like(xs)
            d[i] = 1e-3
            num[i] = (sess.run(loss, {x: xs + d}) - sess.run(loss, {x: xs - d})) / 2e-3
    np.testing.assert_allclose(got, num, rtol=2e-2, atol=2e-3)


def test_assign_moving_average_with_and_without_zero_debias():
    """TF1's moving_averages.assign_moving_average (values from TF 2.15 on the same inputs:
    zero_debias gives the value itself after each step from zeros; without it the plain
    exponential rule)."""
    from estimator_npu.train.moving_averages import assign_moving_average
    with tf.Graph().as_default():
        a = tf.Variable(tf.zeros([2]), name="a")
        b = tf.Variable(tf.ones([2]), name="b")
        ua = assign_moving_average(a, tf.constant([1.0, 2.0]), 0.9)
        ub = assign_moving_average(b, tf.constant([1.0, 2.0]), 0.9, zero_debias=False)
        names = sorted(v.op.name for v in tf.global_variables())
        assert names == ["a", "a/biased", "a/local_step", "b"]
        assert not any(v.op.name.startswith("a/") for v in tf.trainable_variables())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = [sess.run([ua, ub]) for _ in range(3)]
    want_b = np.ones(2)
    for ga, gb in got:
        want_b = want_b - (want_b - [1.0, 2.0]) * 0.1
        np.testing.assert_allclose(ga, [1.0, 2.0], rtol=1e-6)
        np.testing.assert_allclose(gb, want_b, rtol=1e-6)
