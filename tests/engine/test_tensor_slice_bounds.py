"""``x[a:b]`` with scalar int tensor bounds (``x[i * k:(i + 1) * k]`` in a while loop, as
ProtoAttend_ID2040 does): Python slicing semantics at run time, shapes, and the gradient
against finite differences (float64; known and unknown static shapes)."""
import numpy as np
import pytest

import estimator_npu as tf


@pytest.mark.parametrize("shape", [[6, 4], None])
def test_tensor_bounds_values_and_gradient(shape):
    a = np.random.RandomState(0).randn(6, 4)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, shape)
        i = tf.placeholder(tf.int32, [])
        y = x[i * 2:(i + 1) * 2, 1:]
        if shape is not None:
            assert y.shape.as_list() == [None, 3]
        neg = x[-i:]
        loss = tf.reduce_sum(tf.sin(y))
        g = tf.gradients(loss, x)[0]
        with tf.Session() as sess:
            for iv in (0, 1, 2, 5):  # 5: past the end, clamped to empty as in Python/TF
                got, gv = sess.run([y, g], {x: a, i: iv})
                np.testing.assert_allclose(got, a[iv * 2:(iv + 1) * 2, 1:])
                eps, fd = 1e-6, np.zeros_like(a)
                for k in range(a.size):
                    d = np.zeros_like(a)
                    d.flat[k] = eps
                    fd.flat[k] = (sess.run(loss, {x: a + d, i: iv})
                                  - sess.run(loss, {x: a - d, i: iv})) / (2 * eps)
                np.testing.assert_allclose(gv, fd, atol=1e-6)
            np.testing.assert_allclose(sess.run(neg, {x: a, i: 2}), a[-2:])


def test_tensor_bounds_in_while_loop():
    a = np.arange(12, dtype=np.float32).reshape(6, 2)
    with tf.Graph().as_default():
        x = tf.constant(a)

        def body(j, acc):
            return j + 1, acc + tf.reduce_sum(x[j * 2:(j + 1) * 2])
        _, total = tf.while_loop(lambda j, acc: j < 3, body, [tf.constant(0), tf.constant(0.0)])
        with tf.Session() as sess:
            assert sess.run(total) == pytest.approx(a.sum())


def test_float_tensor_bound_is_rejected():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="scalar int tensor"):
            tf.zeros([4])[tf.constant(1.5) * tf.placeholder(tf.float32, []):]


def test_strided_slice_with_tensor_entries_ptb_style():
    """``tf.strided_slice(data, [0, i * n], [b, (i + 1) * n])`` with ``i`` from a
    range_input_producer, as TF's PTB reader slices; then ``set_shape`` as the reader does."""
    data = np.arange(30, dtype=np.int32).reshape(3, 10)
    with tf.Graph().as_default():
        i = tf.placeholder(tf.int32, [])
        x = tf.strided_slice(data, [0, i * 2], [3, (i + 1) * 2])
        assert x.shape.as_list() == [3, None]
        x.set_shape([3, 2])
        y = tf.strided_slice(data, [0, i * 2 + 1], [3, (i + 1) * 2 + 1])
        row = tf.strided_slice(data, [i], [i + 1], shrink_axis_mask=1)
        with tf.Session() as sess:
            for iv in (0, 3):
                xv, yv = sess.run([x, y], {i: iv})
                np.testing.assert_array_equal(xv, data[:, iv * 2:(iv + 1) * 2])
                np.testing.assert_array_equal(yv, data[:, iv * 2 + 1:(iv + 1) * 2 + 1])
            np.testing.assert_array_equal(sess.run(row, {i: 2}), data[2])


def test_strided_slice_non_static_whole_begin_is_rejected():
    with tf.Graph().as_default():
        b = tf.placeholder(tf.int32, [2])
        with pytest.raises(TypeError, match="must be static"):
            tf.strided_slice(tf.zeros([3, 4]), b, [3, 4])
