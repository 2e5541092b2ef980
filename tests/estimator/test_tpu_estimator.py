"""TPUEstimator with use_tpu=False (estimator/tpu_estimator.py) against real TF 2.15's run of
the same scenario (tests/estimator/tpu_scenario.py; golden by tools/record_tpu_estimator.py)."""
import json
import pathlib

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.compat import install, uninstall
from tests.estimator import tpu_scenario

GOLDEN = json.loads((pathlib.Path(__file__).parent / "golden" /
                     "tpu_estimator_tf215.json").read_text())


@pytest.fixture(scope="module")
def ours(tmp_path_factory):
    return tpu_scenario.run(tf, str(tmp_path_factory.mktemp("tpu") / "model"))


@pytest.mark.parametrize("key", ["input_pipeline", "tpu_config", "run_config", "params",
                                 "files", "seen", "plain_spec_step", "errors"])
def test_same_as_tf(ours, key):
    assert ours[key] == GOLDEN[key]


def test_evaluate_and_predict_values_as_tf(ours):
    for key, (kind, value) in GOLDEN["eval"].items():
        assert ours["eval"][key][0] == kind, key
        np.testing.assert_allclose(ours["eval"][key][1], value, rtol=1e-5, err_msg=key)
    for key, value in GOLDEN["eval_steps2"].items():
        np.testing.assert_allclose(ours["eval_steps2"][key], value, rtol=1e-5, err_msg=key)
    assert ours["predict"][:2] == GOLDEN["predict"][:2]
    np.testing.assert_allclose(ours["predict"][2], GOLDEN["predict"][2], rtol=1e-5)
    assert ours["predict"][3] == GOLDEN["predict"][3]


def test_contrib_tpu_and_tf_tpu_names():
    assert tf.contrib.tpu.TPUEstimator is tf.estimator.tpu.TPUEstimator
    assert tf.contrib.tpu.RunConfig is tf.estimator.tpu.RunConfig
    assert tf.tpu.CrossShardOptimizer is tf.contrib.tpu.CrossShardOptimizer
    install()
    try:
        from tensorflow.contrib import tpu as contrib_tpu   # noqa: the script's spelling
        assert contrib_tpu.TPUEstimatorSpec is tf.estimator.tpu.TPUEstimatorSpec
    finally:
        uninstall()
    with pytest.raises(AttributeError, match="does not implement tf.contrib.tpu.keras_to_tpu"):
        tf.contrib.tpu.keras_to_tpu_model   # noqa: B018


def test_run_config_checks_tpu_config_and_logs_tf_fields():
    with pytest.raises(ValueError, match="tpu_config must be a tpu.TPUConfig"):
        tf.contrib.tpu.RunConfig(tpu_config=3)
    config = tf.contrib.tpu.RunConfig(master="grpc://m:1", evaluation_master="grpc://e:2")
    assert (config.master, config.evaluation_master) == ("grpc://m:1", "grpc://e:2")

    class Resolver:
        def master(self):
            return "grpc://resolved:3"
    assert tf.contrib.tpu.RunConfig(cluster=Resolver()).master == "grpc://resolved:3"
    from estimator_npu.estimator.run_config import logged_config
    text = logged_config(config)
    assert "'_tpu_config': TPUConfig(iterations_per_loop=2" in text and "'_cluster': None" in text
    assert "'_master': 'grpc://m:1'" in text and "__master" not in text


def test_batch_sizes_must_be_positive_ints(tmp_path):
    config = tf.contrib.tpu.RunConfig(model_dir=str(tmp_path))
    for bad in (0, -1, 2.0, True):
        with pytest.raises(ValueError, match="train_batch_size must be a positive int"):
            tf.contrib.tpu.TPUEstimator(lambda features, labels, mode, params: None,
                                        config=config, use_tpu=False, train_batch_size=bad)


def test_cross_shard_optimizer_updates_as_the_wrapped_one():
    results = []
    for wrap in (False, True):
        g = tf.Graph()
        with g.as_default():
            v = tf.Variable([1.0, -2.0])
            loss = tf.reduce_sum(tf.square(v))
            opt = tf.train.MomentumOptimizer(0.1, 0.9)
            if wrap:
                opt = tf.tpu.CrossShardOptimizer(opt)
            step = opt.minimize(loss)
            with tf.Session() as s:
                s.run(tf.global_variables_initializer())
                for _ in range(3):
                    s.run(step)
                results.append(s.run(v))
    np.testing.assert_array_equal(results[0], results[1])
    with pytest.raises(ValueError, match="Unsupported reduction"):
        tf.tpu.CrossShardOptimizer(tf.train.AdamOptimizer(), reduction="mean")
    with pytest.raises(TypeError, match="opt must be an optimizer"):
        tf.tpu.CrossShardOptimizer(3)


def test_use_tpu_true_runs_on_the_host_with_a_warning(tmp_path, caplog):
    def model_fn(features, labels, mode, params):
        assert params["use_tpu"] is True
        w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
        loss = tf.square(w - 1.0)
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.contrib.tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op)

    def input_fn(params):
        return tf.data.Dataset.from_tensors(({"x": [0.0]}, [0])).repeat()

    est = tf.contrib.tpu.TPUEstimator(model_fn, config=tf.contrib.tpu.RunConfig(
        model_dir=str(tmp_path)), train_batch_size=2)
    assert "there is no TPU here" in caplog.text
    est.train(input_fn, steps=3)
    assert est.get_variable_value("global_step") == 3
