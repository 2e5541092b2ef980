"""A variable listed more than once in ``var_list`` / ``grads_and_vars``: one update per
listed pair, shared scalars and the global step advanced once per run, as TF 2.15 does
(``tools/record_tf_duplicate_vars.py`` wrote the golden; wiseodd's DualGAN relies on it)."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

import estimator_npu as tf

HERE = pathlib.Path(__file__).parent
GOLDEN = json.loads((HERE / "duplicate_vars_tf215.json").read_text())


def _load():
    spec = importlib.util.spec_from_file_location("estimator_npu_tests_duplicate_var_cases",
                                                  HERE / "duplicate_var_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = _load()


def test_every_case_has_a_golden_record():
    assert sorted(CASES.CASES) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(CASES.CASES))
def test_updates_match_tf(name):
    got = CASES.run(tf, CASES.CASES[name])
    want = GOLDEN[name]
    assert len(got) == len(want) == CASES.STEPS
    for step, (g, w) in enumerate(zip(got, want)):
        assert len(g) == len(w)
        for k, (a, b) in enumerate(zip(g, w)):
            np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64),
                                       rtol=2e-5, atol=1e-6,
                                       err_msg=f"{name}: step {step}, tensor {k}")


def test_repeat_is_not_a_merged_gradient():
    # Momentum applied twice with g differs from once with 2 g: the repeat really is a
    # second update (accumulator updated twice), not a summed gradient.
    got = CASES.run(tf, CASES.CASES["momentum_var_list"])[-1][0]
    with tf.Graph().as_default():
        w, b, loss, gs = CASES._problem(tf)
        train = tf.train.MomentumOptimizer(0.01, 0.9).minimize(2.0 * loss, var_list=[w])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(CASES.STEPS):
                sess.run(train)
            merged = sess.run(w)
    assert np.abs(np.asarray(got) - merged).max() > 1e-3


def test_repeat_with_a_grad_hook_is_refused():
    with tf.Graph().as_default():
        w = tf.Variable(np.ones(2, np.float32), name="w")
        opt = tf.train.GradientDescentOptimizer(0.1)
        with pytest.raises(ValueError, match="variable w appears more than once.*grad_hook"):
            opt.apply_gradients([(w * 1.0, w), (w * 2.0, w)], grad_hook=lambda g, l: None)


def test_condition_false_skips_the_repeats_too():
    with tf.Graph().as_default():
        w = tf.Variable(np.ones(2, np.float32), name="w")
        flag = tf.placeholder(tf.bool, [])
        gs = tf.train.get_or_create_global_step()
        op = tf.train.AdamOptimizer(0.1).apply_gradients(
            [(tf.ones([2]), w), (tf.ones([2]), w)], global_step=gs, condition=flag)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(op, {flag: False})
            np.testing.assert_array_equal(sess.run(w), [1.0, 1.0])
            assert sess.run(gs) == 0
            sess.run(op, {flag: True})
            assert sess.run(gs) == 1
            # two Adam updates with g = 1, both with the first step's beta powers
            lr_t = 0.1 * np.sqrt(1 - 0.999) / (1 - 0.9)
            w_want, m, v = 1.0, 0.0, 0.0
            for _ in range(2):
                m, v = 0.9 * m + 0.1, 0.999 * v + 0.001
                w_want -= lr_t * m / (np.sqrt(v) + 1e-8)
            np.testing.assert_allclose(sess.run(w), [w_want, w_want], rtol=1e-5)


def test_graph_def_of_a_repeat_advances_beta_powers_once():
    # the exported TF form: two ApplyAdam nodes for w, one Assign per beta power
    with tf.Graph().as_default() as g:
        w = tf.Variable(np.ones(2, np.float32), name="w")
        gs = tf.train.get_or_create_global_step()
        tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(w * w), global_step=gs,
                                             var_list=[w, w])
        nodes = g.as_graph_def().node
    adam = [n for n in nodes if n.op == "ApplyAdam"]
    assert sorted(n.input[0] for n in adam) == ["w", "w"]
    beta_assigns = [n for n in nodes if n.op == "Assign" and n.input[0].startswith("beta")
                    and not n.name.startswith("beta")]  # not the initializers
    assert sorted(n.input[0] for n in beta_assigns) == ["beta1_power", "beta2_power"]
    assert len([n for n in nodes if n.op == "AssignAdd"]) == 1
