"""Behaviours popular standalone TF1 repositories rely on (tools/corpus/github.tsv)."""
import numpy as np
import pytest

import estimator_npu as tf


def test_concat_of_one_tensor_is_its_identity():
    # hzy46/Char-RNN-TensorFlow: tf.concat(dynamic_rnn_outputs, 1) with one Tensor
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3, 2])
        y = tf.concat(x, 1, name="joined")
        z = tf.concat([x], 1)
        assert y.shape.as_list() == [None, 3, 2] and y.op.name == "joined"
        assert y is not x and z is not x and z.op.type == "Identity"
        grad, = tf.gradients(tf.reduce_sum(y * 2.0), x)
        with tf.Session() as s:
            v = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
            out, gv = s.run([y, grad], {x: v})
    np.testing.assert_array_equal(out, v)
    np.testing.assert_array_equal(gv, np.full_like(v, 2.0))


@pytest.mark.parametrize("axis, shape", [([-1], [None, 5, 1]), (np.array([1]), [None, 1, 5]),
                                          ((0,), [1, None, 5]), (np.int64(2), [None, 5, 1])])
def test_expand_dims_takes_a_one_element_axis_list(axis, shape):
    # google-research/bert modeling.embedding_lookup: tf.expand_dims(ids, axis=[-1])
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.int32, [None, 5])
        y = tf.expand_dims(x, axis=axis)
        assert y.shape.as_list() == shape
        with tf.Session() as s:
            out = s.run(y, {x: np.arange(10).reshape(2, 5)})
    assert list(out.shape) == [2 if d is None else d for d in shape]


def test_expand_dims_axis_from_a_constant_tensor_and_bad_axes():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 5])
        assert tf.expand_dims(x, tf.constant([1])).shape.as_list() == [None, 1, 5]
        assert tf.expand_dims(x, dim=0).shape.as_list() == [1, None, 5]
        with pytest.raises(ValueError, match="axis must be one static int, got \\[0, 1\\]"):
            tf.expand_dims(x, [0, 1])
        with pytest.raises(TypeError, match="axis must be a list of ints"):
            tf.expand_dims(x, 1.0)
