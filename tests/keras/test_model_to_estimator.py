"""tf.keras.estimator.model_to_estimator: train / evaluate / predict a compiled model."""
import numpy as np
import pytest

import estimator_npu as tf


def _data(n=120):
    rng = np.random.RandomState(0)
    x = rng.rand(n, 4).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 1).astype(np.int32)
    return x, y


def test_functional_model_to_estimator_warm_starts_and_trains(tmp_path):
    tf.keras.backend.clear_session()
    tf.set_random_seed(2)   # fixed initial weights: the accuracy bound below is not luck
    inp = tf.keras.Input((4,), name="feats")
    h = tf.keras.layers.Dense(16, activation="relu")(inp)
    h = tf.keras.layers.BatchNormalization(momentum=0.8)(h)
    out = tf.keras.layers.Dense(2, activation="softmax", name="probs")(h)
    model = tf.keras.Model(inp, out)
    model.compile(tf.keras.optimizers.Adam(0.01), "sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    x, y = _data()
    keras_pred = model.predict(x[:8])
    est = tf.keras.estimator.model_to_estimator(keras_model=model,
                                                model_dir=str(tmp_path / "m"))
    assert (tmp_path / "m" / "keras" / "keras_model.ckpt.index").exists()

    def pred_fn():
        return tf.data.Dataset.from_tensor_slices({"feats": x[:8]}).batch(8)

    before = np.stack([p["probs"] for p in est.predict(pred_fn)])
    np.testing.assert_allclose(before, keras_pred, rtol=1e-5)   # warm-started weights

    def train_fn():
        return tf.data.Dataset.from_tensor_slices(({"feats": x}, y)).repeat().batch(20)

    est.train(train_fn, steps=100)
    ev = est.evaluate(lambda: tf.data.Dataset.from_tensor_slices(({"feats": x}, y)).batch(40))
    assert ev["global_step"] == 100 and ev["acc"] > 0.85 and np.isfinite(ev["loss"])
    names = est.get_variable_names()
    assert "dense/kernel" in names and "batch_normalization/moving_mean" in names
    assert not np.allclose(est.get_variable_value("batch_normalization/moving_mean"), 0)


def test_sequential_model_to_estimator_and_errors(tmp_path):
    tf.keras.backend.clear_session()
    tf.set_random_seed(1)   # a fixed initial kernel: unseeded, 30 steps sometimes ended > 0.25
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(4,))])
    with pytest.raises(ValueError, match="compile"):
        tf.keras.estimator.model_to_estimator(keras_model=model)
    model.compile(tf.train.GradientDescentOptimizer(0.1), "mse")
    x, y = _data()
    est = tf.keras.estimator.model_to_estimator(keras_model=model, model_dir=str(tmp_path))
    fn = tf.estimator.inputs.numpy_input_fn(x, y.astype(np.float32)[:, None], batch_size=20,
                                            num_epochs=None, shuffle=True)
    eval_fn = tf.estimator.inputs.numpy_input_fn(x, y.astype(np.float32)[:, None],
                                                 shuffle=False)
    before = est.evaluate(eval_fn)["loss"]   # the Keras model's own weights (warm start)
    est.train(fn, steps=30)
    ev = est.evaluate(eval_fn)
    assert ev["loss"] < 0.25 and ev["loss"] < before / 2
    with pytest.raises(ValueError, match="keras_model"):
        tf.keras.estimator.model_to_estimator()
