"""``tf.nn.in_top_k`` as TF's kernel: ties at the boundary count as in the top k; a row
holding a non-finite prediction, or a target out of range, gives False (TF 2.15 gives
[False, True, False, False, True] for these rows)."""
import numpy as np

import estimator_npu as tf


def test_in_top_k_ties_non_finite_rows_and_bad_targets():
    p = np.array([[1, 2, 3, 4, 5, 6], [1, 1, 1, 1, 1, 1], [np.nan, 1, 2, 3, 4, 5],
                  [np.inf, 1, 2, 3, 4, 5], [6, 5, 4, 3, 2, 1]], np.float32)
    t = np.array([0, 0, 1, 5, 4], np.int32)
    with tf.Session() as sess:
        got = sess.run(tf.nn.in_top_k(tf.constant(p), tf.constant(t), 5))
        bad = sess.run(tf.nn.in_top_k(tf.constant(p[:2]), tf.constant([6, -1]), 5))
    assert got.tolist() == [False, True, False, False, True]
    assert bad.tolist() == [False, False]
