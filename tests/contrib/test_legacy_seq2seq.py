"""``tf.contrib.legacy_seq2seq`` against numpy: the TF1 formulas of the losses, the
decoder's loop function and variable sharing, gradients against finite differences."""

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.contrib import legacy_seq2seq as s2s

B, T, C = 3, 4, 5


def _np_xent(logits, labels):
    z = logits - logits.max(-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
    return -logp[np.arange(len(labels)), labels]


@pytest.fixture
def data():
    rng = np.random.default_rng(5)
    logits = rng.normal(size=(T, B, C))
    targets = rng.integers(0, C, size=(T, B)).astype(np.int32)
    weights = rng.uniform(0.0, 1.0, size=(T, B))
    weights[:, 1] = 0.0                     # an all-zero example: divided by 1e-12, stays 0
    return logits, targets, weights


def _want(logits, targets, weights, average=True):
    per = sum(_np_xent(logits[t], targets[t]) * weights[t] for t in range(T))
    return per / (weights.sum(0) + 1e-12) if average else per


@pytest.mark.parametrize("average", [True, False])
def test_losses_match_numpy(data, average):
    logits, targets, weights = data
    with tf.Graph().as_default(), tf.Session() as s:
        lp = [tf.placeholder(tf.float64, [None, C]) for _ in range(T)]
        by_ex = s2s.sequence_loss_by_example(lp, list(targets), list(weights),
                                             average_across_timesteps=average)
        total = s2s.sequence_loss(lp, list(targets), list(weights),
                                  average_across_timesteps=average)
        summed = s2s.sequence_loss(lp, list(targets), list(weights),
                                   average_across_timesteps=average,
                                   average_across_batch=False)
        assert by_ex.op.name.startswith("sequence_loss_by_example")
        got = s.run([by_ex, total, summed], dict(zip(lp, logits)))
    want = _want(logits, targets, weights, average)
    np.testing.assert_allclose(got[0], want, rtol=1e-12)
    np.testing.assert_allclose(got[1], want.sum() / B, rtol=1e-12)
    np.testing.assert_allclose(got[2], want.sum(), rtol=1e-12)


def test_custom_loss_function_gets_labels_and_logits_by_name():
    """The MorvanZhou regression script's form: a squared error over flat vectors."""
    rng = np.random.default_rng(1)
    pred, ys = rng.normal(size=12), rng.normal(size=12)
    with tf.Graph().as_default(), tf.Session() as s:
        loss = s2s.sequence_loss_by_example(
            [tf.constant(pred)], [tf.constant(ys)], [tf.ones([12], tf.float64)],
            softmax_loss_function=lambda labels, logits: tf.square(labels - logits))
        np.testing.assert_allclose(s.run(loss), (ys - pred) ** 2 / (1 + 1e-12), rtol=1e-12)


@pytest.mark.parametrize("dynamic", [False, True])
def test_loss_gradients(data, dynamic, gradcheck):
    gc = gradcheck
    logits, targets, weights = data

    gc.check_grads(lambda a, b: s2s.sequence_loss([a, b], list(targets[:2]),
                                                  list(weights[:2])),
                   [logits[0], logits[1]], np.random.default_rng(0), dynamic=dynamic,
                   rtol=1e-5, atol=1e-8)


def test_rnn_decoder_loop_function_and_seq2seq_variables():
    rng = np.random.default_rng(2)
    x = [rng.normal(size=(2, 3)).astype(np.float32) for _ in range(3)]
    with tf.Graph().as_default(), tf.Session() as s:
        cell = tf.nn.rnn_cell.BasicRNNCell(3)
        seen = []

        def loop(prev, i):
            seen.append(i)
            return prev * 2.0
        outs, state = s2s.rnn_decoder(x, tf.zeros([2, 3]), cell, loop_function=loop)
        assert seen == [1, 2] and len(outs) == 3
        s.run(tf.global_variables_initializer())
        kernel, bias = s.run(cell.variables)
        o = s.run(outs + [state])
    h = np.zeros((2, 3), np.float32)
    inp = x[0]
    for i in range(3):
        h = np.tanh(np.concatenate([inp, h], 1) @ kernel + bias)
        np.testing.assert_allclose(o[i], h, rtol=1e-5, atol=1e-6)
        inp = 2.0 * h
    np.testing.assert_allclose(o[3], h, rtol=1e-5, atol=1e-6)

    for fn, want in [(s2s.basic_rnn_seq2seq, 4), (s2s.tied_rnn_seq2seq, 2)]:
        with tf.Graph().as_default():
            outs, _ = fn(x, x, tf.nn.rnn_cell.BasicRNNCell(3))
            assert len(outs) == 3 and outs[0].shape.as_list() == [2, 3]
            assert len(tf.trainable_variables()) == want, tf.trainable_variables()


def test_bad_inputs_are_named():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="same length"):
            s2s.sequence_loss_by_example([tf.zeros([2, 3])], [[0, 1], [1, 0]], [[1., 1.]])
        with pytest.raises(TypeError, match="logits must be a non-empty list"):
            s2s.sequence_loss_by_example(tf.zeros([2, 3]), [[0, 1]], [[1., 1.]])
    with pytest.raises(AttributeError, match="does not implement"):
        s2s.one2many_rnn_seq2seq  # noqa: B018


