"""Adadelta, ProximalAdagrad, FTRL, ExponentialMovingAverage and the cosine schedules:
five steps of each against TF 2.15's float32 numbers (``tools/record_tf_optimizers.py``),
in float32 and again in float64 (the float64 run must agree with TF's float32 run to
float32 rounding), plus slot names and argument checks."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

import estimator_npu as tf

HERE = pathlib.Path(__file__).parent
GOLDEN = json.loads((HERE / "optimizers_extra_golden.json").read_text())


def _load():
    spec = importlib.util.spec_from_file_location("estimator_npu_tests_optimizer_cases",
                                                  HERE / "optimizer_extra_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = _load()


def test_every_case_has_a_golden_record():
    assert sorted(CASES.CASES) == sorted(GOLDEN)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES.CASES))
def test_trajectory_matches_tf(name, dtype):
    got = CASES.run(tf, CASES.CASES[name], dtype)
    want = GOLDEN[name]
    assert len(got) == len(want)
    for step, (g, w) in enumerate(zip(got, want)):
        assert len(g) == len(w)
        for i, (a, b) in enumerate(zip(g, w)):
            np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6,
                                       err_msg=f"{name}: tensor {i} after step {step + 1}")


@pytest.mark.parametrize("make, names", [
    (lambda: tf.train.AdadeltaOptimizer(), ["w/Adadelta:0", "w/Adadelta_1:0"]),
    (lambda: tf.train.FtrlOptimizer(0.1), ["w/Ftrl:0", "w/Ftrl_1:0"]),
    (lambda: tf.train.ProximalAdagradOptimizer(0.1), ["w/ProximalAdagrad:0"]),
])
def test_slot_variable_names(make, names):
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(np.ones(3, np.float32), name="w")
        make().minimize(tf.reduce_sum(w * w))
        assert sorted(v.name for v in tf.global_variables() if v.name != "w:0") == names


def test_bad_arguments_name_the_argument():
    with pytest.raises(ValueError, match="learning_rate_power"):
        tf.train.FtrlOptimizer(0.1, learning_rate_power=0.5)
    with pytest.raises(ValueError, match="l1_regularization_strength"):
        tf.train.ProximalAdagradOptimizer(0.1, l1_regularization_strength=-1.0)
    with pytest.raises(ValueError, match="initial_accumulator_value"):
        tf.train.ProximalAdagradOptimizer(0.1, initial_accumulator_value=0.0)
    with pytest.raises(ValueError, match="global_step is required"):
        tf.train.cosine_decay_restarts(0.1, None, 10)
    with pytest.raises(TypeError, match="only float variables"):
        with tf.Graph().as_default():
            tf.train.ExponentialMovingAverage(0.9).apply([tf.Variable(1, name="i")])
