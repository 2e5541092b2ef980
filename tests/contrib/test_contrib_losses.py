"""``tf.contrib.losses``: contrib's argument order (predictions/logits first) over
``tf.losses``, the LOSSES collection, and the unreduced ``hinge_loss``."""
import numpy as np

import estimator_npu as tf


def _run(t):
    with tf.Session() as sess:
        return sess.run(t)


def test_argument_order_matches_tf_losses():
    rng = np.random.RandomState(0)
    logits = rng.randn(4, 3).astype(np.float32)
    labels01 = (rng.rand(4, 3) > 0.5).astype(np.float32)
    onehot = np.eye(3, dtype=np.float32)[[0, 2, 1, 2]]
    probs = 1.0 / (1.0 + np.exp(-logits))
    with tf.Graph().as_default():
        cl = tf.contrib.losses
        pairs = [
            (cl.sigmoid_cross_entropy(logits, labels01),
             tf.losses.sigmoid_cross_entropy(labels01, logits)),
            (cl.softmax_cross_entropy(logits, onehot, label_smoothing=0.1),
             tf.losses.softmax_cross_entropy(onehot, logits, label_smoothing=0.1)),
            (cl.sparse_softmax_cross_entropy(logits, np.array([0, 2, 1, 2])),
             tf.losses.sparse_softmax_cross_entropy(np.array([0, 2, 1, 2]), logits)),
            (cl.mean_squared_error(probs, labels01), tf.losses.mean_squared_error(labels01, probs)),
            (cl.log_loss(probs, labels01), tf.losses.log_loss(labels01, probs)),
            (cl.absolute_difference(probs, labels01),
             tf.losses.absolute_difference(labels01, probs)),
        ]
        got = _run([[a, b] for a, b in pairs])
        assert len(tf.get_collection(tf.GraphKeys.LOSSES)) == 2 * len(pairs)
    for (a, b) in got:
        np.testing.assert_allclose(a, b, rtol=1e-6)
    # the sigmoid cross entropy by hand (the contrib mean over all elements)
    want = np.mean(np.maximum(logits, 0) - logits * labels01 + np.log1p(np.exp(-abs(logits))))
    np.testing.assert_allclose(got[0][0], want, rtol=1e-5)


def test_hinge_loss_is_elementwise():
    logits = np.array([[2.0, -0.5], [0.3, -3.0]], np.float32)
    labels = np.array([[1.0, 1.0], [0.0, 0.0]], np.float32)
    with tf.Graph().as_default():
        out = _run(tf.contrib.losses.hinge_loss(logits, labels))
    np.testing.assert_allclose(out, np.maximum(0.0, 1.0 - (2 * labels - 1) * logits), rtol=1e-6)
    assert out.shape == (2, 2)
