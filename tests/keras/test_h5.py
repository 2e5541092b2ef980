"""Keras HDF5 files as TF 2.15 writes them (tests/keras/tf_h5/, recorded by
tools/record_keras_h5.py): we load TF's files with their exact weights and optimizer state,
and the files we write have TF's layout (attributes and their string types, group and
dataset names, dtypes, shapes, the JSON configs); a test that runs real TF checks that TF
loads ours."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import estimator_npu as tf

h5py = pytest.importorskip("h5py", reason="h5py (the [h5] extra) is not installed")

HERE = os.path.join(os.path.dirname(__file__), "tf_h5")
TF_PYTHON = "/tmp/tf215/bin/python"


def _recorder():
    import importlib.util
    path = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "record_keras_h5.py")
    spec = importlib.util.spec_from_file_location("record_keras_h5", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


R = _recorder()
NAMES = [n for n, _ in R.MODELS]
MAKE = dict(R.MODELS)
DETERMINISTIC = ["cnn", "func", "rnn", "nested"]  # mlp has Dropout: its training steps are random


def _golden(name):
    with np.load(os.path.join(HERE, f"{name}.npz")) as f:
        return {k: f[k] for k in f.files}


def _xs(g):
    xs = [g[f"x_{i}"] for i in range(len([k for k in g if k.startswith("x_")]))]
    return xs if len(xs) > 1 else xs[0]


def describe(path):
    """Every group and dataset of an HDF5 file: dataset dtype and shape, and each
    attribute's HDF5 type (string class, variable-length or not, character set, shape)
    and value (the JSON configs parsed)."""
    out = {}

    def visit(name, obj):
        attrs = {}
        for key in obj.attrs:
            aid = obj.attrs.get_id(key)
            t = aid.get_type()
            if isinstance(t, h5py.h5t.TypeStringID):
                kind = ("string", t.is_variable_str(), t.get_cset(), aid.shape)
            else:
                kind = (str(np.asarray(obj.attrs[key]).dtype), aid.shape)
            value = obj.attrs[key]
            if key in ("model_config", "training_config"):
                value = json.loads(value)
            elif isinstance(value, np.ndarray):
                value = [v.decode() if isinstance(v, bytes) else str(v) for v in value.tolist()]
            else:
                value = value.decode() if isinstance(value, bytes) else str(value)
            attrs[key] = (kind, value)
        body = "group" if isinstance(obj, h5py.Group) else (str(obj.dtype), obj.shape)
        out[name or "/"] = (body, attrs)

    with h5py.File(path, "r") as f:
        visit("", f)
        f.visititems(visit)
    return out


def _datasets(path, group=None):
    out = {}
    with h5py.File(path, "r") as f:
        root = f[group] if group else f
        root.visititems(lambda n, o: out.__setitem__(n, np.asarray(o)) if isinstance(
            o, h5py.Dataset) else None)
    return out


def _file_weights(path, group=None):
    """The weights of a Keras HDF5 file in its layer_names / weight_names order."""
    with h5py.File(path, "r") as f:
        root = f[group] if group else f
        return [np.asarray(root[layer][w]) for layer in root.attrs["layer_names"]
                for w in root[layer].attrs["weight_names"]]


def _train_ours(name):
    """Our model built as the recorder builds TF's: same starting weights, same data,
    the same two training steps."""
    tf.reset_default_graph()
    g = _golden(name)
    model = MAKE[name](tf)
    model.set_weights([g[f"w0_{i}"] for i in range(len(model.weights))])
    model.fit(_xs(g), g["y"], batch_size=4, epochs=1, shuffle=False, verbose=0)
    return model


# ------------------------------------------------------------------ TF's files, read by us
@pytest.mark.parametrize("name", NAMES)
def test_load_model_reads_tfs_file_exactly(name):
    tf.reset_default_graph()
    path = os.path.join(HERE, f"{name}.h5")
    model = tf.keras.models.load_model(path)
    values = _file_weights(path, "model_weights")
    got = model.get_weights()
    assert len(got) == len(values)
    for a, b in zip(got, values):
        np.testing.assert_array_equal(a, b)
    g = _golden(name)
    np.testing.assert_allclose(model.predict(_xs(g), batch_size=8), g["pred"], rtol=1e-5,
                               atol=1e-6)
    # the optimizer state, as Keras holds it, is the file's
    opt = _datasets(path, "optimizer_weights")
    with h5py.File(path, "r") as f:
        names = list(f["optimizer_weights"].attrs["weight_names"])
    state = model.optimizer.get_weights()
    assert [n for n, _ in model.optimizer.named_weights()] == names
    for n, v in zip(names, state):
        np.testing.assert_allclose(v, opt[n], rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_training_on_after_load_model_continues_as_tf_does(name):
    """One more step from the loaded optimizer state (Adam's moments and step count, SGD's
    velocity, RMSprop's mean square) lands where TF's does."""
    tf.reset_default_graph()
    model = tf.keras.models.load_model(os.path.join(HERE, f"{name}.h5"))
    g = _golden(name)
    model.fit(_xs(g), g["y"], batch_size=8, epochs=1, shuffle=False, verbose=0)
    np.testing.assert_allclose(model.predict(_xs(g), batch_size=8), g["pred_after_step"],
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_load_weights_reads_tfs_weights_file(name):
    tf.reset_default_graph()
    model = MAKE[name](tf)
    path = os.path.join(HERE, f"{name}_weights.h5")
    model.load_weights(path)
    g = _golden(name)
    np.testing.assert_allclose(model.predict(_xs(g), batch_size=8), g["pred"], rtol=1e-5,
                               atol=1e-6)
    got, want = model.get_weights(), _file_weights(path)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


# ------------------------------------------------------------------ our files, TF's layout
@pytest.mark.parametrize("name", NAMES)
def test_our_model_file_has_tfs_layout_and_values(name, tmp_path):
    model = _train_ours(name)
    model.save(str(tmp_path / "m.h5"))
    model.save_weights(str(tmp_path / "w.h5"))
    assert describe(str(tmp_path / "m.h5")) == describe(os.path.join(HERE, f"{name}.h5"))
    assert describe(str(tmp_path / "w.h5")) == \
        describe(os.path.join(HERE, f"{name}_weights.h5"))
    ours, theirs = _datasets(str(tmp_path / "m.h5")), _datasets(os.path.join(HERE,
                                                                             f"{name}.h5"))
    # same start: the same values (mlp's Dropout makes its steps random, in TF too)
    # (nested: the bias before BatchNormalization has a gradient of rounding noise only,
    # which Adam scales up: 5e-5 apart after two steps)
    atol = 1e-4 if name == "nested" else 1e-6
    for key in theirs if name in DETERMINISTIC else ():
        np.testing.assert_allclose(ours[key], theirs[key], rtol=2e-5, atol=atol, err_msg=key)


@pytest.mark.parametrize("name", NAMES)
def test_our_file_round_trips(name, tmp_path):
    model = _train_ours(name)
    g = _golden(name)
    want = model.predict(_xs(g), batch_size=8)
    state = model.optimizer.get_weights()
    model.save(str(tmp_path / "m.h5"))
    tf.reset_default_graph()
    again = tf.keras.models.load_model(str(tmp_path / "m.h5"))
    np.testing.assert_array_equal(again.predict(_xs(g), batch_size=8), want)
    for a, b in zip(again.optimizer.get_weights(), state):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    tf.reset_default_graph()
    bare = tf.keras.models.load_model(str(tmp_path / "m.h5"), compile=False)
    assert bare.optimizer is None
    np.testing.assert_array_equal(bare.predict(_xs(g), batch_size=8), want)


# ------------------------------------------------------------------ by_name, skip_mismatch
def _named_model(first_units=4, extra=False):
    K = tf.keras
    layers = [K.layers.Dense(first_units, activation="relu", input_shape=(3,), name="dense")]
    if extra:
        layers.append(K.layers.Dense(5, name="other"))
    layers.append(K.layers.Dense(2, activation="softmax", name="dense_1"))
    return K.Sequential(layers)


def test_load_weights_by_name_and_skip_mismatch():
    path = os.path.join(HERE, "mlp_weights.h5")
    stored = _datasets(path)
    tf.reset_default_graph()
    m = _named_model(extra=True)
    before = m.get_layer("other").get_weights()
    with pytest.raises(ValueError, match="Layer count mismatch when loading weights from "
                                         "file. Model expected 3 layers, found 2 saved"):
        m.load_weights(path)
    with pytest.raises(ValueError, match="shape mismatch in layer 'dense_1'"):
        m.load_weights(path, by_name=True)  # 'other' has 5 outputs: dense_1 is [5, 2]
    tf.reset_default_graph()
    m = _named_model(extra=True)
    m.load_weights(path, by_name=True, skip_mismatch=True)
    np.testing.assert_array_equal(m.get_layer("dense").get_weights()[0],
                                  stored["dense/dense/kernel:0"])
    assert m.get_layer("other").get_weights()[0].shape == before[0].shape
    tf.reset_default_graph()
    m = _named_model()
    m.load_weights(path, by_name=True)
    np.testing.assert_array_equal(m.get_layer("dense_1").get_weights()[1],
                                  stored["dense_1/dense_1/bias:0"])
    with pytest.raises(ValueError, match="skip_mismatch can only be set to True when "
                                         "by_name is True"):
        m.load_weights(path, skip_mismatch=True)
    tf.reset_default_graph()
    small = _named_model(first_units=3)
    with pytest.raises(ValueError, match="shape mismatch in layer 'dense'"):
        small.load_weights(path)


def test_load_weights_of_a_whole_model_file_reads_its_model_weights():
    tf.reset_default_graph()
    m = MAKE["func"](tf)
    m.load_weights(os.path.join(HERE, "func.h5"))
    g = _golden("func")
    np.testing.assert_allclose(m.predict(_xs(g), batch_size=8), g["pred"], rtol=1e-5,
                               atol=1e-6)


# ------------------------------------------------------------------ checkpoints, errors
def test_model_checkpoint_writes_h5_models_and_weights(tmp_path):
    tf.reset_default_graph()
    g = _golden("func")
    m = MAKE["func"](tf)
    pattern = str(tmp_path / "weights.{epoch:02d}.hdf5")
    cb = tf.keras.callbacks.ModelCheckpoint(pattern, monitor="loss", save_best_only=True)
    wcb = tf.keras.callbacks.ModelCheckpoint(str(tmp_path / "w.{epoch:02d}.h5"),
                                             save_weights_only=True)
    m.fit(_xs(g), g["y"], batch_size=4, epochs=3, shuffle=False, verbose=0,
          callbacks=[cb, wcb])
    saved = sorted(os.listdir(tmp_path))
    assert "weights.01.hdf5" in saved and "w.03.h5" in saved
    last = sorted(s for s in saved if s.startswith("weights."))[-1]
    with h5py.File(str(tmp_path / last), "r") as f:
        assert "model_config" in f.attrs and "optimizer_weights" in f
    with h5py.File(str(tmp_path / "w.03.h5"), "r") as f:
        assert "model_config" not in f.attrs and "layer_names" in f.attrs
    tf.reset_default_graph()
    again = tf.keras.models.load_model(str(tmp_path / "w.03.h5").replace(
        "w.03.h5", last))
    assert [layer.name for layer in again.layers] == [layer.name for layer in m.layers]


def test_savedmodel_and_bad_files_say_what_to_do(tmp_path, monkeypatch):
    tf.reset_default_graph()
    m = _named_model()
    m.compile("sgd", "mse")
    with pytest.raises(NotImplementedError, match=r"SavedModel format \(yet\).*\.h5"):
        m.save(str(tmp_path / "saved"))
    with pytest.raises(NotImplementedError, match="SavedModel"):
        m.save(str(tmp_path / "m.keras"))
    os.makedirs(str(tmp_path / "dir"))
    with pytest.raises(NotImplementedError, match="SavedModel"):
        tf.keras.models.load_model(str(tmp_path / "dir"))
    with pytest.raises(OSError, match="No file or directory found at"):
        tf.keras.models.load_model(str(tmp_path / "missing.h5"))
    m.save_weights(str(tmp_path / "w.h5"))
    with pytest.raises(ValueError, match="No model config found in the file"):
        tf.keras.models.load_model(str(tmp_path / "w.h5"))
    with pytest.raises(NotImplementedError, match="by_name=True"):
        m.save_weights(str(tmp_path / "ckpt"))
        m.load_weights(str(tmp_path / "ckpt"), by_name=True)
    m.save(str(tmp_path / "m.h5"))
    with pytest.raises(FileExistsError, match="overwrite=False"):
        m.save(str(tmp_path / "m.h5"), overwrite=False)
    m.save(str(tmp_path / "any_name"), save_format="h5")
    assert h5py.is_hdf5(str(tmp_path / "any_name"))
    tf.reset_default_graph()
    assert tf.keras.models.load_model(str(tmp_path / "any_name")).layers[0].name == "dense"
    monkeypatch.setitem(sys.modules, "h5py", None)
    with pytest.raises(ImportError, match=r"need h5py.*estimator-npu\[h5\]"):
        m.save(str(tmp_path / "other.h5"))


# ------------------------------------------------------------------ real TF reads ours
_TF_LOAD = """
import sys, numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
out = {}
for name, path, weights_path in zip(*[iter(sys.argv[2:])] * 3):
    tf.reset_default_graph(); tf.keras.backend.clear_session()
    with np.load(path + ".npz") as f:
        xs = [f[k] for k in sorted(f.files)]
    m = tf.keras.models.load_model(path)
    out[name] = m.predict(xs if len(xs) > 1 else xs[0], batch_size=8)
    out[name + "_opt"] = np.concatenate([np.ravel(w) for w in m.optimizer.get_weights()[1:]])
    m.load_weights(weights_path)
    out[name + "_w"] = m.predict(xs if len(xs) > 1 else xs[0], batch_size=8)
np.savez(sys.argv[1], **out)
"""


def test_real_tf_loads_our_files(tmp_path):
    if not os.path.exists(TF_PYTHON):
        pytest.skip(f"real TensorFlow 2.15 is not installed at {TF_PYTHON}")
    args, want = [], {}
    for name in NAMES:
        model = _train_ours(name)
        g = _golden(name)
        path = str(tmp_path / f"{name}.h5")
        model.save(path)
        model.set_weights([w * 0.5 for w in model.get_weights()])
        model.save_weights(str(tmp_path / f"{name}_w.h5"))
        xs = _xs(g) if isinstance(_xs(g), list) else [_xs(g)]
        np.savez(path + ".npz", **{f"x_{i}": x for i, x in enumerate(xs)})
        want[name] = model.predict(_xs(g), batch_size=8)
        model.load_weights(path)
        want[name + "_before"] = model.predict(_xs(g), batch_size=8)
        want[name + "_opt"] = np.concatenate([np.ravel(w) for w in
                                              model.optimizer.get_weights()[1:]])
        args += [name, path, str(tmp_path / f"{name}_w.h5")]
    res = subprocess.run([TF_PYTHON, "-c", _TF_LOAD, str(tmp_path / "tf.npz"), *args],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    with np.load(str(tmp_path / "tf.npz")) as got:
        for name in NAMES:
            np.testing.assert_allclose(got[name], want[name + "_before"], rtol=1e-5,
                                       atol=1e-6)
            np.testing.assert_allclose(got[name + "_w"], want[name], rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(got[name + "_opt"], want[name + "_opt"], rtol=1e-6)


def _training_config_model(case):
    K = tf.keras
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
    return m


@pytest.mark.parametrize("case", ["objects", "per_output"])
def test_training_config_is_tfs_and_compiles_back(case, tmp_path):
    with open(os.path.join(HERE, "training_configs.json")) as f:
        want = {c["case"]: c["training_config"] for c in json.load(f)}[case]
    tf.reset_default_graph()
    m = _training_config_model(case)
    m.save(str(tmp_path / "m.h5"))
    with h5py.File(str(tmp_path / "m.h5"), "r") as f:
        assert json.loads(f.attrs["training_config"]) == want
    x = np.ones((4, 3), np.float32)
    ys = np.zeros((4, 2), np.float32) if case == "objects" else \
        [np.zeros((4, 2), np.float32), np.ones((4, 1), np.float32)]
    names, scores = m.metrics_names, m.evaluate(x, ys, verbose=0)
    tf.reset_default_graph()
    again = tf.keras.models.load_model(str(tmp_path / "m.h5"))
    assert again.metrics_names == names
    np.testing.assert_allclose(again.evaluate(x, ys, verbose=0), scores, rtol=1e-6)


def test_reads_files_of_older_keras(tmp_path):
    """TF 1.x's Keras wrote the name lists and configs as fixed-length byte strings, a
    functional model as class "Model" and the learning rate as "lr"; long name lists split
    into layer_names0, layer_names1, ... (HDF5's attribute size limit)."""
    import shutil
    path = str(tmp_path / "old.h5")
    shutil.copy(os.path.join(HERE, "func.h5"), path)
    with h5py.File(path, "r+") as f:
        config = json.loads(f.attrs["model_config"])
        config["class_name"] = "Model"
        f.attrs["model_config"] = np.bytes_(json.dumps(config).encode("utf8"))
        training = json.loads(f.attrs["training_config"])
        opt = training["optimizer_config"]["config"]
        opt["lr"] = opt.pop("learning_rate")
        f.attrs["training_config"] = np.bytes_(json.dumps(training).encode("utf8"))
        g = f["model_weights"]
        names = [n.encode() for n in g.attrs["layer_names"]]
        del g.attrs["layer_names"]
        g.attrs["layer_names0"] = np.array(names[:3], dtype="S")
        g.attrs["layer_names1"] = np.array(names[3:], dtype="S")
        for name in names:
            sub = g[name.decode()]
            weights = [w.encode() for w in sub.attrs["weight_names"]]
            if weights:
                sub.attrs["weight_names"] = np.array(weights, dtype="S")
    tf.reset_default_graph()
    model = tf.keras.models.load_model(path)
    g = _golden("func")
    np.testing.assert_allclose(model.predict(_xs(g), batch_size=8), g["pred"], rtol=1e-5,
                               atol=1e-6)
    assert model.optimizer.get_config()["learning_rate"] == pytest.approx(0.01)


def test_tf_train_optimizer_is_left_out_as_tf_does(tmp_path, caplog):
    """A tf.train optimizer has no Keras config: TF saves the model without its training
    config (warned), and load_model returns it uncompiled (warned)."""
    import logging
    tf.reset_default_graph()
    m = _named_model()
    m.compile(tf.train.AdamOptimizer(0.01), "mse")
    m.fit(np.ones((4, 3), np.float32), np.ones((4, 2), np.float32), verbose=0)
    with caplog.at_level(logging.WARNING):
        m.save(str(tmp_path / "m.h5"))
    assert "cannot save the optimizer" in caplog.text
    with h5py.File(str(tmp_path / "m.h5"), "r") as f:
        assert "training_config" not in f.attrs and "optimizer_weights" not in f
    tf.reset_default_graph()
    with caplog.at_level(logging.WARNING):
        again = tf.keras.models.load_model(str(tmp_path / "m.h5"))
    assert "was *not* compiled" in caplog.text and again.optimizer is None
