"""Gradient clipping ops and the global step helpers."""
import numpy as np
import pytest

import estimator_npu as tf


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def test_clip_by_global_norm(graph):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal(5)
    norm = np.sqrt((a ** 2).sum() + (b ** 2).sum())
    ta, tb = tf.constant(a, tf.float64), tf.constant(b, tf.float64)
    for clip in (norm / 2, norm * 2):
        (ca, none, cb), n = tf.clip_by_global_norm([ta, None, tb], clip)
        assert none is None
        with tf.Session() as sess:
            va, vb, vn = sess.run([ca, cb, n])
        scale = min(1.0, clip / norm)
        np.testing.assert_allclose(vn, norm, rtol=1e-12)
        np.testing.assert_allclose(va, a * scale, rtol=1e-12)
        np.testing.assert_allclose(vb, b * scale, rtol=1e-12)
    (ci,), ni = tf.clip_by_global_norm([tf.constant([np.inf, 1.0], tf.float64)], 1.0)
    with tf.Session() as sess:
        vi, vni = sess.run([ci, ni])
    assert np.isinf(vni) and np.isnan(vi).all()
    with pytest.raises(TypeError, match="t_list should be a sequence"):
        tf.clip_by_global_norm(ta, 1.0)
    with pytest.raises(ValueError, match="clip_norm must be positive"):
        tf.clip_by_global_norm([ta], 0.0)
    with pytest.raises(ValueError, match="holds no tensors"):
        tf.global_norm([None])


def test_global_norm_gradient_matches_finite_difference(graph):
    rng = np.random.default_rng(1)
    a0, b0 = rng.standard_normal(4), rng.standard_normal((2, 3))
    a = tf.placeholder(tf.float64, [4])
    b = tf.placeholder(tf.float64, [2, 3])
    n = tf.global_norm([a, b])
    ga, gb = tf.gradients(3.0 * n, [a, b])
    da, db = rng.standard_normal(4), rng.standard_normal((2, 3))
    eps = 1e-6
    with tf.Session() as sess:
        va, vb = sess.run([ga, gb], {a: a0, b: b0})
        plus = sess.run(n, {a: a0 + eps * da, b: b0 + eps * db})
        minus = sess.run(n, {a: a0 - eps * da, b: b0 - eps * db})
    fd = 3.0 * (plus - minus) / (2 * eps)
    np.testing.assert_allclose((va * da).sum() + (vb * db).sum(), fd, rtol=1e-7)


def test_clip_by_norm(graph):
    t = np.array([[3.0, 4.0], [0.3, 0.4]])
    x = tf.constant(t, tf.float64)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(tf.clip_by_norm(x, 1.0)),
                                   t / np.linalg.norm(t), rtol=1e-12)
        np.testing.assert_allclose(sess.run(tf.clip_by_norm(x, 1.0, axes=[1])),
                                   [[0.6, 0.8], [0.3, 0.4]], rtol=1e-12)
        np.testing.assert_array_equal(sess.run(tf.clip_by_norm(tf.zeros([2], tf.float64), 1.0)),
                                      [0.0, 0.0])


def test_clipped_gradients_feed_an_optimizer(graph):
    w = tf.Variable(np.array([3.0, 4.0]), dtype=tf.float64, name="w")
    loss = tf.reduce_sum(w * w)  # gradient 2w = [6, 8], norm 10
    opt = tf.train.GradientDescentOptimizer(1.0)
    grads, var_list = zip(*opt.compute_gradients(loss))
    clipped, _ = tf.clip_by_global_norm(list(grads), 5.0)
    train_op = opt.apply_gradients(zip(clipped, var_list))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train_op)
        np.testing.assert_allclose(sess.run(w), [0.0, 0.0], atol=1e-12)


def test_global_step_helpers(graph):
    assert tf.train.get_global_step() is None
    gs = tf.train.get_or_create_global_step()
    assert gs.op.name == "global_step" and gs.dtype == tf.int64 and gs.shape.ndims == 0
    assert not gs.trainable
    assert tf.get_collection(tf.GraphKeys.GLOBAL_STEP) == [gs]
    assert gs in tf.global_variables() and gs not in tf.trainable_variables()
    assert tf.train.get_or_create_global_step() is gs
    assert tf.train.get_global_step() is gs
    with pytest.raises(ValueError, match='"global_step" already exists'):
        tf.train.create_global_step()
    with tf.Session() as sess:
        sess.run(gs.initializer)
        gs.load(42, sess)
        assert tf.train.global_step(sess, gs) == 42
    with tf.Graph().as_default() as g2:
        with tf.variable_scope("outer"):
            gs2 = tf.train.create_global_step(g2)
        assert gs2.op.name == "global_step"
        assert tf.train.get_global_step(g2) is gs2
    with tf.Graph().as_default():
        tf.Variable(1.5, name="global_step")
        with pytest.raises(TypeError, match="does not have integer type"):
            tf.train.get_global_step()
