"""precision_mode: which ops compute in fp16 under each mode (the table of
docs/mixed_precision.md), checked through ``precision.computes_in_fp16`` and by the
rounding observed in the values a session computes."""
import pathlib
import re

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.engine import precision
from npu_configs import session_config

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "mixed_precision.md"
MODES = ("force_fp32", "allow_fp32_to_fp16", "allow_mix_precision", "must_keep_origin_dtype",
         "force_fp16")
FP16_TYPES = {"MatMul", "BatchMatMul", "Conv2D", "Conv2DBackpropInput",
              "Conv2DBackpropFilter"}
FP16_MODES = {"allow_fp32_to_fp16", "allow_mix_precision", "force_fp16"}


def is_fp16_value(a):
    a = np.asarray(a, np.float32)
    return np.array_equal(precision.fp16_round(a), a)


def build_model(rng):
    """A graph with every op family of the table: cube ops (and conv backprops), dense,
    reductions, softmax, losses, variables and the optimizer."""
    x = tf.placeholder(tf.float32, [4, 6], name="x")
    img = tf.placeholder(tf.float32, [2, 5, 5, 3], name="img")
    labels = tf.placeholder(tf.int32, [4], name="labels")
    w = tf.Variable(rng.standard_normal((6, 7)).astype(np.float32), name="w")
    filt = tf.Variable(rng.standard_normal((3, 3, 3, 2)).astype(np.float32), name="filt")
    mm = tf.matmul(x, w, name="mm")
    bmm = tf.matmul(tf.reshape(x, [2, 2, 6]), tf.reshape(x, [2, 6, 2]), name="bmm")
    conv = tf.nn.conv2d(img, filt, strides=[1, 1, 1, 1], padding="SAME", name="conv")
    dense = tf.layers.dense(mm, 10, name="dense")
    smax = tf.nn.softmax(dense, name="smax")
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=dense,
                                                          name="xent")
    loss = tf.reduce_mean(xent, name="loss") + tf.reduce_sum(conv, name="csum") * 1e-3 \
        + tf.reduce_sum(bmm) * 1e-3
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    feed = {x: rng.standard_normal((4, 6)).astype(np.float32),
            img: rng.standard_normal((2, 5, 5, 3)).astype(np.float32),
            labels: rng.integers(0, 10, 4)}
    named = {"mm": mm, "bmm": bmm, "conv": conv, "smax": smax, "xent": xent, "loss": loss}
    return named, train_op, feed, [w, filt]


def parse_doc_table():
    """``{op type: {mode: "fp16" | "fp32"}}`` from the precision table of the docs."""
    table = {}
    header = None
    for line in DOC.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| what") and "op types" in line:
            header = cells
            continue
        if header is None or not line.startswith("|"):
            if header is not None and table:
                break
            continue
        if set(line.replace("|", "").strip()) <= set("-: "):
            continue
        row = dict(zip(header, cells))
        for op_type in re.findall(r"`(\w+)`", row["op types"]):
            table[op_type] = {m: row[m] for m in MODES}
    return table


def test_doc_table_matches_computes_in_fp16():
    table = parse_doc_table()
    assert FP16_TYPES <= set(table), "every fp16 op type must be in the docs table"
    for must in ("Sum", "Mean", "Softmax", "SparseSoftmaxCrossEntropyWithLogits",
                 "VariableV2", "ApplyUpdates", "BiasAdd", "Relu"):
        assert must in table, must
    g = tf.Graph()
    with g.as_default():
        named, _, _, _ = build_model(np.random.default_rng(0))
        logits = named["mm"]
        tf.nn.log_softmax(logits)
        tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(logits), logits=logits)
        tf.nn.relu(tf.nn.bias_add(logits, tf.ones([7])) * 2.0)
    ops_by_type = {}
    for op in g.get_operations():
        ops_by_type.setdefault(op.type, op)
    for op_type, row in table.items():
        op = ops_by_type[op_type]
        for mode in MODES:
            assert row[mode] in ("fp16", "fp32"), (op_type, mode, row[mode])
            assert precision.computes_in_fp16(op, mode) == (row[mode] == "fp16"), \
                (op_type, mode)


