"""``tf.contrib.layers.instance_norm``: per-example, per-channel normalization over the
spatial dims (NHWC and NCHW), its InstanceNorm/beta,gamma variables, and its gradient
against finite differences (float64)."""
import numpy as np
import pytest

import estimator_npu as tf


def _np_instance_norm(x, axes, eps):
    m = x.mean(axis=axes, keepdims=True)
    v = x.var(axis=axes, keepdims=True)
    return (x - m) / np.sqrt(v + eps)


@pytest.mark.parametrize("fmt,axes", [("NHWC", (1, 2)), ("NCHW", (2, 3))])
def test_instance_norm_values_and_variables(fmt, axes):
    rng = np.random.RandomState(0)
    x = rng.randn(2, 3, 4, 3) * 3 + 1
    with tf.Graph().as_default():
        y = tf.contrib.layers.instance_norm(
            tf.constant(x, tf.float32), data_format=fmt,
            param_initializers={"gamma": tf.constant_initializer(2.0)})
        names = sorted(v.op.name for v in tf.trainable_variables())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(y)
    assert names == ["InstanceNorm/beta", "InstanceNorm/gamma"]
    np.testing.assert_allclose(got, 2.0 * _np_instance_norm(x, axes, 1e-6), rtol=1e-4,
                               atol=1e-5)


def test_instance_norm_gradient_matches_finite_differences():
    rng = np.random.RandomState(1)
    x0 = rng.randn(2, 3, 3, 2)
    w0 = rng.randn(2, 3, 3, 2)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [None, 3, 3, 2])
        loss = tf.reduce_sum(tf.contrib.layers.instance_norm(x, center=False, scale=False) * w0)
        g = tf.gradients(loss, x)[0]
        with tf.Session() as sess:
            gv = sess.run(g, {x: x0})
            eps = 1e-6
            fd = np.zeros_like(x0)
            for i in range(x0.size):
                d = np.zeros_like(x0)
                d.flat[i] = eps
                fd.flat[i] = (sess.run(loss, {x: x0 + d}) - sess.run(loss, {x: x0 - d})) / (2 * eps)
    np.testing.assert_allclose(gv, fd, atol=1e-5)


def test_instance_norm_needs_rank_3():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="rank >= 3"):
            tf.contrib.layers.instance_norm(tf.zeros([2, 3]))
