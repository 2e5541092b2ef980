"""tf.keras models: functional, subclassed, Sequential; callbacks; weights files."""
import numpy as np
import pytest

import estimator_npu as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.keras.backend.clear_session()
    yield
    tf.keras.backend.clear_session()


def _blobs(n=200, seed=0):
    rng = np.random.RandomState(seed)
    y = rng.randint(0, 3, n)
    x = rng.randn(n, 4).astype(np.float32) * 0.5 + np.eye(3, 4)[y] * 2
    return x, y


def test_functional_model_learns_and_reports(capsys):
    x, y = _blobs()
    inp = tf.keras.Input(shape=(4,))
    h = tf.keras.layers.Dense(16, activation="relu")(inp)
    h = tf.keras.layers.Dropout(0.1)(h)
    out = tf.keras.layers.Dense(3, activation="softmax")(h)
    model = tf.keras.Model(inputs=inp, outputs=out)
    model.compile(tf.keras.optimizers.Adam(0.01), "sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    assert model.metrics_names == ["loss", "acc"]
    hist = model.fit(x, y, epochs=15, batch_size=32, verbose=2, validation_split=0.25)
    text = capsys.readouterr().out
    assert "Train on 150 samples, validate on 50 samples" in text
    assert "Epoch 15/15" in text and "150/150 - " in text and " - val_acc: " in text
    assert hist.history["loss"][-1] < hist.history["loss"][0]
    loss, acc = model.evaluate(x, y, verbose=0)
    assert acc > 0.9
    pred = model.predict(x[:5])
    assert pred.shape == (5, 3)
    np.testing.assert_allclose(pred.sum(1), 1, rtol=1e-5)
    assert [layer.name for layer in model.layers] == ["input_1", "dense", "dropout",
                                                       "dense_1"]
    model.summary()
    summary = capsys.readouterr().out
    assert 'Model: "model"' in summary and "Total params: 131" in summary


def test_subclassed_model_and_train_on_batch():
    class MLP(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = tf.keras.layers.Dense(8, activation="tanh")
            self.out = tf.keras.layers.Dense(1)

        def call(self, inputs):
            return self.out(self.hidden(inputs))

    model = MLP()
    assert model.name == "mlp"
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    x = np.linspace(-1, 1, 64).reshape(-1, 1).astype(np.float32)
    y = x ** 2
    first = model.train_on_batch(x, y)
    for _ in range(100):
        last = model.train_on_batch(x, y)
    assert last < first * 0.5
    assert len(model.trainable_weights) == 4
    assert model.test_on_batch(x, y) == pytest.approx(model.evaluate(x, y, verbose=0),
                                                      rel=1e-5)


def test_multi_input_multi_output_and_tf_train_optimizer():
    a = tf.keras.Input((3,), name="a")
    b = tf.keras.Input((2,), name="b")
    h = tf.keras.layers.concatenate([a, b])
    out1 = tf.keras.layers.Dense(1, name="reg")(h)
    out2 = tf.keras.layers.Dense(2, activation="softmax", name="cls")(h)
    model = tf.keras.Model([a, b], [out1, out2])
    model.compile(tf.train.GradientDescentOptimizer(0.1),
                  loss={"reg": "mse", "cls": "categorical_crossentropy"},
                  metrics={"cls": ["acc"]}, loss_weights=[1.0, 0.5])
    assert model.metrics_names == ["loss", "reg_loss", "cls_loss", "cls_acc"]
    rng = np.random.RandomState(1)
    xa, xb = rng.rand(40, 3), rng.rand(40, 2)
    yr, yc = xa.sum(1, keepdims=True), tf.keras.utils.to_categorical(xb[:, 0] > 0.5, 2)
    hist = model.fit({"a": xa, "b": xb}, [yr, yc], epochs=3, verbose=0)
    assert set(hist.history) == {"loss", "reg_loss", "cls_loss", "cls_acc"}
    np.testing.assert_allclose(np.array(hist.history["reg_loss"]) +
                               0.5 * np.array(hist.history["cls_loss"]),
                               hist.history["loss"], rtol=1e-5)


def test_callbacks_early_stopping_checkpoint_scheduler(tmp_path):
    x, y = _blobs(64)
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, activation="softmax",
                                                       input_shape=(4,))])
    model.compile(tf.keras.optimizers.SGD(0.05), "sparse_categorical_crossentropy",
                  metrics=["acc"])
    seen = []
    sched = tf.keras.callbacks.LearningRateScheduler(lambda epoch: 0.05 / (epoch + 1))
    probe = tf.keras.callbacks.LambdaCallback(on_epoch_end=lambda e, logs: seen.append(
        float(tf.keras.backend.get_value(model.optimizer.lr))))
    ckpt = tf.keras.callbacks.ModelCheckpoint(str(tmp_path / "w-{epoch:02d}"),
                                              save_weights_only=True)
    stop = tf.keras.callbacks.EarlyStopping(monitor="loss", patience=0, min_delta=10.0)
    hist = model.fit(x, y, epochs=10, verbose=0, callbacks=[sched, probe, ckpt, stop])
    assert hist.epoch == [0, 1]          # min_delta=10: no epoch improves on the first
    np.testing.assert_allclose(seen, [0.05, 0.025], rtol=1e-6)
    assert (tmp_path / "w-02.index").exists()
    saved = model.get_weights()
    model.set_weights([np.zeros_like(w) for w in saved])
    model.load_weights(str(tmp_path / "w-02"))
    for got, want in zip(model.get_weights(), saved):
        np.testing.assert_array_equal(got, want)