@pytest.mark.parametrize("mode", MODES + (None,))
def test_computes_in_fp16_table(mode):
    g = tf.Graph()
    with g.as_default():
        build_model(np.random.default_rng(1))
    types_seen = set()
    for op in g.get_operations():
        types_seen.add(op.type)
        expected = op.type in FP16_TYPES and op.outputs[0].dtype == tf.float32 \
            and mode in FP16_MODES
        assert precision.computes_in_fp16(op, mode) == expected, (op.name, op.type, mode)
    assert FP16_TYPES <= types_seen, "the model must exercise every cube op"


@pytest.mark.parametrize("mode", MODES)
def test_observed_rounding(mode):
    """Cube-op outputs are fp16 values (exactly the rounded product of rounded inputs)
    in the fp16 modes and plain float32 otherwise; softmax, losses and reductions are never
    rounded; the variables stay float32 master weights."""
    rng = np.random.default_rng(2)
    g = tf.Graph()
    with g.as_default():
        named, train_op, feed, (w, filt) = build_model(rng)
        sess = tf.Session(config=session_config(mode))
        assert sess.precision_mode == mode
        sess.run(tf.global_variables_initializer())
        w0 = sess.run(w)
        vals = sess.run(named, feed)
        fp16 = mode in FP16_MODES
        xv = feed[g.get_tensor_by_name("x:0")]
        r = precision.fp16_round
        ref_mm = r(r(xv) @ r(w0)) if fp16 else xv @ w0
        np.testing.assert_array_equal(vals["mm"], ref_mm)
        ref_bmm = np.matmul(xv.reshape(2, 2, 6), xv.reshape(2, 6, 2))
        if fp16:
            ref_bmm = r(np.matmul(r(xv).reshape(2, 2, 6), r(xv).reshape(2, 6, 2)))
        np.testing.assert_array_equal(vals["bmm"], ref_bmm)
        for name in ("mm", "bmm", "conv"):
            assert is_fp16_value(vals[name]) == fp16, (name, mode)
        for name in ("smax", "xent", "loss"):
            assert vals[name].dtype == np.float32
            assert not is_fp16_value(vals[name]), (name, mode)
        assert not is_fp16_value(w0)
        sess.run(train_op, feed)
        w1 = sess.run(w)
        assert not is_fp16_value(w1), "master weights must stay float32"
        assert not np.array_equal(w1, w0)
        sess.close()


def test_fp16_conv_matches_rounded_reference():
    """Conv2D under allow_mix_precision equals the float32 conv of fp16-rounded inputs,
    rounded (the float32 conv is itself checked against numpy in the engine tests)."""
    rng = np.random.default_rng(3)
    xv = rng.standard_normal((2, 6, 6, 3)).astype(np.float32)
    fv = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)
    outs = {}
    for mode in ("allow_mix_precision", "force_fp32"):
        g = tf.Graph()
        with g.as_default():
            x = tf.placeholder(tf.float32, xv.shape)
            f = tf.placeholder(tf.float32, fv.shape)
            y = tf.nn.conv2d(x, f, [1, 1, 1, 1], "VALID")
            with tf.Session(config=session_config(mode)) as sess:
                outs[mode] = sess.run(y, {x: xv, f: fv})
                rounded_in = sess.run(y, {x: precision.fp16_round(xv),
                                          f: precision.fp16_round(fv)})
                if mode == "force_fp32":
                    outs["ref"] = precision.fp16_round(rounded_in)
    np.testing.assert_array_equal(outs["allow_mix_precision"], outs["ref"])
    assert not is_fp16_value(outs["force_fp32"])


def test_float16_tensors_run_in_every_mode():
    """User casts (seed 003): a float16 matmul returns float16 in every mode, computed with
    fp32 accumulation from the fp16 inputs."""
    rng = np.random.default_rng(4)
    av = rng.standard_normal((5, 8)).astype(np.float16)
    bv = rng.standard_normal((8, 3)).astype(np.float16)
    ref = (av.astype(np.float32) @ bv.astype(np.float32)).astype(np.float16)
    for mode in MODES + (None,):
        g = tf.Graph()
        with g.as_default():
            a = tf.placeholder(tf.float16, [5, 8])
            b = tf.placeholder(tf.float16, [8, 3])
            y = tf.matmul(a, b)
            assert precision.computes_in_fp16(y.op, mode)
            with tf.Session(config=session_config(mode)) as sess:
                out = sess.run(y, {a: av, b: bv})
        assert out.dtype == np.float16
        np.testing.assert_array_equal(out, ref)


def test_unknown_precision_mode_is_rejected():
    with pytest.raises(ValueError, match="precision_mode"):
        tf.Session(config=session_config("fp8_please"))
