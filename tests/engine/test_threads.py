"""The thread pool (``engine.threads``): its size follows ``ESTIMATOR_NPU_NUM_THREADS`` or
the CPU affinity, and threaded kernels and optimizer updates give bit-identical results to
single-threaded ones."""
import os
import subprocess
import sys

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.engine import threads
from estimator_npu.train import apply_op

_REAL_RUN = threads.run
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _count_runs(monkeypatch, calls, n_threads):
    """Records the size of every ``threads.run`` call in ``calls``; sets the pool size."""
    def counting_run(fns):
        calls.append(len(fns))
        return _REAL_RUN(fns)
    monkeypatch.setattr(threads, "run", counting_run)
    threads.set_num_threads(n_threads)


def _train(n_threads, monkeypatch, calls):
    """A few Adam steps of a small CNN with every split threshold lowered so that each
    threaded path (im2col, pooling, epilogues, the flat update) really splits."""
    monkeypatch.setattr(threads, "MIN_SIZE", 64)
    monkeypatch.setattr(apply_op, "_SPLIT_MIN", 64)
    _count_runs(monkeypatch, calls, n_threads)
    try:
        with tf.Graph().as_default():
            tf.set_random_seed(7)
            x = tf.placeholder(tf.float32, [None, 12, 12, 3])
            y = tf.placeholder(tf.int32, [None])
            # 12 channels: the 2x2 pool takes the paired-masks path (pool_ops._pool_2x2)
            net = tf.layers.conv2d(x, 12, 3, padding="same", activation=tf.nn.relu)
            net = tf.layers.max_pooling2d(net, 2, 2)
            net = tf.layers.conv2d(net, 6, 3, padding="same", activation=tf.nn.relu)
            net = tf.layers.max_pooling2d(net, 3, 2, padding="same")
            net = tf.layers.dense(tf.layers.flatten(net), 16, activation=tf.nn.relu)
            logits = tf.layers.dense(net, 4)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=y, logits=logits))
            train = tf.train.AdamOptimizer(0.01).minimize(loss)
            rng = np.random.default_rng(1)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                losses = [sess.run([loss, train], {
                    x: rng.standard_normal((8, 12, 12, 3)).astype(np.float32),
                    y: rng.integers(0, 4, 8).astype(np.int32)})[0] for _ in range(4)]
                return losses, sess.run(tf.global_variables())
    finally:
        threads.set_num_threads(None)


def test_threaded_training_is_bit_identical(monkeypatch):
    single, multi = [], []
    ref_losses, ref_vars = _train(1, monkeypatch, single)
    losses, values = _train(2, monkeypatch, multi)
    assert max(single, default=1) == 1   # one thread: nothing is ever handed to the pool
    assert sum(c > 1 for c in multi) >= 10, multi  # two: every threaded path split its work
    assert losses == ref_losses
    for a, b in zip(values, ref_vars):
        np.testing.assert_array_equal(a, b)


def test_pieces_cover_the_range_in_aligned_contiguous_parts():
    threads.set_num_threads(3)
    try:
        parts = threads.pieces(1000, min_size=10)
        assert parts[0][0] == 0 and parts[-1][1] == 1000
        assert 3 < len(parts) <= 3 * threads.PIECES_PER_THREAD
        assert all(a % 16 == 0 and a < b for a, b in parts)
        assert all(p[1] == q[0] for p, q in zip(parts, parts[1:]))
        assert threads.pieces(25, min_size=10) == [(0, 16), (16, 25)]
        assert threads.pieces(9, min_size=10) == [(0, 9)]
    finally:
        threads.set_num_threads(None)


def test_errors_in_a_piece_reach_the_caller():
    threads.set_num_threads(2)
    try:
        def boom(a, b):
            if a:
                raise ValueError(f"piece {a}:{b}")
        with pytest.raises(ValueError, match="piece 16:32"):
            threads.split(32, boom, min_size=8)
    finally:
        threads.set_num_threads(None)


