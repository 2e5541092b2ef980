"""Fixes found by the second round of classic public TF1 tutorials (tools/corpus/classic.tsv)."""
import numpy as np
import pytest

import estimator_npu as tf


def _bn_reference(x, m, v, beta, gamma, eps, scale):
    y = (x - m) / np.sqrt(v + eps)
    return (y * gamma if scale else y) + beta


@pytest.mark.parametrize("scale", [True, False])
def test_batch_norm_with_global_normalization_values(scale):
    # a conv-autoencoder style use: positional (t, m, v, beta, gamma, eps, scale_after)
    rng = np.random.default_rng(3)
    xs = rng.standard_normal((2, 3, 3, 4)).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3, 3, 4])
        mean, var = tf.nn.moments(x, [0, 1, 2])
        beta = tf.constant([0.1, -0.2, 0.3, 0.0])
        gamma = tf.constant([1.5, 0.5, 2.0, 1.0])
        y = tf.nn.batch_norm_with_global_normalization(x, mean, var, beta, gamma, 1e-3, scale)
        assert y.get_shape().as_list() == [None, 3, 3, 4]
        with tf.Session() as sess:
            got = sess.run(y, {x: xs})
    want = _bn_reference(xs, xs.mean((0, 1, 2)), xs.var((0, 1, 2)),
                         np.array([0.1, -0.2, 0.3, 0.0]), np.array([1.5, 0.5, 2.0, 1.0]),
                         1e-3, scale)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_batch_norm_with_global_normalization_keywords_and_errors():
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0], [3.0, 6.0]])
        y = tf.nn.batch_norm_with_global_normalization(
            input=x, mean=tf.constant([2.0, 4.0]), variance=tf.constant([1.0, 4.0]),
            beta=tf.zeros([2]), gamma=tf.ones([2]) * 3.0, variance_epsilon=0.0,
            scale_after_normalization=False)
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(y), [[-1.0, -1.0], [1.0, 1.0]])
        with pytest.raises(TypeError, match="scale_after_normalization"):
            tf.nn.batch_norm_with_global_normalization(x, x, x, x, x, 1e-3)


@pytest.mark.parametrize("shape", [None, [None, 3]])
def test_batch_norm_with_global_normalization_gradient(shape):
    rng = np.random.default_rng(5)
    xs = rng.standard_normal((4, 3))
    w = rng.standard_normal((4, 3))
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, shape)
        gamma = tf.constant([1.3, 0.7, 1.1], tf.float64)
        mean, var = tf.nn.moments(x, [0])
        y = tf.nn.batch_norm_with_global_normalization(x, mean, var, tf.zeros([3], tf.float64),
                                                       gamma, 1e-3, True)
        loss = tf.reduce_sum(tf.sin(y) * w)
        g, = tf.gradients(loss, [x])
        with tf.Session() as sess:
            got = sess.run(g, {x: xs})
            num = np.zeros_like(xs)
            for i in np.ndindex(xs.shape):
                d = np.zeros_like(xs)
                d[i] = 1e-5
                num[i] = (sess.run(loss, {x: xs + d}) - sess.run(loss, {x: xs - d})) / 2e-5
    np.testing.assert_allclose(got, num, rtol=1e-5, atol=1e-7)
