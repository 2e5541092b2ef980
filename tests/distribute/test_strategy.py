"""``tf.distribute`` strategies on one replica (distribute/strategy.py) and the Estimator
under ``train_distribute`` / ``eval_distribute``, against real TF 2.15's run of the same
scenario (``strategy_scenario.py``; golden by ``tools/record_tf_strategy.py``)."""
import json
import pathlib

import pytest

import estimator_npu as tf
from tests.distribute import strategy_scenario

GOLDEN = json.loads((pathlib.Path(__file__).parent / "golden" /
                     "strategy_tf215.json").read_text())


@pytest.fixture(scope="module")
def ours(tmp_path_factory):
    return strategy_scenario.run(tf, str(tmp_path_factory.mktemp("strategy") / "model"))


@pytest.mark.parametrize("run", ["plain", "mirrored", "one_device"])
@pytest.mark.parametrize("key", ["logged", "lines", "config_keys", "seen", "variables",
                                 "events"])
def test_estimator_under_a_strategy_as_tf(ours, run, key):
    assert ours[run][key] == GOLDEN[run][key]


@pytest.mark.parametrize("run", ["plain", "mirrored", "one_device"])
def test_same_numbers_as_tf(ours, run):
    assert ours[run]["kernel"] == pytest.approx(GOLDEN[run]["kernel"], rel=1e-5)
    assert ours[run]["eval"] == pytest.approx(GOLDEN[run]["eval"], rel=1e-5)


def test_logged_step_is_read_before_the_update(ours):
    """TF reads the mirrored global step as a plain read: the same losses, logged one
    step lower than without a strategy."""
    plain, mirrored = ours["plain"]["logged"], ours["mirrored"]["logged"]
    assert [loss for loss, _ in plain] == [loss for loss, _ in mirrored]
    assert [step - 1 for _, step in plain] == [step for _, step in mirrored]


@pytest.mark.parametrize("key", sorted(GOLDEN["api"]))
def test_strategy_api_as_tf(ours, key):
    assert ours["api"][key] == GOLDEN["api"][key]


def test_several_devices_raise_naming_the_way_to_data_parallelism():
    with pytest.raises(ValueError, match=r"devices=\['/gpu:0', '/gpu:1'\].*estimator-npu-run"):
        tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"])


def test_reduce_op_checked():
    with pytest.raises(ValueError, match="reduce_op must be tf.distribute.ReduceOp"):
        tf.distribute.MirroredStrategy().reduce("MAX", tf.constant(1.0), axis=None)
    assert tf.distribute.get_strategy().reduce("sum", 3, axis=None) == 3


def test_input_context_splits_the_global_batch():
    ctx = tf.distribute.InputContext(1, 0, 4)
    assert ctx.get_per_replica_batch_size(64) == 16
    with pytest.raises(ValueError, match="global_batch_size` 10 is not divisible"):
        ctx.get_per_replica_batch_size(10)


def test_contrib_distribute_names_and_num_gpus():
    strategy = tf.contrib.distribute.MirroredStrategy(num_gpus=1)
    assert strategy.extended.worker_devices == ("/replica:0/task:0/device:CPU:0",)
    assert isinstance(tf.contrib.distribute.OneDeviceStrategy("/gpu:0"), tf.distribute.Strategy)
    with pytest.raises(ValueError, match="one replica per process"):
        tf.contrib.distribute.MirroredStrategy(num_gpus=2)


def test_keras_model_built_and_fit_under_scope():
    import numpy as np
    x = np.linspace(-1, 1, 32, dtype=np.float32).reshape(16, 2)
    y = x.sum(1, keepdims=True)
    with tf.Graph().as_default():
        with tf.distribute.MirroredStrategy().scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
            model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
        first = model.fit(x, y, epochs=1, verbose=0).history["loss"][0]
        last = model.fit(x, y, epochs=20, verbose=0).history["loss"][-1]
    assert last < first
