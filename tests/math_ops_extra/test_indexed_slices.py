"""tf.IndexedSlices: attributes, dense conversion as TF does (rows summed by
unsorted_segment_sum), our gradients are never IndexedSlices, bad input."""
import numpy as np
import pytest

import estimator_npu as tf


def test_dense_conversion_sums_repeated_rows():
    with tf.Graph().as_default():
        s = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
                             tf.constant([2, 0, 2]), dense_shape=tf.constant([4, 2]))
        assert s.dtype == tf.float32 and s.values.shape.as_list() == [3, 2]
        dense = tf.convert_to_tensor(s)
        doubled = tf.multiply(s, 1.0)  # any op takes it
        with tf.Session() as sess:
            got, d2 = sess.run([dense, doubled])
    np.testing.assert_array_equal(got, [[3.0, 4.0], [0.0, 0.0], [6.0, 8.0], [0.0, 0.0]])
    np.testing.assert_array_equal(d2, got)


def test_gradients_are_dense_tensors():
    with tf.Graph().as_default():
        emb = tf.Variable(np.ones((5, 3), np.float32))
        loss = tf.reduce_sum(tf.gather(emb, [1, 1, 3]))
        g, = tf.gradients(loss, [emb])
        assert not isinstance(g, tf.IndexedSlices)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(g)[:, 0], [0, 2, 0, 1, 0])


def test_bad_input():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="indices must be integers, got float32"):
            tf.IndexedSlices(tf.ones([2, 2]), tf.constant([0.0, 1.0]))
        s = tf.IndexedSlices(tf.ones([2, 2]), tf.constant([0, 1]))
        assert s.dense_shape is None
        with pytest.raises(ValueError, match="IndexedSlices without dense_shape"):
            tf.convert_to_tensor(s)
