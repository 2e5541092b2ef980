"""The module paths TF1 scripts import tf.keras from resolve to estimator_npu.keras."""
import pytest


def test_keras_import_paths(aliases):
    import estimator_npu.keras as ours
    from tensorflow.keras import backend as K
    from tensorflow.keras.callbacks import EarlyStopping, ModelCheckpoint
    from tensorflow.keras.layers import LSTM, Dense
    from tensorflow.keras.models import Model, Sequential
    from tensorflow.keras.optimizers import Adam
    from tensorflow.python.keras import backend as K2
    from tensorflow.python.keras.layers import Conv2D
    from tensorflow.python.keras.utils import np_utils, to_categorical
    assert Dense is ours.layers.Dense and LSTM is ours.layers.LSTM
    assert Conv2D is ours.layers.Conv2D and Model is ours.Model
    assert Sequential is ours.Sequential and Adam is ours.optimizers.Adam
    assert EarlyStopping is ours.callbacks.EarlyStopping
    assert ModelCheckpoint is ours.callbacks.ModelCheckpoint
    assert K.learning_phase is K2.learning_phase is ours.backend.learning_phase
    assert to_categorical is np_utils.to_categorical is ours.utils.to_categorical
    with pytest.raises(ImportError, match=r"does not implement tensorflow\.python\.keras\."
                                          r"layers\.ConvLSTM2D \(yet\)"):
        from tensorflow.python.keras.layers import ConvLSTM2D  # noqa: F401