@pytest.mark.parametrize("value, expected", [("1", "1"), ("3", "3"), ("", None)])
def test_size_comes_from_the_environment_or_the_affinity(value, expected):
    env = dict(os.environ, ESTIMATOR_NPU_NUM_THREADS=value,
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", "from estimator_npu.engine import threads; "
                          "print(threads.num_threads())"], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == (expected or str(len(os.sched_getaffinity(0))))


def test_a_bad_thread_count_names_the_variable(monkeypatch):
    monkeypatch.setenv("ESTIMATOR_NPU_NUM_THREADS", "zero")
    threads.set_num_threads(None)
    try:
        with pytest.raises(ValueError, match="ESTIMATOR_NPU_NUM_THREADS must be a positive"):
            threads.num_threads()
    finally:
        monkeypatch.delenv("ESTIMATOR_NPU_NUM_THREADS")
        threads.set_num_threads(None)


def test_a_piece_that_splits_again_does_not_deadlock():
    threads.set_num_threads(2)
    out = np.zeros(64)
    try:
        def inner(a, b):
            out[a:b] += 1

        def outer(a, b):
            threads.split(64, inner, min_size=8)
        threads.split(64, outer, min_size=8)
        n_outer = len(threads.pieces(64, min_size=8))
    finally:
        threads.set_num_threads(None)
    assert n_outer > 1
    np.testing.assert_array_equal(out, n_outer)  # each outer piece ran the inner split once


def _train_per_tensor(n_threads, monkeypatch, calls, split_min=64):
    """Adam and Momentum steps of an MLP whose variables are updated one tensor at a time
    (the cost model forced to per-tensor mode), the update split across threads."""
    monkeypatch.setattr(apply_op, "_SPLIT_MIN", split_min)
    monkeypatch.setattr(apply_op, "CALL_COST_ELEMENTS", 0)
    _count_runs(monkeypatch, calls, n_threads)
    try:
        with tf.Graph().as_default():
            tf.set_random_seed(3)
            x = tf.placeholder(tf.float32, [None, 20])
            y = tf.placeholder(tf.int32, [None])
            net = tf.layers.dense(x, 40, activation=tf.nn.relu)
            logits = tf.layers.dense(net, 5)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=y, logits=logits))
            train = tf.group(tf.train.AdamOptimizer(0.01).minimize(loss),
                             tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss))
            rng = np.random.default_rng(2)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                losses = [sess.run([loss, train], {
                    x: rng.standard_normal((16, 20)).astype(np.float32),
                    y: rng.integers(0, 5, 16).astype(np.int32)})[0] for _ in range(4)]
                return losses, sess.run(tf.global_variables())
    finally:
        threads.set_num_threads(None)


def test_threaded_per_tensor_updates_are_bit_identical(monkeypatch):
    single, multi = [], []
    ref_losses, ref_vars = _train_per_tensor(1, monkeypatch, single)
    losses, values = _train_per_tensor(2, monkeypatch, multi)
    assert max(single, default=1) == 1
    assert sum(c > 1 for c in multi) >= 8, multi   # 2 optimizers x 4 steps, the 20x40 kernels
    assert losses == ref_losses
    for a, b in zip(values, ref_vars):
        np.testing.assert_array_equal(a, b)


def test_per_tensor_pieces_balance_over_tensors_below_the_piece_size(monkeypatch):
    """The pieces of a per-tensor update are cut over all of a group's elements: a model
    none of whose tensors would split alone (here 800, 40, 200 and 5 elements, pieces of
    at least 500) is still updated on two threads, bit-identical to one."""
    single, multi = [], []
    ref_losses, ref_vars = _train_per_tensor(1, monkeypatch, single)
    losses, values = _train_per_tensor(2, monkeypatch, multi, split_min=500)
    assert multi.count(2) >= 8, multi   # 2 optimizers x 4 steps, 2 pieces each
    assert losses == ref_losses
    for a, b in zip(values, ref_vars):
        np.testing.assert_array_equal(a, b)