def test_sequential_built_from_the_data_and_called_in_graph():
    model = tf.keras.Sequential()
    model.add(tf.keras.layers.Dense(4, activation="relu"))
    model.add(tf.keras.layers.Dense(1, activation="sigmoid"))
    model.compile("rmsprop", "binary_crossentropy", metrics=["accuracy"])
    x = np.random.RandomState(0).rand(32, 5).astype(np.float32)
    y = (x[:, 0] > 0.5).astype(np.float32)
    model.fit(x, y, epochs=2, verbose=0)
    assert model.metrics_names == ["loss", "acc"]
    assert model.inputs[0].shape.as_list() == [None, 5]
    # called on another tensor: the same weights
    t = tf.placeholder(tf.float32, [None, 5])
    out = model(t)
    sess = tf.keras.backend.get_session()
    np.testing.assert_allclose(sess.run(out, {t: x[:3]}), model.predict(x[:3]), rtol=1e-6)
    assert len(model.weights) == 4


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="Unknown loss function"):
        model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
        model.compile("sgd", "no_such_loss")
    with pytest.raises(ValueError, match="Unknown optimizer"):
        tf.keras.optimizers.get("nope")
    with pytest.raises(ValueError, match="Unknown activation"):
        tf.keras.layers.Dense(2, activation="nope")
    with pytest.raises(RuntimeError, match="compile"):
        tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))]).evaluate(
            np.ones((2, 2)), np.ones((2, 1)))


def test_fit_evaluate_predict_on_a_dataset(capsys):
    x, y = _blobs(96)
    model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu",
                                                       input_shape=(4,)),
                                 tf.keras.layers.Dense(3, activation="softmax")])
    model.compile(tf.keras.optimizers.Adam(0.02), "sparse_categorical_crossentropy",
                  metrics=["acc"])
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(96, seed=1).repeat().batch(16)
    hist = model.fit(ds, epochs=8, steps_per_epoch=6, verbose=2)
    out = capsys.readouterr().out
    assert "Epoch 8/8" in out and "6/6 - " in out and "Train on" not in out
    assert hist.history["loss"][-1] < hist.history["loss"][0]
    test = tf.data.Dataset.from_tensor_slices((x, y)).batch(32)
    loss, acc = model.evaluate(test, verbose=0)
    assert acc > 0.9
    np.testing.assert_allclose(model.evaluate(x, y, verbose=0), [loss, acc], rtol=1e-5)
    pred = model.predict(tf.data.Dataset.from_tensor_slices(x).batch(40))
    np.testing.assert_allclose(pred, model.predict(x), rtol=1e-5, atol=1e-7)


def test_sample_and_class_weights_scale_the_loss():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(1,),
                                                       kernel_initializer="zeros")])
    model.compile(tf.keras.optimizers.SGD(0.0), "mse")
    x = np.array([[1.0], [2.0]], np.float32)
    y = np.array([[1.0], [2.0]], np.float32)          # prediction 0: squared errors 1, 4
    assert model.evaluate(x, y, verbose=0) == pytest.approx(2.5)
    assert model.evaluate(x, y, sample_weight=np.array([1.0, 0.0]), verbose=0) == \
        pytest.approx(0.5)
    hist = model.fit(x, np.array([0, 1]), class_weight={0: 0.0, 1: 2.0}, verbose=0,
                     shuffle=False)
    assert hist.history["loss"] == [pytest.approx(1.0)]   # (0 * 0 + 2 * 1) / 2


def test_tensorboard_csv_logger_and_reduce_lr(tmp_path):
    x, y = _blobs(48)
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, activation="softmax",
                                                       input_shape=(4,))])
    model.compile(tf.keras.optimizers.SGD(0.1), "sparse_categorical_crossentropy",
                  metrics=["acc"])
    reduce = tf.keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=0,
                                                  min_delta=100.0)
    model.fit(x, y, epochs=3, verbose=0, validation_data=(x, y), callbacks=[
        tf.keras.callbacks.TensorBoard(log_dir=str(tmp_path / "tb")),
        tf.keras.callbacks.CSVLogger(str(tmp_path / "log.csv")), reduce])
    lines = (tmp_path / "log.csv").read_text().splitlines()
    assert lines[0] == "epoch,acc,loss,val_acc,val_loss" and len(lines) == 4
    assert [line.split(",")[0] for line in lines[1:]] == ["0", "1", "2"]
    assert any(p.name.startswith("events.out.tfevents") for p in (tmp_path / "tb").iterdir())
    # min_delta=100: never an improvement, so each epoch halves the rate (after the first)
    assert float(tf.keras.backend.get_value(model.optimizer.lr)) == pytest.approx(0.025)
