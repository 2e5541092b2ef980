"""tf.keras fit/evaluate/predict and BatchNormalization against real TF 2.15 (graph-mode
tf.compat.v1 Keras), recorded by tools/record_keras_goldens.py."""
import json
import pathlib

import numpy as np
import pytest

import estimator_npu as tf

GOLDENS = json.loads((pathlib.Path(__file__).parent / "keras_goldens.json").read_text())


def _data():
    x = np.linspace(-1, 1, 40).reshape(20, 2).astype(np.float32)
    y = (x[:, :1] * 2 - x[:, 1:] > 0).astype(np.float32)
    return x, np.concatenate([y, 1 - y], 1)


OPTIMIZERS = {
    "sgd_categorical": (lambda: tf.keras.optimizers.SGD(0.1), "categorical_crossentropy",
                        ["acc"]),
    "adam_sparse": (lambda: tf.keras.optimizers.Adam(0.05), "sparse_categorical_crossentropy",
                    ["accuracy"]),
    "rmsprop_mse": (lambda: tf.keras.optimizers.RMSprop(0.01), "mse", ["mae"]),
    "momentum_categorical": (lambda: tf.keras.optimizers.SGD(0.1, momentum=0.9),
                             "categorical_crossentropy", ["accuracy"]),
}


@pytest.mark.parametrize("case", sorted(OPTIMIZERS))
def test_fit_matches_tf(case):
    tf.keras.backend.clear_session()
    make_opt, loss, metrics = OPTIMIZERS[case]
    x, y = _data()
    if loss == "sparse_categorical_crossentropy":
        y = y[:, :1]
    init = tf.keras.initializers.Constant
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(4, activation="relu", input_shape=(2,),
                              kernel_initializer=init(np.linspace(-0.5, 0.5, 8).reshape(2, 4)),
                              bias_initializer=init(0.1)),
        tf.keras.layers.Dense(2, activation="softmax",
                              kernel_initializer=init(np.linspace(0.4, -0.3, 8).reshape(4, 2)))])
    model.compile(optimizer=make_opt(), loss=loss, metrics=metrics)
    h = model.fit(x, y, batch_size=8, epochs=3, verbose=0, shuffle=False,
                  validation_split=0.2)
    want = GOLDENS[case]
    assert sorted(h.history) == sorted(want["history"])
    for key, values in want["history"].items():
        np.testing.assert_allclose(h.history[key], values, rtol=2e-5, atol=1e-6, err_msg=key)
    assert h.epoch == [0, 1, 2]
    np.testing.assert_allclose(model.evaluate(x, y, batch_size=7, verbose=0),
                               want["evaluate"], rtol=2e-5)
    np.testing.assert_allclose(model.predict(x[:4]), want["predict"], rtol=2e-5)


@pytest.mark.parametrize("case,shape", [("bn_4d", (2, 4, 4, 3)), ("bn_2d", (6, 3))])
def test_batch_normalization_moving_stats_match_tf(case, shape):
    """4-D inputs take the fused path (unbiased variance in the moving average), 2-D the
    moments path; updates are in layer.updates, not in UPDATE_OPS."""
    tf.keras.backend.clear_session()
    x = tf.placeholder(tf.float32, [None] + list(shape[1:]))
    bn = tf.keras.layers.BatchNormalization()
    y = bn(x, training=True)
    assert tf.get_collection(tf.GraphKeys.UPDATE_OPS) == []
    assert len(bn.updates) == 2
    assert [v.name for v in bn.weights] == [f"batch_normalization/{n}:0" for n in (
        "gamma", "beta", "moving_mean", "moving_variance")]
    assert [v.name for v in bn.trainable_weights] == ["batch_normalization/gamma:0",
                                                      "batch_normalization/beta:0"]
    sess = tf.keras.backend.get_session()
    xv = (np.arange(np.prod(shape), dtype=np.float32).reshape(shape) ** 1.5) / 10
    out = sess.run([y] + bn.updates, {x: xv})
    want = GOLDENS[case]
    np.testing.assert_allclose(np.sum(out[0] ** 2), want["y_sum"], rtol=1e-5)
    for got, w in zip(sess.run(bn.weights), want["weights"]):
        np.testing.assert_allclose(got, w, rtol=1e-5)


