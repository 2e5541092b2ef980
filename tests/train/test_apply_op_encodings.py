"""The TF encodings of ``ApplyUpdates`` for Adadelta, FTRL (V1 and V2), ProximalAdagrad
and a loss-scaling condition, against the nodes real TF's optimizers write
(``golden_tf/apply_ops.json``, tools/record_tf_apply_ops.py), without TF."""
import json
import os

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.engine import graph_def as gd

HERE = os.path.dirname(__file__)
with open(os.path.join(HERE, "golden_tf", "apply_ops.json")) as f:
    GOLDEN = json.load(f)

# the optimizers the recorder built, by their golden entry: [class, args, kwargs]
OPTIMIZERS = {kind: (lambda spec=want["optimizer"]:
                     getattr(tf.train, spec[0])(*spec[1], **spec[2]))
              for kind, want in GOLDEN.items()}


def _roles(inputs):
    """The variable and slots by name, the gradient and the hyper-parameters by role."""
    out = []
    for i in inputs:
        out.append(i if i == "VAR" or i.startswith("VAR/") else
                   "GRAD" if i.startswith("gradients/") or i == "GRAD" else "HYPER")
    return out


def _ours(opt_fn, condition=None):
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(tf.ones([3, 2]), name="w")
        gs = tf.train.get_or_create_global_step()
        opt = opt_fn()
        gv = opt.compute_gradients(tf.reduce_sum(w * 2.0))
        grad = gv[0][0]
        train = opt.apply_gradients(gv, global_step=gs, condition=condition and condition())
    nodes = {n.name: n for n in g.as_graph_def().node}
    apply = [n for n in nodes.values() if n.op.startswith("Apply")]
    assert len(apply) == 1, [n.op for n in nodes.values()]
    n = apply[0]
    gname = grad.op.name if grad.value_index == 0 else grad.name

    def norm(i):
        return "VAR" if i == "w" else "GRAD" if i == gname else \
            "VAR/" + i[2:] if i.startswith("w/") else i
    return n, [norm(i) for i in n.input if not i.startswith("^")], nodes, train


@pytest.mark.parametrize("kind", sorted(OPTIMIZERS))
def test_apply_nodes_are_tfs(kind):
    want = GOLDEN[kind]
    node, inputs, _, _ = _ours(OPTIMIZERS[kind])
    assert node.op == want["op"]
    assert _roles(inputs) == _roles(want["inputs"])
    attrs = {k: (v.b if v.WhichOneof("value") == "b" else
                 gd.enum_dtype(v.type).name if v.WhichOneof("value") == "type"
                 else v.WhichOneof("value")) for k, v in node.attr.items()}
    want_attrs = {k: v for k, v in want["attrs"].items()
                  if k != "_has_manual_control_dependencies"}
    assert attrs == want_attrs


def test_a_condition_becomes_a_switch_that_gates_every_update():
    cond = lambda: tf.placeholder(tf.bool, [], name="finite")  # noqa: E731
    node, _, nodes, train = _ours(OPTIMIZERS["momentum"], cond)
    sw = nodes["Momentum/cond/Switch"]
    assert sw.op == "Switch" and list(sw.input) == ["finite", "finite"]
    assert nodes["Momentum/cond/switch_t"].input[0] == "Momentum/cond/Switch:1"
    assert "^Momentum/cond/switch_t" in node.input
    # the global step is counted inside the branch; the train op waits for the Merge
    assert nodes["Momentum/cond/apply"].op == "AssignAdd"
    assert list(nodes["Momentum/cond/Merge"].input) == ["Momentum/cond/switch_f",
                                                        "Momentum/cond/switch_t_done"]
    assert nodes["Momentum"].op == "NoOp" and list(nodes["Momentum"].input) == [
        "^Momentum/cond/Merge"]
    assert train.name == "Momentum"


_TF_LOSS_SCALE = """
import json
prefix, out = PREFIX, OUT
with tf.Session() as sess:
    tf.train.import_meta_graph(prefix + ".meta").restore(sess, prefix)
    g = tf.get_default_graph()
    x, train = g.get_tensor_by_name("x:0"), g.get_operation_by_name(TRAIN)
    names = ["w", "global_step", "loss_scale", "good_steps", "bad_steps", "w/Momentum"]
    seen = []
    for feed in FEEDS:
        sess.run(train, {x: np.asarray(feed, np.float32)})
        seen.append({n: np.asarray(sess.run(g.get_tensor_by_name(n + ":0"))).tolist()
                     for n in names})
json.dump(seen, open(out, "w"))
"""


