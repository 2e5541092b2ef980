"""tf.nn.ctc_loss beyond the sweep's TF values (tests/conformance/test_tf_sweep.py): the
loss of a case small enough to sum by hand, batch-major inputs, no second derivative and
the argument errors."""
import itertools

import numpy as np
import pytest

import estimator_npu as tf


def _labels():
    return tf.SparseTensor(np.array([[0, 0]], np.int64), np.array([0], np.int32), [1, 1])


def test_loss_is_minus_log_of_the_summed_path_probabilities():
    x = np.random.RandomState(0).normal(0, 1, (3, 1, 3))
    p = np.exp(x[:, 0]) / np.exp(x[:, 0]).sum(1, keepdims=True)
    # every 3-frame path over {0, blank=2} that collapses to [0]
    total = sum(np.prod([p[t, c] for t, c in enumerate(path)])
                for path in itertools.product([0, 2], repeat=3)
                if [c for i, c in enumerate(path) if c != 2 and (i == 0 or path[i - 1] != c)]
                == [0])
    with tf.Session() as sess:
        got, batch_major = sess.run([tf.nn.ctc_loss(_labels(), x, [3]), tf.nn.ctc_loss(
            _labels(), np.transpose(x, [1, 0, 2]), [3], time_major=False)])
    np.testing.assert_allclose(got, [-np.log(total)], rtol=1e-12)
    np.testing.assert_allclose(batch_major, got, rtol=1e-12)


def test_no_second_derivative_and_clear_errors():
    x = tf.constant(np.zeros((2, 1, 3)))
    g = tf.gradients(tf.nn.ctc_loss(_labels(), x, [2]), x)[0]
    with pytest.raises(LookupError, match="no second derivative"):
        tf.gradients(tf.reduce_sum(g * g), x)
    with pytest.raises(TypeError, match="labels must be a SparseTensor"):
        tf.nn.ctc_loss(np.array([[0]]), x, [2])
    with pytest.raises(ValueError, match="must be 3-D"):
        tf.nn.ctc_loss(_labels(), np.zeros((2, 3)), [2])
    with pytest.raises(ValueError, match="sequence_length is required"):
        tf.nn.ctc_loss(_labels(), x)
    bad = tf.SparseTensor(np.array([[0, 0]], np.int64), np.array([2], np.int32), [1, 1])
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                             match="is the blank"):
        sess.run(tf.nn.ctc_loss(bad, x, [2]))
