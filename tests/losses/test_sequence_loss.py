"""tf.contrib.seq2seq.sequence_loss against a numpy reference of TF1's contrib definition:
per-step sparse softmax cross entropy times the weights; averages divide by the summed
weights, sums by the count of non-zero weights, over the axes the flags select."""
import numpy as np
import pytest

import estimator_npu as tf


def _xent(logits, targets):
    m = logits.max(-1, keepdims=True)
    lse = m[..., 0] + np.log(np.exp(logits - m).sum(-1))
    return lse - np.take_along_axis(logits, targets[..., None], -1)[..., 0]


def _reference(logits, targets, w, avg_t, avg_b, sum_t, sum_b):
    ce = _xent(logits, targets) * w
    div = lambda a, b: np.where(b == 0, 0.0, a / np.where(b == 0, 1, b))  # noqa: E731
    if avg_t and avg_b:
        return div(ce.sum(), w.sum())
    if sum_t and sum_b:
        return div(ce.sum(), np.count_nonzero(w))
    if avg_t or avg_b:
        ax = 0 if avg_b else 1
        return div(ce.sum(ax), w.sum(ax))
    if sum_t or sum_b:
        ax = 0 if sum_b else 1
        return div(ce.sum(ax), np.count_nonzero(w, axis=ax))
    return ce


FLAGS = [(True, True, False, False), (False, True, False, False), (True, False, False, False),
         (False, False, False, False), (False, False, True, True), (False, False, True, False),
         (False, False, False, True)]


@pytest.mark.parametrize("flags", FLAGS)
def test_sequence_loss_matches_the_reference(flags):
    rng = np.random.RandomState(0)
    logits = rng.randn(2, 3, 5).astype(np.float32)
    targets = rng.randint(0, 5, (2, 3)).astype(np.int32)
    w = np.array([[1, 1, 0], [1, 0.5, 1]], np.float32)
    g = tf.Graph()
    with g.as_default():
        lp = tf.placeholder(tf.float32, [None, None, 5])
        loss = tf.contrib.seq2seq.sequence_loss(lp, targets, w, *flags)
        grad, = tf.gradients(tf.reduce_sum(loss), [lp])
        with tf.Session() as s:
            value, dv = s.run([loss, grad], {lp: logits})
    np.testing.assert_allclose(value, _reference(logits, targets, w, *flags), rtol=1e-5)
    assert dv.shape == logits.shape and np.all(dv[0, 2] == 0)  # weight 0: no gradient


def test_sequence_loss_checks_ranks_and_flags():
    with pytest.raises(ValueError, match="logits must be a 3D"):
        tf.contrib.seq2seq.sequence_loss(tf.zeros([2, 5]), tf.zeros([2, 3], tf.int32),
                                         tf.ones([2, 3]))
    with pytest.raises(ValueError, match="cannot both be set"):
        tf.contrib.seq2seq.sequence_loss(tf.zeros([2, 3, 5]), tf.zeros([2, 3], tf.int32),
                                         tf.ones([2, 3]), sum_over_timesteps=True)
    from estimator_npu.compat.missing import NotImplementedName
    with pytest.raises(NotImplementedName, match=r"tf\.contrib\.seq2seq\.BasicDecoder"):
        tf.contrib.seq2seq.BasicDecoder
