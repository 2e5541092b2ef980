"""TF1 variable utilities: count_up_to, assert_variables_initialized, the orthogonal and
uniform-unit-scaling initializers, make_template's reuse rules, moving_average_variables."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import errors


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def test_count_up_to_counts_then_stops(graph):
    v = tf.Variable(0, dtype=tf.int64, name="v")
    step = tf.count_up_to(v, 2)
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert [sess.run(step), sess.run(step)] == [0, 1]
        with pytest.raises(errors.OutOfRangeError, match="Reached limit of 2"):
            sess.run(step)
        assert sess.run(v) == 2
    with pytest.raises(TypeError, match="int32 or int64"):
        tf.count_up_to(tf.Variable(0.0), 3)


def test_assert_variables_initialized_names_the_variable(graph):
    a = tf.Variable(1.0, name="a")
    tf.Variable(2.0, name="b")
    check = tf.assert_variables_initialized()
    with tf.Session() as sess:
        sess.run(a.initializer)
        with pytest.raises(errors.FailedPreconditionError, match="uninitialized value b"):
            sess.run(check)
        sess.run(tf.global_variables_initializer())
        sess.run(check)
    with tf.Graph().as_default():
        assert tf.assert_variables_initialized() is None


@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (2, 5), (2, 3, 4)])
def test_orthogonal_initializer_gives_orthonormal_rows_or_columns(graph, shape):
    w = tf.get_variable("w", shape, initializer=tf.orthogonal_initializer(gain=2.0, seed=3))
    with tf.Session() as sess:
        sess.run(w.initializer)
        m = sess.run(w).reshape(-1, shape[-1])
    small = min(m.shape)
    gram = m.T @ m if m.shape[0] >= m.shape[1] else m @ m.T
    np.testing.assert_allclose(gram, 4.0 * np.eye(small), atol=1e-5)
    with pytest.raises(ValueError, match="two-dimensional"):
        tf.orthogonal_initializer()([3])


def test_uniform_unit_scaling_bounds(graph):
    w = tf.get_variable("w", [12, 50], initializer=tf.uniform_unit_scaling_initializer(
        factor=1.5, seed=1))
    with tf.Session() as sess:
        sess.run(w.initializer)
        v = sess.run(w)
    bound = 1.5 * np.sqrt(3.0 / 12)
    assert np.abs(v).max() <= bound and np.abs(v).max() > 0.8 * bound


def test_template_shares_variables_and_rejects_new_ones_later(graph):
    calls = []

    def fn(x):
        calls.append(1)
        w = tf.get_variable("w", [2], initializer=tf.ones_initializer())
        if len(calls) > 1:
            tf.Variable(0.0, name="extra")   # a new trainable variable on a later call
        return x * w

    t = tf.make_template("shared", fn)
    t(tf.ones([2]))
    assert [v.name for v in t.trainable_variables] == ["shared/w:0"]
    with pytest.raises(ValueError, match="Trainable variable created"):
        t(tf.ones([2]))


def test_moving_average_variables(graph):
    v = tf.Variable(1.0, name="v")
    tf.train.ExponentialMovingAverage(0.9).apply([v])
    assert tf.moving_average_variables() == [v]
