"""``constraint=`` on Variable / get_variable / tf.layers: optimizers project the variable
after each update (TF1: ``var.assign(constraint(var))`` after the update op)."""
import numpy as np
import pytest

import estimator_npu as tf


def _clip(x):
    return tf.clip_by_value(x, -1.0, 1.0)


def test_optimizer_projects_constrained_variables_after_the_update():
    with tf.Graph().as_default():
        v = tf.Variable([3.0, -0.5], constraint=_clip)
        w = tf.get_variable("w", initializer=tf.constant([0.05, 2.0]),
                            constraint=tf.keras.constraints.NonNeg())
        free = tf.Variable([3.0])
        step = tf.train.get_or_create_global_step()
        loss = tf.reduce_sum(v * v) + tf.reduce_sum(3.0 * w) + tf.reduce_sum(free * free)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        assert v.constraint is _clip and free.constraint is None
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            ev, ew, ef = np.array([3.0, -0.5]), np.array([0.05, 2.0]), np.array([3.0])
            for _ in range(2):
                sess.run(train)
                ev = np.clip(ev - 0.1 * 2 * ev, -1, 1)
                ew = np.maximum(ew - 0.1 * 3, 0)
                ef = ef - 0.1 * 2 * ef
                got = sess.run([v, w, free])
                np.testing.assert_allclose(got[0], ev, rtol=1e-6)
                np.testing.assert_allclose(got[1], ew, rtol=1e-6)
                np.testing.assert_allclose(got[2], ef, rtol=1e-6)
            assert sess.run(step) == 2


def test_layers_dense_kernel_constraint():
    with tf.Graph().as_default():
        x = tf.constant(np.ones((2, 3), np.float32))
        y = tf.layers.Dense(2, kernel_initializer=tf.constant_initializer(5.0),
                            kernel_constraint=lambda k: tf.minimum(k, 1.0))(x)
        train = tf.train.GradientDescentOptimizer(0.0).minimize(tf.reduce_sum(y))
        kernel = tf.trainable_variables()[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            np.testing.assert_array_equal(sess.run(kernel), np.ones((3, 2), np.float32))


def test_constraint_must_be_callable():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="constraint.*callable.*int: 3"):
            tf.Variable(1.0, constraint=3)
