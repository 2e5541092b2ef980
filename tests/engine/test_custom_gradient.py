"""``tf.custom_gradient`` replaces the gradient of what it wraps (its forward value is
``f``'s): a clipping gradient clips, and the alias path ``tensorflow.python.ops
.custom_gradient`` used by tf_slim offers it."""
import numpy as np
import pytest

import estimator_npu as tf


@tf.custom_gradient
def _clip_grad(x):
    return tf.identity(x), lambda dy: tf.clip_by_value(dy, -1.0, 1.0)


def test_the_user_gradient_replaces_the_ops_gradient():
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0, 3.0])
        y = _clip_grad(x) * 10.0
        g, = tf.gradients(tf.reduce_sum(y), [x])
        with tf.Session() as sess:
            value, grad = sess.run([y, g])
    np.testing.assert_array_equal(value, [10.0, 20.0, 30.0])
    np.testing.assert_array_equal(grad, [1.0, 1.0, 1.0])  # 10 clipped to 1


def test_wrong_number_of_gradients_is_named():
    @tf.custom_gradient
    def bad(a, b):
        return a + b, lambda dy: dy  # one gradient for two inputs

    with tf.Graph().as_default():
        a, b = tf.constant(1.0), tf.constant(2.0)
        with pytest.raises(ValueError, match="returned 1 gradients for 2 inputs"):
            tf.gradients(bad(a, b), [a, b])


def test_tf_internal_path_offers_it():
    from estimator_npu import compat
    compat.install()
    try:
        from tensorflow.python.ops import custom_gradient as module
        assert module.custom_gradient is tf.custom_gradient
    finally:
        compat.uninstall()


def test_check_numerics_raises_with_the_message_on_nan():
    from estimator_npu import errors
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        y = tf.check_numerics(tf.log(x), "log of x")
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(y, {x: [1.0, np.e]}), [0.0, 1.0], rtol=1e-6)
            with pytest.raises(errors.InvalidArgumentError, match="log of x.*NaN"):
                sess.run(y, {x: [-1.0]})
