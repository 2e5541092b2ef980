"""A session that runs several fetch sets in turn keeps the work buffers of about one
plan, not of each (ModelZoo CLUB runs three train ops over two conv towers every step: its
plans kept 993 MB of buffers between runs at batch 32, the sum over its kernels and
plans)."""
import tracemalloc

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.engine.ops import _spatial
from tests.mixed_precision.npu_configs import session_config

# Whole-batch columns of 64 x 16 x 16 x 32 under a 3x3 filter are 18.9 MB: the kernels
# work in chunks of images, as CLUB's 96/192-channel convolutions do.
N, HW, C = 64, 16, 32


def _tower(x, name):
    with tf.variable_scope(name):
        h = tf.layers.conv2d(x, C, 3, padding="same", activation=tf.nn.relu)
        h = tf.layers.max_pooling2d(h, 2, 2)
        h = tf.layers.conv2d(h, C, 3, padding="same")
        loss = tf.reduce_mean(tf.square(h))
    return tf.train.GradientDescentOptimizer(0.01).minimize(
        loss, var_list=tf.trainable_variables(name)), loss


def _retained_and_peak(sess, fetches, feed):
    """Traced bytes still held after the run (kept between runs) and the run's peak."""
    tracemalloc.reset_peak()
    sess.run(fetches, feed)
    return tracemalloc.get_traced_memory()


@pytest.mark.parametrize("mode", [None, "allow_mix_precision"])
def test_plans_run_in_turn_keep_the_buffers_of_one_plan(mode):
    """Two disjoint train ops of the same shapes, run alternately: what the session keeps
    between runs and the peak of a run stay those of running one of them (conv scratch
    shared by shape, the rounded fp16 copies of the plan run before dropped on a switch);
    keeping each plan's own buffers, as before, doubles both."""
    xv = np.random.default_rng(0).standard_normal((N, HW, HW, C)).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, HW, HW, C])
        a, b = _tower(x, "a"), _tower(x, "b")
        with tf.Session(config=session_config(mode)) as sess:
            sess.run(tf.global_variables_initializer())
            feed = {x: xv}
            tracemalloc.start()
            try:
                base = tracemalloc.get_traced_memory()[0]
                for _ in range(2):
                    one_kept, one_peak = _retained_and_peak(sess, a, feed)
                kept, peak = 0, 0
                for fetches in (b, a, b, a, b):
                    k, p = _retained_and_peak(sess, fetches, feed)
                    kept, peak = max(kept, k), max(peak, p)
            finally:
                tracemalloc.stop()
            one_kept, one_peak, kept, peak = (v - base for v in
                                              (one_kept, one_peak, kept, peak))
            print(f"mode {mode}: one plan keeps {one_kept / 1e6:.1f} MB (peak "
                  f"{one_peak / 1e6:.1f}); two in turn keep {kept / 1e6:.1f} MB (peak "
                  f"{peak / 1e6:.1f})")
            assert one_kept > 4e6, one_kept   # the chunks' buffers are there to share
            assert kept < 1.3 * one_kept, (kept, one_kept)
            assert peak < 1.3 * one_peak, (peak, one_peak)
            # values are unchanged by the sharing: the loss a train op fetches (before
            # its update) is the loss a plan of its own computes right before it
            for train_loss in (a, b, a, b):
                alone = sess.run(train_loss[1], feed)
                np.testing.assert_allclose(sess.run(train_loss, feed)[1], alone, rtol=1e-6)


def test_scratch_buffers_are_shared_by_shape_and_private_when_asked():
    """Kernels asking for the same key, shape, dtype, fill and tag get one buffer; any
    difference, or ``shared=False``, gives another; the arena holds them only while a
    kernel does."""
    import gc
    s1, s2, own = _spatial.Scratch(), _spatial.Scratch(), _spatial.Scratch(shared=False)
    b = s1.get("x", (2, 3), np.float32, 0, (1, 1, 0, 0))
    assert s2.get("x", (2, 3), np.float32, 0, (1, 1, 0, 0)) is b
    assert s1.get("x", (2, 3), np.float32, 0, (1, 1, 0, 0)) is b
    others = [s2.get("y", (2, 3), np.float32, 0, (1, 1, 0, 0)),
              _spatial.Scratch().get("x", (2, 3), np.float32, -np.inf, (1, 1, 0, 0)),
              _spatial.Scratch().get("x", (2, 3), np.float32, 0, (0, 2, 0, 0)),
              _spatial.Scratch().get("x", (2, 3), np.float64, 0, (1, 1, 0, 0)),
              own.get("x", (2, 3), np.float32, 0, (1, 1, 0, 0))]
    assert all(o is not b for o in others)
    key = ("x", (2, 3), np.dtype(np.float32), 0, (1, 1, 0, 0))
    assert _spatial._ARENA.bufs[key] is b
    del s1, s2, b, others
    gc.collect()
    assert key not in _spatial._ARENA.bufs