def _det(weights):
    return [np.cos(np.arange(w.size) * 0.7 + i).reshape(w.shape).astype(np.float32) * 0.5
            for i, w in enumerate(weights)]


def test_recurrent_layers_match_tf():
    """LSTM/GRU/SimpleRNN/Bidirectional with the same weights give TF's outputs, and an
    LSTM model trains through the time loop as TF's does."""
    tf.keras.backend.clear_session()
    want = GOLDENS["rnn"]
    x = (np.sin(np.arange(2 * 5 * 3) * 0.3).reshape(2, 5, 3)).astype(np.float32)
    inp = tf.keras.Input((5, 3))
    L = tf.keras.layers
    layers = {"lstm": L.LSTM(4, return_sequences=True), "gru": L.GRU(3),
              "simple_rnn": L.SimpleRNN(2, return_state=True),
              "bilstm": L.Bidirectional(L.LSTM(2, return_sequences=True)),
              "gru_back": L.GRU(2, go_backwards=True)}
    outs = {k: layer(inp) for k, layer in layers.items()}
    assert [v.op.name for v in layers["lstm"].weights] == [
        "lstm/lstm_cell/kernel", "lstm/lstm_cell/recurrent_kernel", "lstm/lstm_cell/bias"]
    assert layers["bilstm"].weights[0].op.name == \
        "bidirectional/forward_lstm_1/lstm_cell/kernel"
    sess = tf.keras.backend.get_session()
    for layer in layers.values():
        layer.set_weights(_det(layer.get_weights()))
    for k, o in outs.items():
        got = sess.run(o, {inp: x}) if isinstance(o, list) else [sess.run(o, {inp: x})]
        assert len(got) == len(want[k]), k
        for g, w in zip(got, want[k]):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=k)
    tf.keras.backend.clear_session()
    model = tf.keras.Sequential([L.LSTM(4, input_shape=(5, 3)),
                                 L.Dense(2, activation="softmax")])
    model.set_weights(_det(model.get_weights()))
    model.compile(tf.keras.optimizers.SGD(0.5), "categorical_crossentropy", ["acc"])
    xs = np.concatenate([x, -x, x * 0.5, -x * 0.5], 0)
    ys = np.eye(2)[[0, 0, 1, 1, 0, 0, 1, 1]].astype(np.float32)
    h = model.fit(xs, ys, batch_size=4, epochs=3, verbose=0, shuffle=False)
    for key, values in want["fit"].items():
        np.testing.assert_allclose(h.history[key], values, rtol=2e-5, err_msg=key)


def test_cnn_with_batch_norm_and_regularizer_trains_as_tf():
    """Conv2D + BatchNormalization (fit feeds the learning phase, runs model.updates) +
    MaxPooling2D + Dense with an l2 penalty (in the loss), SGD with momentum."""
    tf.keras.backend.clear_session()
    L = tf.keras.layers
    model = tf.keras.Sequential([
        L.Conv2D(3, 3, padding="same", activation="relu", input_shape=(6, 6, 2)),
        L.BatchNormalization(), L.MaxPooling2D(), L.Dropout(0.0), L.Flatten(),
        L.Dense(3, activation="softmax", kernel_regularizer=tf.keras.regularizers.l2(0.01))])
    model.set_weights(_det(model.get_weights()))
    model.compile(tf.keras.optimizers.SGD(0.1, momentum=0.5), "categorical_crossentropy",
                  ["acc"])
    rng = np.random.RandomState(3)
    x = rng.rand(24, 6, 6, 2).astype(np.float32)
    y = np.eye(3, dtype=np.float32)[np.arange(24) % 3]
    x[:, :2, :, 0] += y[:, :1, None] * 2
    h = model.fit(x, y, batch_size=8, epochs=3, verbose=0, shuffle=False)
    want = GOLDENS["cnn"]
    for key, values in want["history"].items():
        np.testing.assert_allclose(h.history[key], values, rtol=2e-5, err_msg=key)
    for got, w in zip(model.get_weights(), want["weights"]):
        np.testing.assert_allclose(got, w, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(model.predict(x[:4]), want["predict"], rtol=1e-4)