def test_embedding_rnn_seq2seq_variables_and_feed_previous():
    """Variable names and shapes as TF1 makes them; with ``feed_previous`` the decoder's
    later inputs are the embeddings of the previous steps' argmax symbols, so its given
    inputs after the first do not matter."""
    rng = np.random.default_rng(4)
    enc = [rng.integers(0, 6, size=2).astype(np.int32) for _ in range(3)]
    dec = [rng.integers(0, 5, size=2).astype(np.int32) for _ in range(3)]
    for feed in (False, True):
        with tf.Graph().as_default(), tf.Session() as s:
            tf.set_random_seed(1)
            dp = [tf.placeholder(tf.int32, [None]) for _ in dec]
            outs, state = s2s.embedding_rnn_seq2seq(
                enc, dp, tf.nn.rnn_cell.BasicLSTMCell(4), num_encoder_symbols=6,
                num_decoder_symbols=5, embedding_size=3, feed_previous=feed)
            names = {v.name: v.shape.as_list() for v in tf.trainable_variables()}
            assert names == {
                "embedding_rnn_seq2seq/rnn/embedding_wrapper/embedding:0": [6, 3],
                "embedding_rnn_seq2seq/rnn/embedding_wrapper/basic_lstm_cell/kernel:0": [7, 16],
                "embedding_rnn_seq2seq/rnn/embedding_wrapper/basic_lstm_cell/bias:0": [16],
                "embedding_rnn_seq2seq/embedding_rnn_decoder/embedding:0": [5, 3],
                "embedding_rnn_seq2seq/embedding_rnn_decoder/rnn_decoder/"
                "output_projection_wrapper/basic_lstm_cell/kernel:0": [7, 16],
                "embedding_rnn_seq2seq/embedding_rnn_decoder/rnn_decoder/"
                "output_projection_wrapper/basic_lstm_cell/bias:0": [16],
                "embedding_rnn_seq2seq/embedding_rnn_decoder/rnn_decoder/"
                "output_projection_wrapper/kernel:0": [4, 5],
                "embedding_rnn_seq2seq/embedding_rnn_decoder/rnn_decoder/"
                "output_projection_wrapper/bias:0": [5]}, names
            assert [o.shape.as_list() for o in outs] == [[2, 5]] * 3
            loss = s2s.sequence_loss(outs, dec, [np.ones(2, np.float32)] * 3)
            grads = tf.gradients(loss, tf.trainable_variables())
            assert all(g is not None for g in grads)
            s.run(tf.global_variables_initializer())
            a = s.run(outs, dict(zip(dp, dec)))
            b = s.run(outs, dict(zip(dp, [dec[0]] + [(d + 1) % 5 for d in dec[1:]])))
        np.testing.assert_array_equal(a[0], b[0])
        assert np.array_equal(a[2], b[2]) == feed
