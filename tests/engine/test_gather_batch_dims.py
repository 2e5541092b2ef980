"""``tf.gather(..., batch_dims=b)``: each batch position gathers from its own slice of
``params`` (TF's rule), checked against a per-batch numpy loop; shapes as TF infers them;
a combination we do not build is an error, not a silently ignored argument."""
import numpy as np
import pytest

import estimator_npu as tf


def _reference(p, i, b):
    out = np.empty(i.shape + p.shape[b + 1:], p.dtype)
    for pos in np.ndindex(*i.shape[:b]):
        out[pos] = np.take(p[pos], i[pos], axis=0)
    return out


@pytest.mark.parametrize("b", [1, 2, -1])
def test_batch_dims_gathers_per_batch_position(b):
    rng = np.random.default_rng(0)
    p = rng.standard_normal((2, 3, 5, 4))
    bb = b % 3 if b < 0 else b
    i = rng.integers(0, p.shape[bb], (2, 3, 6)[:bb] + (6,))
    with tf.Graph().as_default():
        pt = tf.placeholder(tf.float64, [2, None, None, 4])
        it = tf.placeholder(tf.int32, i.shape)
        y = tf.gather(pt, it, axis=bb, batch_dims=b)
        assert y.shape.as_list() == ([2, None, 6, 4] if bb == 2 else [2, 6, None, 4])  # as TF
        dp = tf.gradients(tf.reduce_sum(y * y), pt)[0]
        with tf.Session() as sess:
            got, grad = sess.run([y, dp], {pt: p, it: i})
    want = _reference(p, i, bb)
    np.testing.assert_array_equal(got, want)
    # d/dp sum(y^2) = 2 * p * (times each element was gathered)
    counts = np.zeros(p.shape)
    for pos in np.ndindex(*i.shape[:bb]):
        np.add.at(counts[pos], i[pos], 1)
    np.testing.assert_allclose(grad, 2 * p * counts)


def test_batch_dims_with_another_axis_is_an_error():
    with tf.Graph().as_default():
        p = tf.zeros([2, 3, 4])
        with pytest.raises(ValueError, match="batch_dims=1 with axis=2"):
            tf.gather(p, tf.zeros([2, 5], tf.int32), axis=2, batch_dims=1)
