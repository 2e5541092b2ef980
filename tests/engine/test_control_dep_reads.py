"""Variable reads and control dependencies as in TF1: an op made under
``control_dependencies([update])`` sees the updated value (even when an optimizer's
update replaced the stored array), and a variable created in such a block does not make
its initializer run the update."""
import numpy as np

import estimator_npu as tf


def test_read_after_optimizer_update_sees_the_new_value():
    with tf.Graph().as_default():
        w = tf.Variable(1.0)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(w * w)
        with tf.control_dependencies([train]):
            r = w * 1.0
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(r) == np.float32(0.8)
            assert sess.run(w) == np.float32(0.8)


def test_variable_made_under_control_dependencies_initializes_without_them():
    with tf.Graph().as_default():
        count = tf.Variable(0, name="count")
        bump = tf.assign_add(count, 1)
        with tf.control_dependencies([bump]):
            other = tf.Variable(np.ones(2, np.float32), name="other")
            after = tf.identity(other)
        assert not other.initializer.control_inputs
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(count) == 0
            sess.run(after)
            assert sess.run(count) == 1
