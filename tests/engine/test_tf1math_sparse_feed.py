"""tf.sparse_placeholder: a SparseTensor of placeholders, fed with a SparseTensorValue
under the SparseTensor as the feed key (the session splits it into three feeds)."""
import numpy as np
import pytest

import estimator_npu as tf


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def test_sparse_placeholder_is_fed_with_a_sparse_value(graph):
    sp = tf.sparse_placeholder(tf.float32)
    total = tf.sparse_reduce_sum(sp, axis=1)
    value = tf.SparseTensorValue(np.array([[0, 1], [1, 0], [1, 2]], np.int64),
                                 np.array([1.0, 2.0, 3.0], np.float32),
                                 np.array([2, 3], np.int64))
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(total, {sp: value}), [1.0, 5.0])
    fixed = tf.sparse.placeholder(tf.float32, shape=[2, 3])
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(tf.sparse.to_dense(fixed), {fixed: (
            value.indices, value.values)})[1], [2.0, 0.0, 3.0])
