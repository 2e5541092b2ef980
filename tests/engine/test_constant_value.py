"""engine.constant_value: values of constant-only subgraphs for static shapes (TF's shape
refiner folds them), and SparseTensors built from numpy (constants, fetched as values)."""
import numpy as np

import estimator_npu as tf
from estimator_npu.engine.constant_value import MAX_OPS, constant_value


def test_folds_constant_subgraphs_only():
    with tf.Graph().as_default():
        a = tf.constant([3, 1, 4])
        folded = constant_value(tf.reduce_max(a) + 2)
        assert folded == 6
        p = tf.placeholder(tf.int32, [3])
        assert constant_value(tf.reduce_max(a + p)) is None
        assert constant_value(tf.Variable([1, 2]).value()) is None
        assert constant_value(tf.random_uniform([2])) is None  # stateful


def test_gives_up_on_large_subgraphs():
    with tf.Graph().as_default():
        x = tf.constant(1)
        for _ in range(MAX_OPS):
            x = x + 1
        assert constant_value(x) is None


def test_static_shapes_from_folded_values():
    with tf.Graph().as_default():
        assert tf.sequence_mask(np.array([[1, 2], [3, 0]])).shape.as_list() == [2, 2, 3]
        assert tf.math.bincount(tf.constant([1, 1, 4]), minlength=2).shape.as_list() == [5]
        sp = tf.SparseTensor([[0, 1], [2, 3]], [1.0, 2.0], [3, 4])
        assert tf.sparse.to_dense(tf.sparse.transpose(sp)).shape.as_list() == [4, 3]
        p = tf.placeholder(tf.int64, [2])
        assert tf.SparseTensor([[0, 1]], [1.0], p).shape.as_list() == [None, None]


def test_sparse_tensor_from_numpy_is_a_graph_value_fetched_as_a_value():
    with tf.Graph().as_default():
        sp = tf.SparseTensor(np.array([[0, 1]], np.int64), np.array([5.0], np.float32),
                             np.array([2, 2], np.int64))
        assert isinstance(sp, tf.SparseTensor)
        assert sp.shape.as_list() == [2, 2]
        with tf.Session() as sess:
            v, both = sess.run(sp), sess.run({"s": [sp]})
        assert isinstance(v, tf.SparseTensorValue)
        assert isinstance(both["s"][0], tf.SparseTensorValue)
        np.testing.assert_array_equal(v.values, [5.0])
