"""TF1's moving-variance rule for ``tf.layers.batch_normalization``, the layer class and
slim's ``batch_norm``: on TF's fused path (4-D float16/32 inputs over axis 1 or 3, ``fused``
not False) the moving average takes the unbiased batch variance ``n / (n - 1)``; otherwise
the biased one (values checked against TF 2.15: fused 4.7859, unfused 4.6668 for this data)."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.contrib import slim


def _x():
    return (np.random.default_rng(0).standard_normal((4, 3, 3, 2)) * 3 + 1)


def _moving_variance(build, x, dtype=tf.float32):
    with tf.Graph().as_default():
        xp = tf.placeholder(dtype, x.shape)
        build(xp)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(tf.get_collection(tf.GraphKeys.UPDATE_OPS), {xp: x})
            (v,) = [v for v in tf.global_variables() if "moving_variance" in v.name]
            return sess.run(v).astype(np.float64)


def _expected(x, axes, unbiased, momentum):
    var = x.var(axis=axes)
    if unbiased:
        n = x.size / var.size
        var = var * n / (n - 1)
    return momentum * 1.0 + (1 - momentum) * var


@pytest.mark.parametrize("fused,axis,dtype,unbiased", [
    (None, -1, tf.float32, True), (True, -1, tf.float32, True), (False, -1, tf.float32, False),
    (None, 1, tf.float32, True), (None, 2, tf.float32, False), (None, -1, tf.float64, False),
    (None, -1, tf.float16, True)])
def test_functional_and_class_follow_the_fused_rule(fused, axis, dtype, unbiased):
    x = _x()
    axes = tuple(i for i in range(4) if i != axis % 4)
    want = _expected(x, axes, unbiased, 0.5)
    tol = 2e-3 if dtype == tf.float16 else 1e-5
    got = _moving_variance(lambda t: tf.layers.batch_normalization(
        t, axis=axis, momentum=0.5, training=True, fused=fused), x, dtype)
    np.testing.assert_allclose(got, want, rtol=tol)
    got = _moving_variance(lambda t: tf.layers.BatchNormalization(
        axis=axis, momentum=0.5, fused=fused)(t, training=True), x, dtype)
    np.testing.assert_allclose(got, want, rtol=tol)


def test_two_d_inputs_use_the_biased_variance():
    x = _x()[:, 0, 0, :]
    got = _moving_variance(lambda t: tf.layers.batch_normalization(
        t, momentum=0.5, training=True), x)
    np.testing.assert_allclose(got, _expected(x, (0,), False, 0.5), rtol=1e-5)


@pytest.mark.parametrize("fused,unbiased", [(None, True), (False, False)])
def test_slim_batch_norm_passes_fused_on(fused, unbiased):
    x = _x()
    got = _moving_variance(lambda t: slim.batch_norm(t, decay=0.5, fused=fused), x)
    np.testing.assert_allclose(got, _expected(x, (0, 1, 2), unbiased, 0.5), rtol=1e-5)


def test_the_class_passes_unsupported_options_on_to_their_error():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="renorm"):
            tf.layers.BatchNormalization(renorm=True)(tf.zeros([2, 3]), training=True)
