"""The TF1 export paths of the training layer."""
import pytest

import estimator_npu as tf
from estimator_npu import train


@pytest.mark.parametrize("name", [
    "GradientDescentOptimizer", "MomentumOptimizer", "AdamOptimizer", "RMSPropOptimizer",
    "AdagradOptimizer", "LAMBOptimizer", "Optimizer", "Saver", "exponential_decay",
    "piecewise_constant", "polynomial_decay", "cosine_decay", "linear_warmup",
    "get_or_create_global_step", "get_global_step", "create_global_step", "global_step",
    "latest_checkpoint", "list_variables", "load_variable", "get_checkpoint_state",
    "checkpoint_exists", "NewCheckpointReader", "Supervisor", "Coordinator",
    "summary_iterator"])
def test_train_names(name):
    assert getattr(tf.train, name) is getattr(train, name)
    assert name in train.__all__


def test_summary_and_clip_names():
    for name in ("scalar", "histogram", "image", "text", "merge", "merge_all", "FileWriter",
                 "FileWriterCache", "Summary"):
        assert callable(getattr(tf.summary, name))
    assert tf.clip_by_global_norm and tf.global_norm and tf.clip_by_norm


def test_hook_names_resolve_lazily():
    from estimator_npu import hooks
    assert tf.train.SessionRunHook is hooks.SessionRunHook
    assert "CheckpointSaverHook" in dir(tf.train)
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchThing'"):
        tf.train.NoSuchThing  # noqa: B018
