"""``tf.contrib.sparsemax``: values against a NumPy projection onto the simplex, the
gradient against finite differences (float64; static and unknown shapes), the loss and its
gradient ``sparsemax - labels``."""
import numpy as np
import pytest

import estimator_npu as tf


def _np_sparsemax(z):
    z = z - z.mean(axis=-1, keepdims=True)
    out = np.empty_like(z)
    for idx in np.ndindex(z.shape[:-1]):
        row = z[idx]
        s = np.sort(row)[::-1]
        k = np.arange(1, row.size + 1)
        kz = k[1 + k * s > np.cumsum(s)].max()
        tau = (s[:kz].sum() - 1) / kz
        out[idx] = np.maximum(row - tau, 0)
    return out


def _fd_jacobian(f, x, eps=1e-6):
    base = f(x)
    jac = np.zeros((base.size, x.size))
    for i in range(x.size):
        d = np.zeros_like(x)
        d.flat[i] = eps
        jac[:, i] = ((f(x + d) - f(x - d)) / (2 * eps)).ravel()
    return jac


@pytest.mark.parametrize("shape", [[3, 5], None])
def test_sparsemax_values_and_gradient(shape):
    rng = np.random.RandomState(1)
    z = rng.randn(3, 5) * 2.0
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, shape)
        p = tf.contrib.sparsemax.sparsemax(x)
        w = tf.placeholder(tf.float64, shape)
        g = tf.gradients(tf.reduce_sum(p * w), x)[0]
        with tf.Session() as sess:
            got = sess.run(p, {x: z})
            np.testing.assert_allclose(got, _np_sparsemax(z), atol=1e-12)
            assert np.allclose(got.sum(-1), 1.0) and (got == 0).any()
            jac = np.stack([sess.run(g, {x: z, w: np.eye(15)[i].reshape(3, 5)}).ravel()
                            for i in range(15)])
    np.testing.assert_allclose(jac, _fd_jacobian(_np_sparsemax, z), atol=1e-6)


def test_sparsemax_loss_and_gradient():
    rng = np.random.RandomState(2)
    z = rng.randn(4, 6)
    y = np.eye(6)[[0, 3, 5, 1]]
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [None, 6])
        sm = tf.contrib.sparsemax.sparsemax(x)
        loss = tf.contrib.sparsemax.sparsemax_loss(x, sm, y)
        g = tf.gradients(tf.reduce_sum(loss), x)[0]
        with tf.Session() as sess:
            lv, gv, pv = sess.run([loss, g, sm], {x: z})
    zs = z - z.mean(-1, keepdims=True)
    want = (pv * (zs - pv / 2)).sum(-1) - (zs * y).sum(-1) + 0.5 * (y * y).sum(-1)
    np.testing.assert_allclose(lv, want, atol=1e-12)
    assert (lv >= -1e-12).all()
    np.testing.assert_allclose(gv, pv - y, atol=1e-9)


def test_sparsemax_rejects_integer_logits():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="logits must be a float"):
            tf.contrib.sparsemax.sparsemax(tf.constant([[1, 2]]))


def test_contrib_framework_sort_is_tf_sort():
    # ProtoAttend sorts its attention weights with tf.contrib.framework.sort
    with tf.Graph().as_default():
        x = tf.constant([[3.0, 1.0, 2.0]])
        with tf.Session() as sess:
            s, a = sess.run([tf.contrib.framework.sort(x, direction="DESCENDING", axis=1),
                             tf.contrib.framework.argsort(x)])
    np.testing.assert_array_equal(s, [[3.0, 2.0, 1.0]])
    np.testing.assert_array_equal(a, [[1, 2, 0]])
