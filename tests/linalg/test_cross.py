"""``tf.cross`` / ``tf.linalg.cross``: values against numpy's cross product, the gradient
against float64 finite differences with known, ``[None, 3]`` and unknown static shapes."""
import numpy as np
import pytest

import estimator_npu as tf


def _fd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


@pytest.mark.parametrize("shape", ["known", "batch_none", "unknown"])
def test_cross_values_and_gradient(shape):
    rng = np.random.default_rng(0)
    a, b, w = (rng.normal(size=(4, 3)) for _ in range(3))
    static = {"known": [4, 3], "batch_none": [None, 3], "unknown": None}[shape]
    with tf.Graph().as_default():
        pa = tf.placeholder(tf.float64, static)
        pb = tf.placeholder(tf.float64, static)
        c = tf.linalg.cross(pa, pb)
        if shape != "unknown":
            assert c.shape.as_list() == ([4, 3] if shape == "known" else [None, 3])
        loss = tf.reduce_sum(c * w)
        ga, gb = tf.gradients(loss, [pa, pb])
        with tf.Session() as sess:
            got, da, db = sess.run([c, ga, gb], {pa: a, pb: b})
    np.testing.assert_allclose(got, np.cross(a, b), rtol=1e-12)
    np.testing.assert_allclose(da, _fd(lambda x: np.sum(np.cross(x, b) * w), a), rtol=1e-6)
    np.testing.assert_allclose(db, _fd(lambda x: np.sum(np.cross(a, x) * w), b), rtol=1e-6)


def test_cross_top_level_alias_and_bad_input():
    assert tf.cross is tf.linalg.cross
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="a must have a last dimension of size 3"):
            tf.cross(tf.zeros([2, 4]), tf.zeros([2, 4]))
