"""fp16 overflow modes of the precision rewrite: Inf/NaN (IEEE, the default) and saturation
(Atlas training NPUs: overflowing values clamp to +-65504 and the session's overflow
register is set; the loss-scale ops read and clear it).

The attention case is the reduction of the ModelZoo Non-local net, whose backward batch
matmul ``dy @ g^T`` reaches ~8.5e4 in fp32 (TF's fp32 gradients there are of the same
size): under ``allow_mix_precision`` without loss scaling, Inf/NaN mode turns the weights
NaN after one Adam step, saturation mode keeps training."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import mixed_precision as mp
from estimator_npu.engine import precision
from estimator_npu.npu import npu_plugin
from estimator_npu.train.loss_scale_optimizer import NPULossScaleOptimizer
from npu_configs import session_config


@pytest.fixture
def mode():
    saved = precision.overflow_mode()
    yield precision.set_overflow_mode
    precision.set_overflow_mode(saved)


def run_matmul(a, b, precision_mode="allow_mix_precision"):
    g = tf.Graph()
    with g.as_default():
        pa = tf.placeholder(tf.float32, np.shape(a))
        pb = tf.placeholder(tf.float32, np.shape(b))
        y = tf.matmul(pa, pb)
        small = tf.matmul(pa * 0.0, pb)
        with tf.Session(config=session_config(precision_mode)) as sess:
            out = sess.run(y, {pa: a, pb: b})
            flag = sess.float_status.overflow
            sess.run(small, {pa: a, pb: b})
            return out, flag, sess.float_status.overflow


@pytest.mark.parametrize("a, b, inf_nan, saturated", [
    ([[300.0]], [[300.0]], np.inf, 65504.0),          # the product overflows
    ([[-300.0]], [[300.0]], -np.inf, -65504.0),
    ([[70000.0]], [[1.0]], np.inf, 65504.0),          # the input overflows
    ([[32760.0, 32760.0]], [[1.0], [1.0]], np.inf, 65504.0),   # 65520 rounds past max
])
def test_overflowing_matmul_is_inf_or_clamped_and_flagged(mode, a, b, inf_nan, saturated):
    a, b = np.array(a, np.float32), np.array(b, np.float32)
    mode("inf_nan")
    out, flag, _ = run_matmul(a, b)
    assert out[0, 0] == inf_nan and not flag
    mode("saturation")
    out, flag, after = run_matmul(a, b)
    assert out[0, 0] == saturated and flag
    assert not after, "a later run without overflow starts with a clear register"
    out, flag, _ = run_matmul(a, b, "force_fp32")
    assert np.isfinite(out).all() and not flag, "fp32 ops neither clamp nor flag"


def test_values_in_range_are_identical_in_both_modes(mode):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((16, 64)) * 30).astype(np.float32)
    b = (rng.standard_normal((64, 8)) * 30).astype(np.float32)
    mode("inf_nan")
    ref, _, _ = run_matmul(a, b)
    mode("saturation")
    got, flag, _ = run_matmul(a, b)
    assert np.array_equal(ref, got) and not flag


def test_nan_stays_nan_when_saturating(mode):
    mode("saturation")
    out, flag, _ = run_matmul(np.array([[np.nan, 1.0]], np.float32),
                              np.array([[1.0], [1.0]], np.float32))
    assert np.isnan(out[0, 0]) and not flag


def attention_step(precision_mode, steps=2):
    """y = softmax(q k) g, with an upstream gradient large enough that the backward batch
    matmul dy @ g^T passes 65504; one Adam step per run. Returns (losses, weights)."""
    rng = np.random.default_rng(1)
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(rng.standard_normal((2, 16, 8)).astype(np.float32))
        wq = tf.Variable(rng.standard_normal((8, 8)).astype(np.float32) * 0.3)
        wg = tf.Variable(rng.standard_normal((8, 8)).astype(np.float32) * 100)
        q = tf.reshape(tf.matmul(tf.reshape(x, [-1, 8]), wq), [2, 16, 8])
        gx = tf.reshape(tf.matmul(tf.reshape(x, [-1, 8]), wg), [2, 16, 8])
        f = tf.nn.softmax(tf.matmul(q, q, transpose_b=True), -1)
        y = tf.matmul(f, gx)
        loss = tf.reduce_sum(y) * 300.0
        train = tf.train.AdamOptimizer(1e-3).minimize(loss)
        with tf.Session(config=session_config(precision_mode)) as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([loss, train])[0] for _ in range(steps)]
            return losses, sess.run([wq, wg])


def test_attention_gradient_overflow_nan_in_inf_mode_finite_when_saturating(mode):
    mode("inf_nan")
    losses, weights = attention_step("allow_mix_precision")
    assert not all(np.isfinite(w).all() for w in weights), "the fp16 gradient overflows"
    assert np.isnan(losses[-1])
    mode("saturation")
    losses, weights = attention_step("allow_mix_precision")
    assert all(np.isfinite(w).all() for w in weights) and np.isfinite(losses).all()
    ref_losses, ref_weights = attention_step("force_fp32")
    # Adam's step is about lr * sign(grad): clamping keeps most directions, and no weight
    # is further than two opposite steps (2 * 2 * lr) from its fp32 value.
    for w, r in zip(weights, ref_weights):
        np.testing.assert_allclose(w, r, atol=4.1e-3)
        assert np.mean(np.abs(w - r) < 1e-4) > 0.8
    np.testing.assert_allclose(losses, ref_losses, rtol=0.05)


def test_loss_scaling_still_skips_an_overflowing_step_when_saturating(mode):
    """The clamped gradients are finite; the overflow register still makes the step a
    skipped one and lowers the scale (npu_get_float_status)."""
    mode("saturation")
    g = tf.Graph()
    with g.as_default():
        x = tf.constant([[1.0, 2.0]])
        w = tf.Variable([[1.0], [1.0]])
        loss = tf.reduce_sum(tf.matmul(x, w))
        manager = mp.ExponentialUpdateLossScaleManager(2.0 ** 20, 1000,
                                                       decr_every_n_nan_or_inf=1,
                                                       decr_ratio=0.5)
        opt = NPULossScaleOptimizer(tf.train.GradientDescentOptimizer(0.1), manager)
        step = tf.train.get_or_create_global_step()
        train = opt.minimize(loss, global_step=step)
        scale = manager.get_loss_scale()
        with tf.Session(config=session_config()) as sess:
            sess.run(tf.global_variables_initializer())
            seen = []
            for _ in range(8):
                sess.run(train)
                seen.append((float(sess.run(scale)), int(sess.run(step))))
            final_w = sess.run(w)
    # 2**20 * 2 (the weight gradient of x) overflows fp16 until the scale is 2**14.
    assert [s for s, _ in seen[:6]] == [2.0 ** k for k in range(19, 13, -1)]
    assert [n for _, n in seen[:6]] == [0] * 6
    assert seen[7][1] == 2 and np.isfinite(final_w).all()
    np.testing.assert_allclose(final_w, [[1 - 0.2], [1 - 0.4]], rtol=1e-6)


def test_set_device_sat_mode_selects_the_mode(mode):
    npu_plugin.set_device_sat_mode(0)
    assert precision.overflow_mode() == "saturation" and not npu_plugin.is_inf_nan_enabled()
    npu_plugin.set_device_sat_mode(1)
    assert precision.overflow_mode() == "inf_nan" and npu_plugin.is_inf_nan_enabled()
    for bad in (2, True, "0"):
        with pytest.raises(ValueError, match="set_device_sat_mode"):
            npu_plugin.set_device_sat_mode(bad)
    with pytest.raises(ValueError, match="overflow mode"):
        precision.set_overflow_mode("saturate")
