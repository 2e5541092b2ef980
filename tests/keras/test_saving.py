"""Model.save_weights writes TF 2.15's object-based keys; load_weights reads them and the
older variable-name layout."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.train.checkpoint_io import list_variables
from estimator_npu.train.saver import Saver

# what TF 2.15 (tf.compat.v1, disable_v2_behavior) lists for a Dense(3) -> Dense(2)
# Sequential's save_weights, less its _CHECKPOINTABLE_OBJECT_GRAPH entry
TF_KEYS = ["layer_with_weights-0/bias/.ATTRIBUTES/VARIABLE_VALUE",
           "layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE",
           "layer_with_weights-1/bias/.ATTRIBUTES/VARIABLE_VALUE",
           "layer_with_weights-1/kernel/.ATTRIBUTES/VARIABLE_VALUE"]


def _model():
    m = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,), activation="relu"),
                             tf.keras.layers.Dropout(0.5), tf.keras.layers.Dense(2)])
    m.compile("sgd", "mse")
    return m


def test_save_weights_uses_tf_keys_and_round_trips(tmp_path):
    tf.reset_default_graph()
    m = _model()
    m.save_weights(str(tmp_path / "w" / "ckpt"))
    assert sorted(n for n, _ in list_variables(str(tmp_path / "w" / "ckpt"))) == TF_KEYS
    saved = m.get_weights()
    m.set_weights([np.zeros_like(w) for w in saved])
    m.load_weights(str(tmp_path / "w" / "ckpt"))
    for got, want in zip(m.get_weights(), saved):
        np.testing.assert_array_equal(got, want)
    m.set_weights([np.zeros_like(w) for w in saved])
    m.load_weights(str(tmp_path / "w"))  # a folder: its latest checkpoint
    np.testing.assert_array_equal(m.get_weights()[0], saved[0])


def test_load_weights_reads_the_variable_name_layout(tmp_path):
    tf.reset_default_graph()
    m = _model()
    Saver({v.op.name: v for v in m.weights}).save(tf.keras.backend.get_session(),
                                                 str(tmp_path / "old"))
    saved = m.get_weights()
    m.set_weights([np.zeros_like(w) for w in saved])
    m.load_weights(str(tmp_path / "old"))
    np.testing.assert_array_equal(m.get_weights()[2], saved[2])


def test_load_weights_of_another_architecture_names_the_missing_keys(tmp_path):
    tf.reset_default_graph()
    small = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,))])
    small.compile("sgd", "mse")
    small.save_weights(str(tmp_path / "small"))
    with pytest.raises(ValueError, match=r"does not hold this model's weights: missing "
                                         r"\['layer_with_weights-1"):
        _model().load_weights(str(tmp_path / "small"))
    with pytest.raises(ValueError, match="is not a checkpoint"):
        small.load_weights(str(tmp_path / "nothing"))


def test_load_weights_reads_a_checkpoint_tf_wrote():
    import os
    here = os.path.join(os.path.dirname(__file__), "tf_weights")
    tf.reset_default_graph()
    m = _model()
    m.load_weights(os.path.join(here, "ckpt"))
    with np.load(os.path.join(here, "weights.npz")) as f:
        want = [f[f"arr_{i}"] for i in range(4)]
    for got, w in zip(m.get_weights(), want):
        np.testing.assert_array_equal(got, w)


def test_load_weights_still_reads_a_checkpoint_written_under_an_h5_name(tmp_path):
    """Earlier versions wrote save_weights('w.h5') as a TF checkpoint (w.h5.index)."""
    tf.reset_default_graph()
    m = _model()
    Saver({v.op.name: v for v in m.weights}).save(tf.keras.backend.get_session(),
                                                 str(tmp_path / "w.h5"))
    saved = m.get_weights()
    m.set_weights([np.zeros_like(w) for w in saved])
    m.load_weights(str(tmp_path / "w.h5"))
    np.testing.assert_array_equal(m.get_weights()[0], saved[0])
