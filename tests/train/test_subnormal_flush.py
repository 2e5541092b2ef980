"""Optimizer slots are flushed to zero when their values become subnormal (TF's CPU kernels
run with flush-to-zero), every ``apply_op._FLUSH_EVERY`` updates; normal values are
untouched."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.train import apply_op


@pytest.mark.parametrize("make_opt, slot", [
    (lambda: tf.train.AdamOptimizer(0.01), "m"),
    (lambda: tf.train.AdamOptimizer(0.01), "v"),
    (lambda: tf.train.MomentumOptimizer(0.01, 0.9), "momentum"),
])
def test_subnormal_slots_are_flushed_and_normal_ones_kept(make_opt, slot):
    tiny = np.finfo(np.float32).tiny
    with tf.Graph().as_default():
        live = tf.Variable([1.0, 2.0], name="live")
        dead = tf.Variable([3.0, 4.0, 5.0], name="dead")
        loss = tf.reduce_sum(live * live) + tf.reduce_sum(dead * 0.0)
        opt = make_opt()
        train = opt.minimize(loss)
        dead_slot = opt.get_slot(dead, slot)
        live_slot = opt.get_slot(live, slot)
        seed = tf.assign(dead_slot, [tiny / 4, -tiny / 8, 3e-30])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(seed)
            for _ in range(apply_op._FLUSH_EVERY - 1):
                sess.run(train)
            before = sess.run(dead_slot)
            sess.run(train)
            after, live_after = sess.run([dead_slot, live_slot])
    assert 0 < abs(before[0]) < tiny and 0 < abs(before[1]) < tiny   # decayed, still subnormal
    assert after[0] == 0 and after[1] == 0                            # flushed
    assert after[2] >= tiny                                           # normal value kept
    assert np.all(np.abs(live_after) >= tiny)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_flush_equals_a_masked_write_of_zero_bit_for_bit(dtype):
    """The flush's arithmetic (``s * (|s| >= tiny) + 0``) gives exactly what writing +0
    where ``|s| < tiny`` gives: subnormals and -0.0 become +0.0; normal values, NaN and
    infinities are kept. The 0-d shared scalars are left alone."""
    tiny = np.finfo(dtype).tiny
    rng = np.random.default_rng(4)
    s = (rng.standard_normal(5000) * 1e-3).astype(dtype)
    for i, v in enumerate([0.0, -0.0, tiny / 3, -tiny / 5, tiny, -tiny, np.nan, np.inf,
                           -np.inf, 2 * tiny]):
        s[i::97] = v
    want = s.copy()
    np.copyto(want, 0, where=np.abs(want) < tiny)
    power = np.array(0.9, dtype)
    grp = apply_op._Group(None, None, {"m": s, "beta1_power": power}, None, [])
    grp.flush_subnormal_slots()
    np.testing.assert_array_equal(s.view(np.uint8), want.view(np.uint8))
    assert power == dtype(0.9)
    grp.flush_subnormal_slots()  # again, with its buffers cached
    np.testing.assert_array_equal(s.view(np.uint8), want.view(np.uint8))
