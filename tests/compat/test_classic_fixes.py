"""Fixes found by running the classic public TF1 tutorials (tools/corpus/classic.tsv)."""
import numpy as np

import estimator_npu as tf


def test_get_variable_takes_the_dtype_of_a_tensor_initializer():
    # TF 2.15 (compat.v1): get_variable('s', initializer=tf.constant(2)).dtype is int32_ref.
    with tf.Graph().as_default():
        s = tf.get_variable("scalar", initializer=tf.constant(2))
        m = tf.get_variable("matrix", initializer=tf.constant([[0, 1], [2, 3]]))
        d = tf.get_variable("double", initializer=tf.constant(1.5, dtype=tf.float64))
        f = tf.get_variable("float", shape=[2], initializer=tf.zeros_initializer())
        assert s.dtype.base_dtype == tf.int32 and m.dtype.base_dtype == tf.int32
        assert d.dtype.base_dtype == tf.float64 and f.dtype.base_dtype == tf.float32
        assert m.get_shape().as_list() == [2, 2]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(m), [[0, 1], [2, 3]])
            assert sess.run(s) == 2 and sess.run(d) == 1.5
