"""``npu_bridge.estimator.npu.npu_rnn.npu_dynamic_rnn`` (time-major static unroll) against
``tf.nn.dynamic_rnn(time_major=True)`` on the same variables, and
``keras_to_npu.model_to_npu_estimator``: the adapter's argument checks, and a compiled
Keras model trained, evaluated and predicted by the NPUEstimator it returns."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import compat
from estimator_npu.npu.keras_to_npu import model_to_npu_estimator
from estimator_npu.npu.npu_rnn import npu_dynamic_rnn


@pytest.mark.parametrize("lengths", [None, [5, 2, 0]])
def test_npu_dynamic_rnn_matches_time_major_dynamic_rnn(lengths):
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((5, 3, 4)).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [5, None, 4])
        seq = None if lengths is None else tf.constant(lengths)
        cell = tf.nn.rnn_cell.BasicLSTMCell(6)
        out, state = npu_dynamic_rnn(cell, x, dtype=tf.float32, sequence_length=seq)
        assert out.shape[0] == 5 and out.shape[-1] == 6
        assert [v.op.name for v in tf.trainable_variables()] == \
            ["rnn/basic_lstm_cell/kernel", "rnn/basic_lstm_cell/bias"]
        with tf.variable_scope(tf.get_variable_scope(), reuse=True):
            ref_out, ref_state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32, time_major=True,
                                                   sequence_length=seq, scope="rnn")
        grads = tf.gradients(tf.reduce_sum(out * out), tf.trainable_variables())
        ref_grads = tf.gradients(tf.reduce_sum(ref_out * ref_out), tf.trainable_variables())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, want = sess.run([[out, state, grads], [ref_out, ref_state, ref_grads]],
                                 {x: xs})
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)
    for a, b in zip(got[1] + tuple(got[2]), want[1] + tuple(want[2])):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    if lengths is not None:
        assert not got[0][2:, 1].any() and not got[0][:, 2].any()


def test_npu_dynamic_rnn_needs_a_known_time_dimension():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2, 3])
        with pytest.raises(ValueError, match="time-major"):
            npu_dynamic_rnn(tf.nn.rnn_cell.BasicRNNCell(2), x, dtype=tf.float32)


def test_model_to_npu_estimator_checks_arguments():
    with pytest.raises(ValueError, match="Either `keras_model` or `keras_model_path`"):
        model_to_npu_estimator()
    with pytest.raises(ValueError, match="not both"):
        model_to_npu_estimator(keras_model=object(), keras_model_path="m.h5")
    with pytest.raises(ValueError, match="Checkpoint format"):
        model_to_npu_estimator(keras_model=object(), checkpoint_format="h5")
    with pytest.raises(ValueError, match="only Sequential and functional models"):
        model_to_npu_estimator(keras_model=object())


def test_model_to_npu_estimator_runs_the_keras_model_in_an_npu_estimator(tmp_path):
    from estimator_npu.npu import NPUEstimator, NPURunConfig
    tf.keras.backend.clear_session()
    rng = np.random.RandomState(0)
    x = rng.rand(96, 4).astype(np.float32)
    y = (x[:, 0] > x[:, 1]).astype(np.int32)
    model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu", input_shape=(4,),
                                                       name="hidden"),
                                 tf.keras.layers.Dense(2, activation="softmax", name="probs")])
    model.compile(tf.keras.optimizers.SGD(0.5), "sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    keras_pred = model.predict(x[:4])
    cfg = NPURunConfig(model_dir=str(tmp_path / "m"), iterations_per_loop=4,
                       save_checkpoints_steps=8)
    est = model_to_npu_estimator(keras_model=model, config=cfg)
    assert isinstance(est, NPUEstimator)
    feats = model.input_names[0]

    def pred_fn():
        return tf.data.Dataset.from_tensor_slices({feats: x[:4]}).batch(4)

    before = np.stack([p["probs"] for p in est.predict(pred_fn)])
    np.testing.assert_allclose(before, keras_pred, rtol=1e-5)   # the Keras weights
    est.train(lambda: tf.data.Dataset.from_tensor_slices(({feats: x}, y)).repeat().batch(16),
              steps=8)
    ev = est.evaluate(lambda: tf.data.Dataset.from_tensor_slices(({feats: x}, y)).batch(32))
    assert ev["global_step"] == 8 and 0.0 <= ev["acc"] <= 1.0 and np.isfinite(ev["loss"])
    assert tf.train.latest_checkpoint(str(tmp_path / "m")).endswith("model.ckpt-8")


def test_adapter_import_paths():
    compat.install()
    try:
        from npu_bridge.estimator.npu import keras_to_npu, npu_rnn
        from npu_bridge.estimator.npu.npu_rnn import npu_dynamic_rnn as aliased
        assert aliased is npu_dynamic_rnn
        assert keras_to_npu.model_to_npu_estimator is model_to_npu_estimator
        assert npu_rnn.__name__.endswith("npu_rnn")
    finally:
        compat.uninstall()
