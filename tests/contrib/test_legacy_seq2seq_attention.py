"""``tf.contrib.legacy_seq2seq``'s attention decoder, embedding attention seq2seq and
``model_with_buckets`` (TF's translate.py): values against a numpy transcription of TF1's
attention equations, the variable names TF1 gives, sharing across buckets, a finite-
difference gradient through the attention, and argument errors."""
import numpy as np
import pytest

import estimator_npu as tf

B, L, A, N, IN, OUT, T = 3, 4, 6, 5, 4, 7, 3


def _tanh_rnn(x, h, w, b):
    return np.tanh(np.concatenate([x, h], 1) @ w + b)


def _reference(v, dec, states, h0, heads, init_attn):
    """TF1's attention_decoder on numpy values ``v`` (variable name -> value)."""
    def lin(args, scope):
        return np.concatenate(args, 1) @ v[scope + "kernel"] + v[scope + "bias"]

    feats = [states @ v[f"dec/AttnW_{a}"].reshape(A, A) for a in range(heads)]

    def attention(q):
        reads = []
        for a in range(heads):
            y = lin([q], f"dec/Attention_{a}/")
            s = (v[f"dec/AttnV_{a}"] * np.tanh(feats[a] + y[:, None, :])).sum(2)
            w = np.exp(s - s.max(1, keepdims=True))
            w /= w.sum(1, keepdims=True)
            reads.append((w[:, :, None] * states).sum(1))
        return reads

    attns = attention(h0) if init_attn else [np.zeros((B, A))] * heads
    h, outs = h0, []
    for x in dec:
        h = _tanh_rnn(lin([x] + attns, "dec/"), h, v["dec/basic_rnn_cell/kernel"],
                      v["dec/basic_rnn_cell/bias"])
        attns = attention(h)
        outs.append(lin([h] + attns, "dec/AttnOutputProjection/"))
    return outs, h


@pytest.mark.parametrize("heads,init_attn", [(1, False), (2, True)])
def test_attention_decoder_matches_tf1_equations(heads, init_attn):
    rng = np.random.RandomState(0)
    dec_v = [rng.randn(B, IN) for _ in range(T)]
    states_v, h0_v = rng.randn(B, L, A), rng.randn(B, N)
    with tf.Graph().as_default():
        dec = [tf.placeholder(tf.float64, [None, IN]) for _ in range(T)]
        states = tf.placeholder(tf.float64, [None, L, A])
        h0 = tf.placeholder(tf.float64, [None, N])
        cell = tf.nn.rnn_cell.BasicRNNCell(N)
        outs, state = tf.contrib.legacy_seq2seq.attention_decoder(
            dec, h0, states, cell, output_size=OUT, num_heads=heads, scope="dec",
            initial_state_attention=init_attn, dtype=tf.float64)
        names = sorted(w.op.name for w in tf.trainable_variables())
        expect = sorted(["dec/kernel", "dec/bias", "dec/basic_rnn_cell/kernel",
                         "dec/basic_rnn_cell/bias", "dec/AttnOutputProjection/kernel",
                         "dec/AttnOutputProjection/bias"]
                        + [f"dec/{k}_{a}" for a in range(heads) for k in ("AttnW", "AttnV")]
                        + [f"dec/Attention_{a}/{k}" for a in range(heads)
                           for k in ("kernel", "bias")])
        assert names == expect
        assert [o.shape.as_list() for o in outs] == [[None, OUT]] * T
        loss = tf.add_n([tf.reduce_sum(tf.sin(o)) for o in outs])
        grad = tf.gradients(loss, states)[0]
        feed = dict(zip(dec, dec_v))
        feed.update({states: states_v, h0: h0_v})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            # non-zero biases so that every term of the equations is exercised
            for w in tf.trainable_variables():
                if w.op.name.endswith("bias"):
                    sess.run(w.assign(rng.randn(*w.shape.as_list()) * 0.3))
            v = {w.op.name: sess.run(w) for w in tf.trainable_variables()}
            got, got_state, g = sess.run([outs, state, grad], feed)
            ref, ref_state = _reference(v, dec_v, states_v, h0_v, heads, init_attn)
            for a, b in zip(got, ref):
                np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(got_state, ref_state, rtol=1e-10, atol=1e-12)
            eps = 1e-6
            for idx in [(0, 0, 0), (1, 2, 3), (2, 3, 5)]:
                d = np.zeros_like(states_v)
                d[idx] = eps
                up = sess.run(loss, {**feed, states: states_v + d})
                down = sess.run(loss, {**feed, states: states_v - d})
                assert g[idx] == pytest.approx((up - down) / (2 * eps), rel=1e-5, abs=1e-8)


