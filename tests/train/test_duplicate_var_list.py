"""A variable listed more than once in ``var_list`` / ``grads_and_vars``: TF 1.x updates it
once per listing (GradientDescent moves it by twice the step, Adam and RMSProp run their
update twice on the same slots, the shared beta powers advance once). Checked against TF
2.15's numbers (``tools/record_tf_duplicate_vars.py``), in float32 and float64, in both
update modes of the fused op, and through the TF GraphDef export."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.train import apply_op

HERE = pathlib.Path(__file__).parent
GOLDEN = json.loads((HERE / "duplicate_vars_golden.json").read_text())


def _load():
    spec = importlib.util.spec_from_file_location("estimator_npu_tests_duplicate_var_cases",
                                                  HERE / "duplicate_var_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = _load()


def _check(name, got):
    want = GOLDEN[name]
    assert got["info"] == want["info"]
    assert len(got["steps"]) == len(want["steps"]) == CASES.STEPS
    for step, (g, w) in enumerate(zip(got["steps"], want["steps"])):
        assert len(g) == len(w)
        for i, (a, b) in enumerate(zip(g, w)):
            np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6,
                                       err_msg=f"{name}: tensor {i} after step {step + 1}")


def test_every_case_has_a_golden_record():
    assert sorted(CASES.CASES) == sorted(GOLDEN)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES.CASES))
def test_updates_match_tf(name, dtype):
    _check(name, CASES.run(tf, CASES.CASES[name], dtype))


@pytest.mark.parametrize("flat", [True, False], ids=["flat", "per_tensor"])
@pytest.mark.parametrize("name", ["adam", "sgd_two_grads", "rmsprop_minimize_three_times"])
def test_both_update_modes(name, flat, monkeypatch):
    monkeypatch.setattr(apply_op, "use_flat", lambda *args: flat)
    _check(name, CASES.run(tf, CASES.CASES[name]))


def _adam_in_list_order(b0, grads, lr=0.05):
    """float64 Adam, one update per gradient in list order, all at the first step's
    powers (the beta powers advance once per apply, after every update)."""
    lr_t = lr * np.sqrt(1 - 0.999) / (1 - 0.9)
    m = v = 0.0
    b = np.float64(b0)
    for g in grads:
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        b = b - lr_t * m / (np.sqrt(v) + 1e-8)
    return b


@pytest.mark.parametrize("flat", [True, False], ids=["flat", "per_tensor"])
def test_different_gradients_apply_in_list_order(flat, monkeypatch):
    """TF runs the updates of one variable in no fixed order (each one whole); ours run in
    list order, one of TF's. Adam's later update reads the moments the earlier wrote: not
    one update with the gradients summed, nor the last one alone."""
    monkeypatch.setattr(apply_op, "use_flat", lambda *args: flat)
    grads = [np.float32([0.8, -0.1]), np.float32([-0.3, 0.5]), np.float32([2.0, 0.01])]
    g = tf.Graph()
    with g.as_default():
        b = tf.Variable(np.float32([0.5, -0.25]), name="b")
        w = tf.Variable(np.float32([1.0]), name="w")
        opt = tf.train.AdamOptimizer(0.05)
        op = opt.apply_gradients([(tf.constant(grads[0]), b), (tf.constant([1.0]), w),
                                  (tf.constant(grads[1]), b), (tf.constant(grads[2]), b)])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(op)
            power = [v for v in opt.variables() if v.op.name == "beta1_power"][0]
            got_b, got_w, power = sess.run([b, w, power])
    np.testing.assert_allclose(got_b, _adam_in_list_order([0.5, -0.25], grads), rtol=1e-5)
    np.testing.assert_allclose(got_w, _adam_in_list_order([1.0], [1.0]), rtol=1e-6)
    np.testing.assert_allclose(power, 0.81, rtol=1e-6)  # advanced once: 0.9 -> 0.81


def test_condition_false_skips_every_listing():
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(np.float32([1.0, 2.0]), name="w")
        ok = tf.placeholder(tf.bool, [])
        op = tf.train.MomentumOptimizer(0.1, 0.9).apply_gradients(
            [(tf.ones([2]), w), (tf.ones([2]), w)], condition=ok)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(op, {ok: False})
            np.testing.assert_array_equal(sess.run(w), [1.0, 2.0])
            sess.run(op, {ok: True})
            # momentum 1 then 1.9: w -= 0.1 * (1 + 1.9)
            np.testing.assert_allclose(sess.run(w), [0.71, 1.71], rtol=1e-6)


def test_graph_def_export_has_one_update_per_listing():
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(np.float32([1.0, 2.0]), name="w")
        b = tf.Variable(np.float32([3.0]), name="b")
        loss = tf.reduce_sum(w * w) + tf.reduce_sum(b)
        tf.train.RMSPropOptimizer(0.1).minimize(loss, var_list=[w, b, b], name="train")
        names = [n.name for n in g.as_graph_def().node if n.op == "ApplyRMSProp"]
    assert sorted(names) == ["train/update_b/ApplyRMSProp", "train/update_b_1/ApplyRMSProp",
                             "train/update_w/ApplyRMSProp"]


@pytest.mark.parametrize("ranges", [False, True], ids=["whole", "ranges"])
def test_grad_hook_gradient_serves_every_listing(ranges):
    """With a grad_hook (the distributed optimizer's all-reduce) each listing is updated
    with the hooked gradient, as TF would all-reduce each listed gradient."""
    def halve(flat, layouts):
        for f in flat:
            f *= 0.5
        if ranges:   # the tailing form: update range by range
            return iter([(0, 0, 2), (0, 2, layouts[0].size)])
        return None
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(np.float32([1.0, 2.0, 3.0]), name="w")
        b = tf.Variable(np.float32([1.0]), name="b")
        loss = tf.reduce_sum(w * w) + tf.reduce_sum(b)
        opt = tf.train.GradientDescentOptimizer(0.1)
        gv = opt.compute_gradients(loss, var_list=[w, b, w])
        op = opt.apply_gradients(gv, grad_hook=halve)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(op)
            got_w, got_b = sess.run([w, b])
    # d/dw = 2w, halved = w; two updates of lr * w each
    np.testing.assert_allclose(got_w, np.float32([1.0, 2.0, 3.0]) * (1 - 2 * 0.1), rtol=1e-6)
    np.testing.assert_allclose(got_b, [1.0 - 0.1 * 0.5], rtol=1e-6)


@pytest.mark.parametrize("make", [lambda: tf.train.AdamOptimizer(0.1),
                                  lambda: tf.train.RMSPropOptimizer(0.1, momentum=0.5)],
                         ids=["adam", "rmsprop"])
def test_real_tf_runs_the_exported_graph_to_our_values(make, tmp_path):
    """Real TF imports our GraphDef of minimize(var_list=[w, b, b]) and, running its train
    op, gets our values (runs only where TF is; skips saying why otherwise)."""
    from tests.train.test_real_tf_interop import _run_tf
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(np.float32([[1.0, -2.0]]), name="w")
        b = tf.Variable(np.float32([0.5]), name="b")
        x = tf.constant(np.float32([[1.0], [2.0]]))
        loss = tf.reduce_sum(tf.square(tf.matmul(x, w) + b - 1.0))
        train = make().minimize(loss, var_list=[w, b, b], name="train")
        init = tf.global_variables_initializer()
        assert init.name == "init"
        tf.train.write_graph(g, str(tmp_path), "g.pb", as_text=False)
        with tf.Session() as sess:
            sess.run(init)
            for _ in range(3):
                sess.run(train)
            ours = {"w": sess.run(w), "b": sess.run(b)}
    theirs = _run_tf("run_train_graph.py", str(tmp_path / "g.pb"), "3", "w", "b")
    for name, value in ours.items():
        np.testing.assert_allclose(theirs[name], value, rtol=1e-5, err_msg=name)
