"""Records TF 2.15's Keras HDF5 files and config dicts (tf.compat.v1, disable_v2_behavior)
for tests/keras/test_h5.py and tests/keras/test_layer_configs.py:

    /tmp/tf215/bin/python tools/record_keras_h5.py

Writes under tests/keras/tf_h5/:
- ``<model>.h5`` (``model.save``) and ``<model>_weights.h5`` (``save_weights``) for four
  small models (Sequential MLP with Adam, Sequential CNN with BatchNormalization and SGD
  with momentum, a two-input functional model with Adam, Embedding + LSTM with RMSprop,
  a functional model around a nested Sequential with Adam)
  whose weights start from a seeded numpy draw and are then trained for
  two steps on fixed data (so the optimizer state is not zeros);
- ``<model>.npz``: the starting weights, the training data, ``predict`` on a test batch
  after training, and after one more ``fit`` step of the model reloaded with ``load_model``
  (the optimizer state then matters);
- ``<model>.json``: ``model.to_json()``;
- ``layer_configs.json``: ``get_config()`` of layers built from the listed arguments;
- ``shared.json``: the JSON of a functional model calling one layer twice;
- ``training_configs.json``: the ``training_config`` of models compiled with loss and
  metric objects, and with per-output losses / loss weights / metrics.
"""
import json
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "keras",
                   "tf_h5")

# (class name, constructor kwargs, input shape without the batch dimension or None)
LAYERS = [
    ("Dense", {"units": 3}, (4,)),
    ("Dense", {"units": 2, "activation": "relu", "use_bias": False,
               "kernel_regularizer": {"class_name": "L2", "config": {"l2": 0.01}},
               "kernel_initializer": "he_normal", "input_shape": (4,)}, None),
    ("Dropout", {"rate": 0.25, "seed": 3}, (4,)),
    ("Flatten", {}, (2, 3)),
    ("Activation", {"activation": "tanh"}, (4,)),
    ("Reshape", {"target_shape": (3, 2)}, (6,)),
    ("Permute", {"dims": (2, 1)}, (2, 3)),
    ("RepeatVector", {"n": 3}, (4,)),
    ("Conv2D", {"filters": 4, "kernel_size": 3}, (6, 6, 2)),
    ("Conv2D", {"filters": 4, "kernel_size": (3, 2), "strides": 2, "padding": "same",
                "activation": "relu", "dilation_rate": 1}, (6, 6, 2)),
    ("Conv2DTranspose", {"filters": 2, "kernel_size": 3, "strides": 2, "padding": "same"},
     (4, 4, 3)),
    ("Conv1D", {"filters": 3, "kernel_size": 2}, (5, 2)),
    ("SeparableConv2D", {"filters": 3, "kernel_size": 3}, (6, 6, 2)),
    ("DepthwiseConv2D", {"kernel_size": 3}, (6, 6, 2)),
    ("MaxPooling2D", {}, (4, 4, 2)),
    ("MaxPooling2D", {"pool_size": 3, "strides": 1, "padding": "same"}, (4, 4, 2)),
    ("AveragePooling2D", {"pool_size": (2, 2)}, (4, 4, 2)),
    ("MaxPooling1D", {}, (4, 2)),
    ("AveragePooling1D", {"pool_size": 2}, (4, 2)),
    ("GlobalAveragePooling2D", {}, (4, 4, 2)),
    ("GlobalMaxPooling2D", {}, (4, 4, 2)),
    ("GlobalAveragePooling1D", {}, (4, 2)),
    ("GlobalMaxPooling1D", {}, (4, 2)),
    ("ZeroPadding2D", {"padding": 1}, (4, 4, 2)),
    ("Cropping2D", {"cropping": 1}, (4, 4, 2)),
    ("UpSampling2D", {}, (2, 2, 1)),
    ("BatchNormalization", {}, (4,)),
    ("BatchNormalization", {"momentum": 0.9, "epsilon": 1e-5, "center": False}, (4, 4, 2)),
    ("LayerNormalization", {}, (4,)),
    ("Embedding", {"input_dim": 10, "output_dim": 3}, None),
    ("LeakyReLU", {"alpha": 0.2}, (4,)),
    ("ReLU", {}, (4,)),
    ("ELU", {}, (4,)),
    ("Softmax", {}, (4,)),
    ("PReLU", {}, (4,)),
    ("SimpleRNN", {"units": 3}, (5, 2)),
    ("LSTM", {"units": 3}, (5, 2)),
    ("GRU", {"units": 3, "return_sequences": True}, (5, 2)),
    # a wrapper's "layer" argument: (class name, kwargs) of the wrapped layer
    ("Bidirectional", {"layer": ("LSTM", {"units": 3, "return_sequences": True})}, (5, 2)),
    ("Bidirectional", {"layer": ("GRU", {"units": 2}), "merge_mode": "sum"}, (5, 2)),
    ("TimeDistributed", {"layer": ("Dense", {"units": 3})}, (5, 2)),
    ("Masking", {"mask_value": 0.5}, (5, 2)),
    ("ActivityRegularization", {"l1": 0.01}, (4,)),
    ("SpatialDropout2D", {"rate": 0.3}, (4, 4, 2)),
    ("ThresholdedReLU", {"theta": 0.5}, (4,)),
    ("ZeroPadding1D", {"padding": 2}, (4, 2)),
    ("UpSampling1D", {"size": 3}, (4, 2)),
    # merge layers: called on two inputs of the shape given
    ("Add", {}, ("pair", 4)),
    ("Subtract", {}, ("pair", 4)),
    ("Multiply", {}, ("pair", 4)),
    ("Average", {}, ("pair", 4)),
    ("Maximum", {}, ("pair", 4)),
    ("Minimum", {}, ("pair", 4)),
    ("Concatenate", {"axis": 1}, ("pair", 4)),
    ("Dot", {"axes": 1, "normalize": True}, ("pair", 4)),
]


