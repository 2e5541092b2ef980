"""Records tests/keras/keras_goldens.json from real TF (2.15, tf.compat.v1 graph mode):
a small Sequential model trained with constant initial weights and shuffle=False, its
History, evaluate and predict values; the moving statistics of a Keras BatchNormalization
after one training step on 4-D and 2-D inputs.

    /tmp/tf215/bin/python tools/record_keras_goldens.py tests/keras/keras_goldens.json
"""
import json
import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()


def data():
    x = np.linspace(-1, 1, 40).reshape(20, 2).astype(np.float32)
    y = (x[:, :1] * 2 - x[:, 1:] > 0).astype(np.float32)
    return x, np.concatenate([y, 1 - y], 1)


def fit_case(optimizer, loss, metrics):
    tf.keras.backend.clear_session()
    x, y = data()
    init = tf.keras.initializers.Constant
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(4, activation="relu", input_shape=(2,),
                              kernel_initializer=init(np.linspace(-0.5, 0.5, 8).reshape(2, 4)),
                              bias_initializer=init(0.1)),
        tf.keras.layers.Dense(2, activation="softmax",
                              kernel_initializer=init(np.linspace(0.4, -0.3, 8).reshape(4, 2)))])
    model.compile(optimizer=optimizer, loss=loss, metrics=metrics)
    h = model.fit(x, y if loss != "sparse_categorical_crossentropy" else y[:, :1],
                  batch_size=8, epochs=3, verbose=0, shuffle=False, validation_split=0.2)
    ev = model.evaluate(x, y if loss != "sparse_categorical_crossentropy" else y[:, :1],
                        batch_size=7, verbose=0)
    return {"history": {k: [float(v) for v in vs] for k, vs in h.history.items()},
            "evaluate": [float(v) for v in ev], "predict": model.predict(x[:4]).tolist()}


def bn_case(shape):
    tf.keras.backend.clear_session()
    x = tf.placeholder(tf.float32, [None] + list(shape[1:]))
    bn = tf.keras.layers.BatchNormalization()
    y = bn(x, training=True)
    sess = tf.keras.backend.get_session()
    xv = (np.arange(np.prod(shape), dtype=np.float32).reshape(shape) ** 1.5) / 10
    out = sess.run([y] + bn.updates, {x: xv})
    return {"y_sum": float(np.sum(out[0] ** 2)),
            "weights": [w.tolist() for w in sess.run(bn.weights)]}


def _det(weights):
    """Deterministic values for a list of weight arrays."""
    return [np.cos(np.arange(w.size) * 0.7 + i).reshape(w.shape).astype(np.float32) * 0.5
            for i, w in enumerate(weights)]


def rnn_case():
    tf.keras.backend.clear_session()
    x = (np.sin(np.arange(2 * 5 * 3) * 0.3).reshape(2, 5, 3)).astype(np.float32)
    inp = tf.keras.Input((5, 3))
    L = tf.keras.layers
    layers = {"lstm": L.LSTM(4, return_sequences=True), "gru": L.GRU(3),
              "simple_rnn": L.SimpleRNN(2, return_state=True),
              "bilstm": L.Bidirectional(L.LSTM(2, return_sequences=True)),
              "gru_back": L.GRU(2, go_backwards=True)}
    outs = {k: layer(inp) for k, layer in layers.items()}
    sess = tf.keras.backend.get_session()
    for layer in layers.values():
        layer.set_weights(_det(layer.get_weights()))
    got = {k: [np.asarray(v).tolist() for v in (sess.run(o, {inp: x}) if isinstance(o, list)
                                                 else [sess.run(o, {inp: x})])]
           for k, o in outs.items()}
    # training through the time loop
    tf.keras.backend.clear_session()
    model = tf.keras.Sequential([L.LSTM(4, input_shape=(5, 3)),
                                 L.Dense(2, activation="softmax")])
    model.set_weights(_det(model.get_weights()))
    model.compile(tf.keras.optimizers.SGD(0.5), "categorical_crossentropy", ["acc"])
    xs = np.concatenate([x, -x, x * 0.5, -x * 0.5], 0)
    ys = np.eye(2)[[0, 0, 1, 1, 0, 0, 1, 1]].astype(np.float32)
    h = model.fit(xs, ys, batch_size=4, epochs=3, verbose=0, shuffle=False)
    got["fit"] = {k: [float(v) for v in vs] for k, vs in h.history.items()}
    return got


def cnn_data():
    rng = np.random.RandomState(3)
    x = rng.rand(24, 6, 6, 2).astype(np.float32)
    y = np.eye(3, dtype=np.float32)[np.arange(24) % 3]
    x[:, :2, :, 0] += y[:, :1, None] * 2
    return x, y


def cnn_model(L):
    return tf.keras.Sequential([
        L.Conv2D(3, 3, padding="same", activation="relu", input_shape=(6, 6, 2)),
        L.BatchNormalization(), L.MaxPooling2D(), L.Dropout(0.0), L.Flatten(),
        L.Dense(3, activation="softmax", kernel_regularizer=tf.keras.regularizers.l2(0.01))])


def cnn_case():
    tf.keras.backend.clear_session()
    model = cnn_model(tf.keras.layers)
    model.set_weights(_det(model.get_weights()))
    model.compile(tf.keras.optimizers.SGD(0.1, momentum=0.5), "categorical_crossentropy",
                  ["acc"])
    x, y = cnn_data()
    h = model.fit(x, y, batch_size=8, epochs=3, verbose=0, shuffle=False)
    return {"history": {k: [float(v) for v in vs] for k, vs in h.history.items()},
            "weights": [w.tolist() for w in model.get_weights()],
            "predict": model.predict(x[:4]).tolist()}


def main(path):
    goldens = {
        "sgd_categorical": fit_case(tf.keras.optimizers.SGD(0.1), "categorical_crossentropy",
                                    ["acc"]),
        "adam_sparse": fit_case(tf.keras.optimizers.Adam(0.05),
                                "sparse_categorical_crossentropy", ["accuracy"]),
        "rmsprop_mse": fit_case(tf.keras.optimizers.RMSprop(0.01), "mse", ["mae"]),
        "momentum_categorical": fit_case(tf.keras.optimizers.SGD(0.1, momentum=0.9),
                                         "categorical_crossentropy", ["accuracy"]),
        "bn_4d": bn_case((2, 4, 4, 3)),
        "bn_2d": bn_case((6, 3)),
        "rnn": rnn_case(),
        "cnn": cnn_case(),
    }
    with open(path, "w") as f:
        json.dump(goldens, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
