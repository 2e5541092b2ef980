"""Layer ``get_config`` dicts and model JSON equal TF 2.15's (tests/keras/tf_h5/, recorded
by tools/record_keras_h5.py), and ``from_config`` / ``model_from_json`` read them back."""
import json
import os

import numpy as np
import pytest

import estimator_npu as tf

HERE = os.path.join(os.path.dirname(__file__), "tf_h5")
with open(os.path.join(HERE, "layer_configs.json")) as _f:
    LAYERS = json.load(_f)


def _build(entry):
    tf.reset_default_graph()
    kwargs = dict(entry["kwargs"])
    if isinstance(kwargs.get("kernel_regularizer"), dict):
        kwargs["kernel_regularizer"] = tf.keras.regularizers.get(kwargs["kernel_regularizer"])
    if "input_shape" in kwargs:
        kwargs["input_shape"] = tuple(kwargs["input_shape"])
    layer = RECORDER.make_layer(tf.keras.layers, entry["class_name"], kwargs)
    if entry["input_shape"] is not None:
        RECORDER.call_on_inputs(tf.keras, layer, entry["input_shape"])
    elif entry["class_name"] == "Embedding":
        layer(tf.keras.Input((4,), dtype="int32"))
    else:
        layer(tf.keras.Input(kwargs["input_shape"]))
    return layer


def _json(config):
    return json.loads(json.dumps(config))


