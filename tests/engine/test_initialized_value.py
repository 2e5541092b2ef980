"""``Variable.initialized_value`` and initial values that depend on other variables."""
import numpy as np

import estimator_npu as tf


def test_initial_value_may_depend_on_another_variable():
    g = tf.Graph()
    with g.as_default():
        a = tf.Variable(2.0)
        b = tf.Variable(a.initialized_value() * 3)
        c = tf.Variable(a * 5.0)          # a plain read works too in one initializer run
        sess = tf.Session(graph=g)
        sess.run(tf.global_variables_initializer())
        assert sess.run([a, b, c]) == [2.0, 6.0, 10.0]
        sess.run(a.assign(7.0))
        assert sess.run(a.initialized_value()) == 7.0   # initialized: the current value
        fresh = tf.Session(graph=g)
        np.testing.assert_equal(fresh.run(a.initialized_value()), 2.0)