def call_on_inputs(K, layer, shape):
    """Builds ``layer`` on Keras inputs of ``shape`` (("pair", n): two ``[None, n]``)."""
    if isinstance(shape, (list, tuple)) and shape and shape[0] == "pair":
        return layer([K.Input((shape[1],)), K.Input((shape[1],))])
    return layer(K.Input(tuple(shape)))


def make_layer(layers_module, name, kwargs):
    """The layer ``name(**kwargs)``, a wrapped ``layer`` given as (class name, kwargs)."""
    kw = dict(kwargs)
    if isinstance(kw.get("layer"), (list, tuple)):
        inner, inner_kw = kw["layer"]
        kw["layer"] = getattr(layers_module, inner)(**inner_kw)
    return getattr(layers_module, name)(**kw)


def _layer_configs(tf):
    out = []
    for name, kwargs, shape in LAYERS:
        tf.reset_default_graph()
        kw = dict(kwargs)
        if isinstance(kw.get("kernel_regularizer"), dict):
            kw["kernel_regularizer"] = tf.keras.regularizers.get(kw["kernel_regularizer"])
        layer = make_layer(tf.keras.layers, name, kw)
        if shape is not None:
            call_on_inputs(tf.keras, layer, shape)
        elif name == "Embedding":
            layer(tf.keras.Input((4,), dtype="int32"))
        else:
            layer(tf.keras.Input(kwargs["input_shape"]))
        out.append({"class_name": name, "kwargs": kwargs, "input_shape": shape,
                    "config": layer.get_config()})
    return out


def _mlp(tf):
    K = tf.keras
    m = K.Sequential([K.layers.Dense(4, activation="relu", input_shape=(3,)),
                      K.layers.Dropout(0.5), K.layers.Dense(2, activation="softmax")])
    m.compile(K.optimizers.Adam(0.01), "categorical_crossentropy", metrics=["accuracy"])
    return m


def _cnn(tf):
    K = tf.keras
    m = K.Sequential([K.layers.Conv2D(3, 3, activation="relu", input_shape=(6, 6, 2)),
                      K.layers.BatchNormalization(), K.layers.MaxPooling2D(),
                      K.layers.Flatten(), K.layers.Dense(2)])
    m.compile(K.optimizers.SGD(0.05, momentum=0.9), "mse")
    return m


def _func(tf):
    K = tf.keras
    a, b = K.Input((3,), name="a"), K.Input((2,), name="b")
    x = K.layers.Dense(4, activation="relu", name="da")(a)
    y = K.layers.Dense(4, name="db")(b)
    z = K.layers.Concatenate()([x, K.layers.Add()([x, y])])
    out = K.layers.Dense(1, name="out")(z)
    m = K.Model([a, b], out, name="two_in")
    m.compile(K.optimizers.Adam(0.01), "mse", metrics=["mae"])
    return m


def _rnn(tf):
    K = tf.keras
    m = K.Sequential([K.layers.Embedding(10, 4, input_length=5), K.layers.LSTM(3),
                      K.layers.Dense(1)])
    m.compile(K.optimizers.RMSprop(0.01), "mse")
    return m


def _nested(tf):
    K = tf.keras
    base = K.Sequential([K.layers.Dense(4, activation="relu", input_shape=(3,)),
                         K.layers.BatchNormalization()], name="base")
    inp = K.Input((3,))
    m = K.Model(inp, K.layers.Dense(1)(base(inp)))
    m.compile(K.optimizers.Adam(0.01), "mse")
    return m


MODELS = (("mlp", _mlp), ("cnn", _cnn), ("func", _func), ("rnn", _rnn), ("nested", _nested))


