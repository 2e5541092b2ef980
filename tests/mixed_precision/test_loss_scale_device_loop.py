"""Loss scaling inside the device loop (``util.set_iteration_per_loop`` with a fixed feed):
every iteration applies the dynamic rule, skipped iterations leave the weights and
``global_step`` alone, so one host call may advance ``global_step`` by less than
``iterations_per_loop``. Checked after every host call against a step-by-step simulation.

The model: ``loss = x @ w`` with ``x = 1`` under ``allow_mix_precision``. The weight
gradient ``x^T @ (scale * 1)`` is a matmul computed in fp16: finite while the scale is at
most 2**15, inf from 2**16 (>= 65520) on. With ``incr_every_n_steps`` small the scale keeps
growing back into overflow, so skipped steps land inside loops.
"""
import itertools

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import mixed_precision as mp
from estimator_npu.npu import util
from estimator_npu.train.loss_scale import next_loss_scale
from npu_configs import session_config

LR = 2.0 ** -4


def simulate(n_steps, init, incr_every, decr_every):
    """(global_step, scale, good, bad, w) after each of ``n_steps`` steps."""
    scale, good, bad, gs, w = np.float32(init), 0, 0, 0, 1.0
    out = []
    for _ in range(n_steps):
        finite = scale < 65520
        if finite:
            gs += 1
            w -= LR
        scale, good, bad = next_loss_scale(scale, good, bad, finite, incr_every, decr_every,
                                           2.0, 0.5)
        out.append((gs, float(scale), good, bad, w))
    return out


@pytest.mark.parametrize("k, incr_every, decr_every",
                         list(itertools.product([1, 3, 5], [1, 2, 4], [1, 2])))
def test_skipped_iterations_do_not_advance_global_step(k, incr_every, decr_every):
    calls = 5
    init = 2.0 ** 18
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [1, 1])
        w = tf.Variable([[1.0]])
        loss = tf.reduce_sum(tf.matmul(x, w))
        manager = mp.ExponentialUpdateLossScaleManager(init, incr_every,
                                                       decr_every_n_nan_or_inf=decr_every,
                                                       decr_ratio=0.5)
        opt = mp.LossScaleOptimizer(tf.train.GradientDescentOptimizer(LR), manager)
        gs = tf.train.get_or_create_global_step()
        train_op = opt.minimize(loss, global_step=gs)
        scale_v, good_v, bad_v = manager.variables()
        with tf.Session(config=session_config()) as sess, np.errstate(all="ignore"):
            sess.run(tf.global_variables_initializer())
            loop_op = util.set_iteration_per_loop(sess, train_op, k)
            assert (loop_op is train_op) == (k == 1)
            expected = simulate(calls * k, init, incr_every, decr_every)
            skipped_inside_loops = 0
            previous = 0
            for call in range(calls):
                _, loss_value = sess.run([loop_op, loss], {x: [[1.0]]})
                got = sess.run([gs, scale_v, good_v, bad_v, w])
                got = (int(got[0]), float(got[1]), int(got[2]), int(got[3]),
                       float(got[4][0, 0]))
                assert got == expected[(call + 1) * k - 1], (call, got)
                assert loss_value == expected[(call + 1) * k - 2][4] if (call + 1) * k >= 2 \
                    else loss_value == 1.0
                advanced = got[0] - previous
                assert 0 <= advanced <= k
                skipped_inside_loops += k - advanced
                previous = got[0]
            # The first 3 steps always overflow (2**18, 2**17, 2**16 with decr_every=1).
            assert skipped_inside_loops >= 3
