"""Algebraic rewrites done while the graph is built (TF1's tutorial loss, double negation)."""
import numpy as np

import estimator_npu as tf


def _types(sess, fetch, feeds):
    plan = sess.compile([fetch], list(feeds))
    return [op.type for op in plan.ops]


def test_tutorial_cross_entropy_becomes_one_fused_kernel():
    rng = np.random.default_rng(0)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float64, [None, 5])
        y = tf.placeholder(tf.float64, [None, 5])
        pred = tf.nn.softmax(x)
        cost = tf.reduce_mean(-tf.reduce_sum(y * tf.log(pred), reduction_indices=1))
        (gx,) = tf.gradients(cost, [x])
        sess = tf.Session(graph=g)
    xv = rng.standard_normal((4, 5))
    yv = np.eye(5)[rng.integers(0, 5, 4)]
    types = _types(sess, cost, [x, y])
    assert "SoftmaxCrossEntropyWithLogits" in types
    assert "Softmax" not in types and "Log" not in types and "Neg" not in types
    p = np.exp(xv) / np.exp(xv).sum(1, keepdims=True)
    c, gv = sess.run([cost, gx], {x: xv, y: yv})
    np.testing.assert_allclose(c, np.mean(-np.sum(yv * np.log(p), 1)), rtol=1e-12)
    np.testing.assert_allclose(gv, (p - yv) / 4, rtol=1e-10, atol=1e-14)
    # the softmax itself is still available for predictions
    np.testing.assert_allclose(sess.run(pred, {x: xv}), p, rtol=1e-12)


def test_fused_loss_stays_finite_where_log_of_softmax_would_be_infinite():
    g = tf.Graph()
    with g.as_default():
        x = tf.constant([[0.0, 200.0]])
        y = tf.constant([[1.0, 0.0]])
        loss = -tf.reduce_sum(y * tf.log(tf.nn.softmax(x)), axis=-1)
        naive = -tf.reduce_sum(y * tf.log(tf.nn.softmax(x)), axis=-1, keepdims=True)
        sess = tf.Session(graph=g)
    assert np.isfinite(sess.run(loss)).all()
    np.testing.assert_allclose(sess.run(loss), [200.0], rtol=1e-6)
    assert np.isinf(sess.run(naive)).all()   # keepdims=True is not rewritten


def test_no_rewrite_when_labels_broadcast_or_axis_differs():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3, 4])
        y_row = tf.placeholder(tf.float32, [4])
        s1 = tf.reduce_sum(y_row * tf.log(tf.nn.softmax(x)), axis=1)
        y = tf.placeholder(tf.float32, [3, 4])
        s2 = tf.reduce_sum(y * tf.log(tf.nn.softmax(x)), axis=0)
    assert s1.op.type == "Sum" and s2.op.type == "Sum"


def test_double_negation_is_removed():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(2.0)
        assert tf.negative(tf.negative(a)) is a
        named = tf.negative(tf.negative(a), name="keep")
        assert named.op.type == "Neg"
