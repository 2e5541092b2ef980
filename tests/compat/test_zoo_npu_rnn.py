"""``npu_bridge.estimator.npu.npu_dynamic_rnn``: DynamicRNN / DynamicGRUV2 against numpy
references of the adapter's documented step, their gradients against finite differences,
and the import path the ModelZoo LSTM script uses."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import compat
from estimator_npu.npu.npu_dynamic_rnn import DynamicGRUV2, DynamicRNN

T, B, I, H = 4, 3, 5, 6


def _sig(z):
    return 1 / (1 + np.exp(-z))


def _lstm_reference(x, w, b, forget_bias, c, h, lengths=None):
    outs = [np.zeros((T, B, H)) for _ in range(8)]
    for t in range(T):
        z = np.concatenate([x[t], h], 1) @ w + b
        i, j, f, o = np.split(z, 4, 1)
        i, j, f, o = _sig(i), np.tanh(j), _sig(f + forget_bias), _sig(o)
        nc = f * c + i * j
        nh = o * np.tanh(nc)
        live = np.ones((B, 1), bool) if lengths is None else (t < lengths)[:, None]
        for k, v in enumerate([nh, nh, nc, i, j, f, o, np.tanh(nc)]):
            outs[k][t] = np.where(live, v, 0.0)
        c, h = np.where(live, nc, c), np.where(live, nh, h)
    return outs


@pytest.mark.parametrize("static", [True, False])
def test_dynamic_rnn_matches_the_lstm_step(static):
    rng = np.random.RandomState(0)
    xv = rng.randn(T, B, I).astype(np.float32)
    h0, c0 = rng.randn(1, B, H).astype(np.float32), rng.randn(1, B, H).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [T, B, I] if static else [None, None, I])
        layer = DynamicRNN(H, tf.float32, forget_bias=1.0)
        outs = layer(x)
        again = layer(x, init_h=h0, init_c=c0)          # the same weights
        assert len(outs) == 8 and [v.op.name for v in layer.variables] == [
            "dynamic_rnn/dynamicrnn/w", "dynamic_rnn/dynamicrnn/b"]
        assert layer.kernel.shape.as_list() == [I + H, 4 * H]
        if static:
            assert all(o.shape.as_list() == [T, B, H] for o in outs)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            w, b = sess.run([layer.kernel, layer.bias])
            assert not b.any() and np.abs(w).max() <= np.sqrt(6.0 / (I + H + 4 * H))
            got, got2 = sess.run([outs, again], {x: xv})
    zeros = np.zeros((B, H))
    for g, r in zip(got, _lstm_reference(xv, w, b, 1.0, zeros, zeros)):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-5)
    for g, r in zip(got2, _lstm_reference(xv, w, b, 1.0, c0[0], h0[0])):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-5)


def test_dynamic_rnn_seq_length_and_given_weights():
    rng = np.random.RandomState(1)
    xv = rng.randn(T, B, I).astype(np.float32)
    w = rng.randn(I + H, 4 * H).astype(np.float32) * 0.3
    b = rng.randn(4 * H).astype(np.float32) * 0.1
    lengths = np.array([4, 2, 1], np.int32)
    with tf.Graph().as_default():
        outs = DynamicRNN(H, tf.float32)(tf.constant(xv), seq_length=tf.constant(lengths),
                                          weight=tf.constant(w), bias=tf.constant(b))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(outs)
    zeros = np.zeros((B, H))
    for g, r in zip(got, _lstm_reference(xv, w, b, 0.0, zeros, zeros, lengths)):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-5)


def test_dynamic_rnn_gradients_of_every_output():
    rng = np.random.RandomState(2)
    xv = rng.randn(3, 2, 3)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3, 2, 3])
        layer = DynamicRNN(4, tf.float64, forget_bias=0.5)
        outs = layer(x)
        weights = [rng.randn(*o.shape.as_list()) for o in outs]
        loss = tf.add_n([tf.reduce_sum(o * wt) for o, wt in zip(outs, weights)])
        grads = tf.gradients(loss, [x, layer.kernel])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            gx, gw = sess.run(grads, {x: xv})
            w0 = sess.run(layer.kernel)

            def f(xval, wval):
                sess.run(layer.kernel.assign(wval))
                return sess.run(loss, {x: xval})
            eps = 1e-6
            for idx in [(0, 0, 0), (2, 1, 2), (1, 0, 1)]:
                d = np.zeros_like(xv)
                d[idx] = eps
                num = (f(xv + d, w0) - f(xv - d, w0)) / (2 * eps)
                assert abs(num - gx[idx]) < 1e-6 * max(1, abs(num))
            for idx in [(0, 0), (5, 9), (6, 15)]:
                d = np.zeros_like(w0)
                d[idx] = eps
                num = (f(xv, w0 + d) - f(xv, w0 - d)) / (2 * eps)
                assert abs(num - gw[idx]) < 1e-6 * max(1, abs(num))


def test_dynamic_gru_v2_matches_the_gru_step():
    rng = np.random.RandomState(3)
    xv = rng.randn(T, B, I).astype(np.float32)
    with tf.Graph().as_default():
        layer = DynamicGRUV2(H, tf.float32)
        outs = layer(tf.constant(xv))
        assert len(outs) == 6 and sorted(v.op.name.split("/")[-1] for v in layer.variables) \
            == ["bias_hidden", "bias_input", "weight_hidden", "weight_input"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(outs)
            wi, wh, bi, bh = sess.run([layer._var("dynamicgruv2/" + n) for n in (
                "weight_input", "weight_hidden", "bias_input", "bias_hidden")])
    assert np.abs(wi).max() <= 1 / np.sqrt(H)
    h = np.zeros((B, H))
    for t in range(T):
        xz, xr, xn = np.split(xv[t] @ wi + bi, 3, 1)
        hz, hr, hn = np.split(h @ wh + bh, 3, 1)
        z, r = _sig(xz + hz), _sig(xr + hr)
        n = np.tanh(xn + r * hn)
        h = z * h + (1 - z) * n
        for g, ref in zip(got, [h, h, z, r, n, hn]):
            np.testing.assert_allclose(g[t], ref, rtol=1e-5, atol=1e-5)


def test_unsupported_arguments_say_so():
    with pytest.raises(NotImplementedError, match=r"DynamicRNN\(use_peephole=True\)"):
        DynamicRNN(4, tf.float32, use_peephole=True)
    with pytest.raises(NotImplementedError, match="BIDIRECTIONAL"):
        DynamicRNN(4, tf.float32, direction="BIDIRECTIONAL")
    with pytest.raises(ValueError, match="Invalid direction"):
        DynamicRNN(4, tf.float32, direction="SIDEWAYS")
    with tf.Graph().as_default(), pytest.raises(ValueError, match="input_size"):
        DynamicRNN(4, tf.float32)(tf.placeholder(tf.float32, [3, 2, None]))


def test_adapter_import_path():
    compat.install()
    try:
        from npu_bridge.estimator.npu.npu_dynamic_rnn import DynamicRNN as Aliased
        assert Aliased is DynamicRNN
    finally:
        compat.uninstall()


def test_whole_float_ids_feed_int_placeholders():
    # The ModelZoo LSTM script fills np.zeros (float64) with word ids and feeds int32.
    with tf.Graph().as_default():
        ids = tf.placeholder(tf.int32, [None])
        with tf.Session() as sess:
            assert sess.run(ids + 1, {ids: np.array([3.0, 7.0])}).tolist() == [4, 8]
            # a numpy float array is truncated, as TF1's np.asarray(value, dtype) does
            assert sess.run(ids, {ids: np.array([1.5, -2.7])}).tolist() == [1, -2]
            with pytest.raises(ValueError, match="range"):
                sess.run(ids, {ids: np.array([2.0 ** 40])})
