"""``tf.sparse_to_dense`` and ``tf.sequence_mask`` (TF1 names old scripts use for one-hot
labels and padding masks); the expected arrays are what TF 2.15's compat.v1 returned for
the same calls."""
import numpy as np
import pytest

import estimator_npu as tf


def _run(t):
    with tf.Session() as sess:
        return sess.run(t)


def test_sparse_to_dense_values_as_tf():
    with tf.Graph().as_default():
        np.testing.assert_array_equal(
            _run(tf.sparse_to_dense([[0, 1], [2, 0]], [3, 2], [5.0, 6.0], -1.0)),
            [[-1.0, 5.0], [-1.0, -1.0], [6.0, -1.0]])
        np.testing.assert_array_equal(_run(tf.sparse_to_dense(2, [4], 1.0)), [0, 0, 1, 0])
        got = _run(tf.sparse_to_dense([1, 3], [5], 7))
        assert got.dtype == np.int32 and got.tolist() == [0, 7, 0, 7, 0]
        # the TF 0.x MNIST one-hot idiom
        labels = tf.constant([2, 0, 1])
        idx = tf.concat([tf.expand_dims(tf.range(0, 3), 1), tf.expand_dims(labels, 1)], 1)
        np.testing.assert_array_equal(_run(tf.sparse_to_dense(idx, tf.stack([3, 4]), 1.0, 0.0)),
                                      np.eye(4)[[2, 0, 1]])
        with pytest.raises(ValueError, match="output_shape must be rank 1"):
            tf.sparse_to_dense([1], 3, 2.0)        # TF: "Shape must be rank 1 but is rank 0"


def test_sequence_mask_values_and_static_shapes():
    with tf.Graph().as_default():
        np.testing.assert_array_equal(_run(tf.sequence_mask([1, 3, 0], 4)),
                                      [[1, 0, 0, 0], [1, 1, 1, 0], [0, 0, 0, 0]])
        m = tf.sequence_mask([[1, 2]], dtype=tf.float32)
        assert m.dtype == tf.float32
        np.testing.assert_array_equal(_run(m), [[[1, 0], [1, 1]]])
        lengths = tf.placeholder(tf.int32, [None])
        assert tf.sequence_mask(lengths, 5).shape.as_list() == [None, 5]
        assert tf.sequence_mask(lengths).shape.as_list() == [None, None]
        with pytest.raises(TypeError, match="lengths must be integers"):
            tf.sequence_mask([1.5])