def test_real_tf_runs_our_loss_scaled_step_skipping_non_finite_gradients(tmp_path,
                                                                          run_real_tf):
    feeds = [[1.0, 2.0, 3.0], [1.0, np.inf, 3.0], [0.5, -1.0, 2.0], [np.nan, 0.0, 0.0],
             [np.nan, 0.0, 0.0], [2.0, 1.0, -1.0]]
    names = ["w", "global_step", "loss_scale", "good_steps", "bad_steps", "w/Momentum"]
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [3], name="x")
        w = tf.Variable(np.array([0.5, -0.25, 1.0], np.float32), name="w")
        gs = tf.train.get_or_create_global_step()
        opt = tf.npu.NPULossScaleOptimizer(
            tf.train.MomentumOptimizer(0.05, 0.9),
            tf.npu.ExponentialUpdateLossScaleManager(2 ** 10, incr_every_n_steps=2,
                                                     decr_every_n_nan_or_inf=2))
        train = opt.minimize(tf.reduce_sum(w * x * w), global_step=gs)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            prefix = tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"))
            ours = []
            for feed in feeds:
                sess.run(train, {x: np.asarray(feed, np.float32)})
                ours.append({n: np.asarray(sess.run(g.get_tensor_by_name(n + ":0"))).tolist()
                             for n in names})
    # ours: the non-finite steps change nothing but the manager's counters and scale
    assert [s["global_step"] for s in ours] == [1, 1, 2, 2, 2, 3]
    assert [s["bad_steps"] for s in ours] == [0, 1, 1, 0, 1, 1]
    assert [s["good_steps"] for s in ours] == [1, 0, 1, 0, 0, 1]
    assert ours[1]["w"] == ours[0]["w"] and ours[4]["w"] == ours[2]["w"] != ours[0]["w"]
    assert ours[4]["loss_scale"] == np.float32(2 ** 10 * np.float32(0.8))
    out = tmp_path / "tf.json"
    run_real_tf(_TF_LOSS_SCALE.replace("PREFIX", repr(prefix)).replace(
        "OUT", repr(str(out))).replace("TRAIN", repr(train.name)).replace(
        "FEEDS", repr([[float(v) for v in f] for f in feeds]).replace("inf", "float('inf')")
        .replace("nan", "float('nan')")))
    with open(out) as f:
        theirs = json.load(f)
    for step, (a, b) in enumerate(zip(theirs, ours)):
        for n in names:
            np.testing.assert_allclose(a[n], b[n], rtol=1e-6, err_msg=f"{n} after step {step}")


def test_lamb_is_written_as_the_reference_optimizers_ops():
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(tf.ones([3, 2]), name="w")
        b = tf.Variable(tf.ones([2]), name="dense/bias")
        opt = tf.train.LAMBOptimizer(0.01, weight_decay_rate=0.1,
                                     exclude_from_weight_decay=["bias"])
        opt.minimize(tf.reduce_sum(w * 2.0) + tf.reduce_sum(b))
    nodes = {n.name: n for n in g.as_graph_def().node}
    assert not [n for n in nodes.values() if n.op in ("ApplyUpdates", "LAMB")]
    scope = "LAMBOptimizer/update_w/"
    assert [list(nodes[scope + k].input[:2]) for k in ("Assign", "Assign_1", "Assign_2")] == [
        ["w", scope + "next_param"], ["w/lamb_m", scope + "next_m"],
        ["w/lamb_v", scope + "next_v"]]
    assert nodes[scope + "ratio"].op == "Select"
    assert scope + "add_1" in nodes                      # weight decay on w ...
    assert "LAMBOptimizer/update_dense/bias/add_1" not in nodes   # ... not on the bias
    one_minus = gd.tensor_proto_value(nodes[scope + "one_minus_beta2"].attr["value"].tensor)
    assert one_minus == np.float32(1.0 - 0.999)


def test_loss_scaling_ops_have_tf_forms():
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(tf.ones([3, 2]), name="w")
        h = tf.Variable(tf.ones([2], tf.float16), name="h")
        opt = tf.npu.NPULossScaleOptimizer(
            tf.train.GradientDescentOptimizer(0.1),
            tf.npu.ExponentialUpdateLossScaleManager(2 ** 8, incr_every_n_steps=10))
        opt.minimize(tf.reduce_sum(w * 2.0) + tf.cast(tf.reduce_sum(h), tf.float32),
                     global_step=tf.train.get_or_create_global_step())
    nodes = {n.name: n for n in g.as_graph_def().node}
    types = {n.op for n in nodes.values()}
    assert not types & {"UnscaleGradients", "AllFinite", "UpdateLossScale", "ApplyUpdates"}
    unscale = [n for n in nodes.values() if n.op == "IdentityN"]
    assert len(unscale) == 1 and len(unscale[0].attr["T"].list.type) == 3
    assert any(n.op == "Cast" and n.name.endswith("/inv_float16") for n in nodes.values())
    assert [nodes["update_loss_scale/" + k].input[0] for k in
            ("Assign", "Assign_1", "Assign_2")] == ["loss_scale", "good_steps", "bad_steps"]