def _models():
    import importlib.util
    path = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "record_keras_h5.py")
    spec = importlib.util.spec_from_file_location("record_keras_h5", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RECORDER = _models()


@pytest.mark.parametrize("entry", LAYERS, ids=lambda e: e["class_name"] + "-" + "-".join(
    sorted(e["kwargs"]))[:40])
def test_layer_config_is_tfs(entry):
    layer = _build(entry)
    assert _json(layer.get_config()) == entry["config"]


@pytest.mark.parametrize("entry", LAYERS, ids=lambda e: e["class_name"] + "-" + "-".join(
    sorted(e["kwargs"]))[:40])
def test_layer_from_tfs_config_gives_the_same_config(entry):
    tf.reset_default_graph()
    cls = getattr(tf.keras.layers, entry["class_name"])
    again = cls.from_config(dict(entry["config"]))
    if entry["input_shape"] is not None:
        RECORDER.call_on_inputs(tf.keras, again, entry["input_shape"])
    elif entry["class_name"] == "Embedding":
        again(tf.keras.Input((4,), dtype="int32"))
    else:
        again(tf.keras.Input(tuple(entry["kwargs"]["input_shape"])))
    assert _json(again.get_config()) == entry["config"]


@pytest.mark.parametrize("name,make", RECORDER.MODELS, ids=[n for n, _ in RECORDER.MODELS])
def test_to_json_is_tfs_and_model_from_json_rebuilds_it(name, make):
    tf.reset_default_graph()
    model = make(tf)
    with open(os.path.join(HERE, f"{name}.json")) as f:
        want = json.load(f)
    assert json.loads(model.to_json()) == want
    tf.reset_default_graph()
    again = tf.keras.models.model_from_json(json.dumps(want))
    assert json.loads(again.to_json()) == want
    assert [w.shape.as_list() for w in again.weights] == \
        [w.shape.as_list() for w in model.weights]


def test_functional_layers_are_ordered_by_depth_as_keras_does():
    tf.reset_default_graph()
    K = tf.keras
    a, b = K.Input((3,), name="a"), K.Input((2,), name="b")
    x = K.layers.Dense(4, name="da")(a)
    y = K.layers.Dense(4, name="db")(b)
    out = K.layers.Dense(1, name="out")(K.layers.Concatenate()([x, K.layers.Add()([x, y])]))
    m = K.Model([a, b], out)
    # TF 2.15's order for this graph (the recorded func.h5 lists the same)
    assert [layer.name for layer in m.layers] == ["a", "b", "da", "db", "add", "concatenate",
                                                  "out"]


def test_initializer_regularizer_constraint_round_trips():
    K = tf.keras
    for init in ["glorot_normal", "he_uniform", "lecun_normal", "orthogonal",
                 K.initializers.RandomNormal(stddev=0.1, seed=1),
                 K.initializers.VarianceScaling(2.0, "fan_in", "truncated_normal"),
                 K.initializers.Constant(0.5)]:
        config = K.initializers.serialize(K.initializers.get(init))
        assert K.initializers.serialize(K.initializers.get(config)) == config
    # what TF 2.15 serializes these to
    assert K.initializers.serialize(K.initializers.get("he_normal")) == \
        {"class_name": "HeNormal", "config": {"seed": None}}
    assert K.regularizers.serialize(K.regularizers.l1_l2(0.1, 0.2)) == \
        {"class_name": "L1L2", "config": {"l1": 0.10000000149011612,
                                          "l2": 0.20000000298023224}}
    assert K.constraints.serialize(K.constraints.get(
        {"class_name": "MaxNorm", "config": {"max_value": 2, "axis": 0}})) == \
        {"class_name": "MaxNorm", "config": {"max_value": 2, "axis": 0}}


def test_configs_that_cannot_be_written_say_why():
    tf.reset_default_graph()
    K = tf.keras
    lam = K.Sequential([K.layers.Lambda(lambda x: x * 2, input_shape=(3,))])
    with pytest.raises(NotImplementedError, match="Lambda.get_config"):
        lam.to_json()

    class Sub(K.Model):
        def __init__(self):
            super().__init__()
            self.d = K.layers.Dense(2)

        def call(self, x):
            return self.d(x)

    with pytest.raises(NotImplementedError, match="subclassed model"):
        Sub().get_config()
    with pytest.raises(RuntimeError, match="to_yaml"):
        K.Sequential([K.layers.Dense(1, input_shape=(2,))]).to_yaml()
    with pytest.raises(RuntimeError, match="model_from_yaml"):
        K.models.model_from_yaml("{}")
    with pytest.raises(ValueError, match="Unknown layer: 'Nope'"):
        K.models.model_from_json(json.dumps({"class_name": "Nope", "config": {}}))
    with pytest.raises(ValueError, match="model_from_json: expected the JSON"):
        K.models.model_from_json("not json")


def test_custom_layer_round_trips_through_custom_objects():
    tf.reset_default_graph()
    K = tf.keras

    class Scale(K.layers.Layer):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            return x * self.factor

        def get_config(self):
            return dict(super().get_config(), factor=self.factor)

    m = K.Sequential([K.layers.Dense(2, input_shape=(3,)), Scale(3.0)])
    text = m.to_json()
    with pytest.raises(ValueError, match="Unknown layer: 'Scale'"):
        K.models.model_from_json(text)
    again = K.models.model_from_json(text, custom_objects={"Scale": Scale})
    assert again.layers[1].factor == 3.0
    with K.utils.custom_object_scope({"Scale": Scale}):
        assert "Scale" in K.utils.get_custom_objects()
        assert K.models.model_from_json(text).layers[1].factor == 3.0
    assert "Scale" not in K.utils.get_custom_objects()
    x = np.ones((1, 3), np.float32)
    again.set_weights(m.get_weights())
    np.testing.assert_allclose(again.predict(x), m.predict(x))


def test_sequential_built_from_data_records_build_input_shape():
    """TF 2.15: a Sequential without an input shape, built by fit or build(), has no
    InputLayer in its config but "build_input_shape"."""
    K = tf.keras
    for how in ("fit", "build"):
        tf.reset_default_graph()
        m = K.Sequential([K.layers.Dense(2), K.layers.Dense(1)])
        if how == "fit":
            m.compile("sgd", "mse")
            m.fit(np.ones((4, 3)), np.ones((4, 1)), verbose=0)
        else:
            m.build((None, 3))
        config = json.loads(m.to_json())["config"]
        assert [spec["class_name"] for spec in config["layers"]] == ["Dense", "Dense"]
        assert config["build_input_shape"] == [None, 3]
        tf.reset_default_graph()
        again = K.models.model_from_json(m.to_json())
        assert [w.shape.as_list() for w in again.weights] == [[3, 2], [2], [2, 1], [1]]
        assert json.loads(again.to_json()) == json.loads(m.to_json())
    tf.reset_default_graph()
    m = K.Sequential([K.Input((3,)), K.layers.Dense(2)])  # an Input tensor: an InputLayer
    config = json.loads(m.to_json())["config"]
    assert [spec["class_name"] for spec in config["layers"]] == ["InputLayer", "Dense"]
    assert config["layers"][0]["config"]["name"] == "input_1"


def test_shared_layer_and_call_kwargs_in_functional_config():
    tf.reset_default_graph()
    model = RECORDER.shared_model(tf)
    with open(os.path.join(HERE, "shared.json")) as f:
        want = json.load(f)
    assert json.loads(model.to_json()) == want
    tf.reset_default_graph()
    again = tf.keras.Model.from_config(want["config"])
    assert json.loads(again.to_json()) == want
    shared = again.get_layer("shared")
    assert len(shared.weights) == 2 and len(again.weights) == 4  # one Dense, called twice


def test_from_config_of_get_config():
    tf.reset_default_graph()
    K = tf.keras
    seq = K.Sequential([K.layers.Dense(3, input_shape=(2,), activation="tanh"),
                        K.layers.Dense(1)])
    again = K.Sequential.from_config(seq.get_config())
    assert again.get_config() == seq.get_config()
    assert [w.shape.as_list() for w in again.weights] == [[2, 3], [3], [3, 1], [1]]