def _data(name):
    rng = np.random.RandomState(7)
    if name == "mlp":
        x = rng.normal(size=(8, 3)).astype(np.float32)
        y = np.eye(2, dtype=np.float32)[rng.randint(0, 2, 8)]
        return [x], y
    if name == "rnn":
        return [rng.randint(0, 10, size=(8, 5)).astype(np.int32)], \
            rng.normal(size=(8, 1)).astype(np.float32)
    if name == "cnn":
        return [rng.normal(size=(8, 6, 6, 2)).astype(np.float32)], \
            rng.normal(size=(8, 2)).astype(np.float32)
    if name == "nested":
        return [rng.normal(size=(8, 3)).astype(np.float32)], \
            rng.normal(size=(8, 1)).astype(np.float32)
    return [rng.normal(size=(8, 3)).astype(np.float32),
            rng.normal(size=(8, 2)).astype(np.float32)], rng.normal(size=(8, 1)).astype(
        np.float32)


def start_weights(model_weights_shapes, seed=11):
    """The starting weights: a seeded normal draw (scale 0.3) per weight; BatchNorm's
    moving variance (the fourth weight of a 4-weight layer) made positive by ``abs``."""
    rng = np.random.RandomState(seed)
    return [(0.3 * rng.normal(size=s)).astype(np.float32) for s in model_weights_shapes]


def _record_model(tf, name, make):
    tf.reset_default_graph()
    tf.set_random_seed(1)  # mlp's Dropout: the same file on every run
    m = make(tf)
    shapes = [tuple(w.shape) for w in m.get_weights()]
    w0 = start_weights(shapes)
    if name in ("cnn", "nested"):  # BatchNormalization's moving variance must be positive
        w0[5] = np.abs(w0[5]) + 0.5
    m.set_weights(w0)
    xs, y = _data(name)
    m.fit(xs, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    m.save(os.path.join(OUT, f"{name}.h5"))
    m.save_weights(os.path.join(OUT, f"{name}_weights.h5"))
    with open(os.path.join(OUT, f"{name}.json"), "w") as f:
        f.write(m.to_json())
    pred = m.predict(xs, batch_size=8)
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    m2 = tf.keras.models.load_model(os.path.join(OUT, f"{name}.h5"))
    m2.fit(xs, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
    pred2 = m2.predict(xs, batch_size=8)
    arrays = {f"w0_{i}": w for i, w in enumerate(w0)}
    arrays.update({f"x_{i}": x for i, x in enumerate(xs)})
    np.savez(os.path.join(OUT, f"{name}.npz"), y=y, pred=pred, pred_after_step=pred2,
             **arrays)


def shared_model(tf):
    """A layer called twice and a Dropout called with training=True: two inbound nodes
    and call kwargs in the functional config."""
    K = tf.keras
    a, b = K.Input((3,), name="left"), K.Input((3,), name="right")
    shared = K.layers.Dense(3, name="shared")
    x = K.layers.Dropout(0.5)(shared(a), training=True)
    merged = K.layers.Add()([x, shared(b)])
    return K.Model([a, b], K.layers.Dense(1, name="head")(merged), name="siamese")


def _training_configs(tf):
    """``training_config`` of small models compiled with loss / metric objects and with
    per-output losses, as TF's model.save writes it."""
    import h5py
    K = tf.keras
    out = []
    for case in ("objects", "per_output"):
        tf.reset_default_graph()
        inp = K.Input((3,))
        if case == "objects":
            m = K.Model(inp, K.layers.Dense(2)(inp))
            m.compile(K.optimizers.SGD(0.1), loss=K.losses.MeanSquaredError(),
                      metrics=[K.metrics.MeanAbsoluteError(), "acc"])
        else:
            a = K.layers.Dense(2, name="a")(inp)
            b = K.layers.Dense(1, name="b")(inp)
            m = K.Model(inp, [a, b])
            m.compile("adam", loss={"a": "mse", "b": "binary_crossentropy"},
                      loss_weights={"a": 1.0, "b": 0.5}, metrics={"b": ["accuracy"]})
        path = os.path.join(OUT, "_tmp.h5")
        m.save(path)
        with h5py.File(path, "r") as f:
            out.append({"case": case, "training_config": json.loads(
                f.attrs["training_config"])})
        os.remove(path)
    return out


def main():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    os.makedirs(OUT, exist_ok=True)
    for name, make in MODELS:
        _record_model(tf, name, make)
    with open(os.path.join(OUT, "layer_configs.json"), "w") as f:
        json.dump(_layer_configs(tf), f, indent=1, sort_keys=True,
                  default=lambda o: o.tolist())
    tf.reset_default_graph()
    with open(os.path.join(OUT, "shared.json"), "w") as f:
        f.write(shared_model(tf).to_json())
    with open(os.path.join(OUT, "training_configs.json"), "w") as f:
        json.dump(_training_configs(tf), f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