def test_model_with_buckets_shares_variables_and_trains():
    """translate.py's model shape: two buckets, two GRU layers. A fresh cell per bucket:
    the encoder's ``copy.deepcopy(cell)`` of a cell that an earlier bucket built fails in
    TF as here (it holds graph tensors)."""
    rng = np.random.RandomState(1)
    buckets = [(2, 3), (4, 5)]
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        enc = [tf.placeholder(tf.int32, [None]) for _ in range(4)]
        dec = [tf.placeholder(tf.int32, [None]) for _ in range(6)]
        weights = [tf.placeholder(tf.float32, [None]) for _ in range(5)]
        targets = dec[1:]

        def seq2seq(e, d):
            cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(8) for _ in range(2)])
            return tf.contrib.legacy_seq2seq.embedding_attention_seq2seq(
                e, d, cell, num_encoder_symbols=10, num_decoder_symbols=12,
                embedding_size=6)
        outputs, losses = tf.contrib.legacy_seq2seq.model_with_buckets(
            enc, dec, targets, weights, buckets, seq2seq)
        assert [len(o) for o in outputs] == [3, 5] and len(losses) == 2
        assert outputs[1][0].shape.as_list() == [None, 12]
        n_vars = len(tf.trainable_variables())
        names = [w.op.name for w in tf.trainable_variables()]
        assert "embedding_attention_seq2seq/embedding_attention_decoder/embedding" in names
        assert len(set(names)) == n_vars  # bucket 2 reused bucket 1's variables
        opt = tf.train.GradientDescentOptimizer(0.5)
        train = [opt.minimize(loss) for loss in losses]
        feed = {p: rng.randint(0, 10, size=4) for p in enc}
        feed.update({p: rng.randint(0, 12, size=4) for p in dec})
        feed.update({p: np.ones(4, np.float32) for p in weights})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first = sess.run(losses[1], feed)
            for _ in range(15):
                sess.run(train[1], feed)
            assert sess.run(losses[1], feed) < 0.8 * first
        with pytest.raises(ValueError, match=r"encoder_inputs \(4\) must be at least .* \(6\)"):
            tf.contrib.legacy_seq2seq.model_with_buckets(enc, dec, targets, weights,
                                                         [(6, 5)], seq2seq)


def test_attention_decoder_bad_arguments():
    with tf.Graph().as_default():
        cell = tf.nn.rnn_cell.BasicRNNCell(3)
        x = [tf.zeros([2, 4])]
        with pytest.raises(ValueError, match=r"attention_states must be \[batch, length, "):
            tf.contrib.legacy_seq2seq.attention_decoder(x, tf.zeros([2, 3]), tf.zeros([2, 5]),
                                                        cell)
        with pytest.raises(ValueError, match="num_heads must be >= 1"):
            tf.contrib.legacy_seq2seq.attention_decoder(x, tf.zeros([2, 3]),
                                                        tf.zeros([2, 5, 3]), cell, num_heads=0)
        with pytest.raises(ValueError, match="could not infer the input size"):
            tf.contrib.legacy_seq2seq.attention_decoder(
                [tf.placeholder(tf.float32, [2, None])], tf.zeros([2, 3]),
                tf.zeros([2, 5, 3]), cell)
