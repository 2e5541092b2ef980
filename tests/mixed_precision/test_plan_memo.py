"""PlanMemo: within one compiled plan a tensor consumed by several fp16 ops is rounded once
and inputs that already hold fp16 values are not rounded again; results stay bit-identical
to rounding every input of every op (checked over training steps, and with intermediate
tensors fed)."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.engine import plan, precision
from npu_configs import session_config


def patched(mp, use_memo):
    """Compiles every plan with a fresh PlanMemo (as the plan compiler does when it passes
    one) or with none; returns a counter of the elements rounded."""
    counter = {"elements": 0}
    original_round = precision.fp16_round_into

    def counting(x, out, work=None, status=None):
        counter["elements"] += x.size
        return original_round(x, out, work, status)

    mp.setattr(precision, "fp16_round_into", counting)
    memos = []
    original_compile = plan.compile_plan
    original_adapt = precision.adapt_kernel

    def compile_plan(ctx, targets, feeds):
        memos.append(precision.PlanMemo(feeds) if use_memo else None)
        try:
            return original_compile(ctx, targets, feeds)
        finally:
            memos.pop()

    def adapt(op, kernel, mode, memo=None, status=None):
        return original_adapt(op, kernel, mode, memos[-1] if memos else None, status)

    mp.setattr(plan, "compile_plan", compile_plan)
    mp.setattr(precision, "adapt_kernel", adapt)
    return counter


def mlp(rng):
    x = tf.placeholder(tf.float32, [16, 12], name="x")
    y = tf.placeholder(tf.int32, [16], name="y")
    w0 = tf.Variable(rng.standard_normal((12, 20)).astype(np.float32) * 0.3, name="w0")
    w1 = tf.Variable(rng.standard_normal((20, 20)).astype(np.float32) * 0.3, name="w1")
    w2 = tf.Variable(rng.standard_normal((20, 5)).astype(np.float32) * 0.3, name="w2")
    h0 = tf.nn.relu(tf.matmul(x, w0), name="h0")          # relu(fp16 output): fp16 values
    h1 = tf.nn.relu(tf.matmul(h0, w1) + 0.1, name="h1")   # a bias: not fp16 values
    logits = tf.matmul(h1, w2, name="logits")
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                         logits=logits))
    grads = tf.gradients(loss, [w0, w1, w2])
    train_op = tf.train.AdamOptimizer(0.05).minimize(loss)
    feed = {x: rng.standard_normal((16, 12)).astype(np.float32),
            y: rng.integers(0, 5, 16)}
    return {"h0": h0, "h1": h1, "logits": logits, "loss": loss}, grads, train_op, feed


def run_training(rng_seed=0, feed_h0=False):
    g = tf.Graph()
    with g.as_default():
        rng = np.random.default_rng(rng_seed)
        named, grads, train_op, feed = mlp(rng)
        trace = []
        with tf.Session(config=session_config()) as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(4):
                f = dict(feed)
                if feed_h0:  # an intermediate fed with values that are not fp16 values
                    f[named["h0"]] = np.abs(rng.standard_normal((16, 20))).astype(
                        np.float32) * (1 + 1e-4 * step)
                values = sess.run([named["logits"], grads, named["loss"]], f)
                trace.append(values)
                sess.run(train_op, f)
            trace.append(sess.run(tf.trainable_variables()))
    return trace


def flatten(tree):
    if isinstance(tree, (list, tuple)):
        return [a for t in tree for a in flatten(t)]
    return [np.asarray(tree)]


@pytest.mark.parametrize("feed_h0", [False, True])
def test_same_bits_with_and_without_memo(feed_h0):
    results = {}
    for use_memo in (True, False):
        with pytest.MonkeyPatch.context() as mp:
            counter = patched(mp, use_memo)
            results[use_memo] = (flatten(run_training(feed_h0=feed_h0)), counter["elements"])
    (t_memo, n_memo), (t_plain, n_plain) = results[True], results[False]
    assert len(t_memo) == len(t_plain)
    for a, b in zip(t_memo, t_plain):
        np.testing.assert_array_equal(a, b)
    assert 0 < n_memo < n_plain, (n_memo, n_plain)


def test_holds_fp16_follows_values_not_names():
    g = tf.Graph()
    with g.as_default():
        named, grads, _, feed = mlp(np.random.default_rng(1))
        memo = precision.PlanMemo(feed)
        mode = "allow_mix_precision"
        assert memo.holds_fp16(named["logits"], mode)
        assert memo.holds_fp16(named["h0"], mode)            # relu of a matmul
        assert not memo.holds_fp16(named["h1"], mode)        # relu of matmul + 0.1
        assert not memo.holds_fp16(named["loss"], mode)
        x = g.get_tensor_by_name("x:0")
        assert not memo.holds_fp16(x, mode)
        assert not memo.holds_fp16(named["logits"], "force_fp32")
        assert not precision.PlanMemo([named["h0"]]).holds_fp16(named["h0"], mode)
        # ReLU gradients: an fp16 matmul output times a 0/1 mask
        masked = [op.outputs[0] for op in g.get_operations() if op.type == "Mul"
                  and any(i.op.type == "Cast" and i.op.inputs[0].dtype == tf.bool
                          for i in op.inputs)]
        assert masked and any(memo.holds_fp16(t, mode) for t in masked)


def test_rounded_copies_past_the_keep_budget_die_with_the_run(monkeypatch):
    # an unrolled RNN-like chain of fp16 matmuls: under a zero budget no rounder keeps a
    # copy between runs, and the numbers (a shared rounding included) do not change
    def run():
        with tf.Graph().as_default():
            rng = np.random.default_rng(5)
            x = tf.placeholder(tf.float32, [None, 6])
            w = tf.constant(rng.standard_normal((6, 6)) * 0.5, tf.float32)
            h = x
            for _ in range(4):
                h = tf.tanh(tf.matmul(h, w))
            loss = tf.reduce_sum(h)
            grad = tf.gradients(loss, x)[0]
            xv = rng.standard_normal((3, 6)).astype(np.float32)
            with tf.Session(config=session_config()) as sess:
                return sess.run([loss, grad], {x: xv}), sess.run([loss, grad], {x: xv})

    ref = run()
    before = precision._kept[0]
    monkeypatch.setattr(precision, "KEEP_BUDGET_BYTES", 0)
    got = run()
    for (a, b), (c, d) in zip(ref, got):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)
    assert precision._kept[0] == before  # the zero-budget session kept nothing
    r = precision._Rounder()
    x = np.linspace(-1, 1, 8, dtype=np.float32)
    np.testing.assert_array_equal(r(x), precision.fp16_round(x))
    assert r.out is None and r.work is None
