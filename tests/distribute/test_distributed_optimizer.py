"""``NPUDistributedOptimizer`` and the all-reduce gradient hook, in one process.

A ``TwinBackend`` (see ``fake_backends.py``) stands for a peer whose gradients are three
times ours, so the averaged gradient is exactly ``2 g``: every rule, with tailing on or
off and any split, must then give bit for bit the weights of the plain optimizer applied
to ``2 g`` — which a step that used a gradient before its all-reduce completed would not.
"""
import importlib.util
import pathlib
import sys

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.distribute import collective, hccl
from estimator_npu.train import distributed_optimizer
from estimator_npu.train.distributed_optimizer import (NPUDistributedOptimizer,
                                                       make_allreduce_grad_hook)
from estimator_npu.train.update_rules import Layout


def _load(name):
    key = "estimator_npu_tests_distribute_" + name
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            key, pathlib.Path(__file__).parent / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


TwinBackend = _load("fake_backends").TwinBackend

OPTIMIZERS = {
    "sgd": lambda: tf.train.GradientDescentOptimizer(0.1),
    "momentum": lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    "adam": lambda: tf.train.AdamOptimizer(0.01),
    "rmsprop": lambda: tf.train.RMSPropOptimizer(0.01, centered=True),
    "adagrad": lambda: tf.train.AdagradOptimizer(0.1),
    "lamb": lambda: tf.train.LAMBOptimizer(0.01, weight_decay_rate=0.01,
                                           exclude_from_weight_decay=["bias"]),
}


@pytest.fixture(autouse=True)
def _reset_split():
    hccl.reset_split_strategy()
    yield
    hccl.reset_split_strategy()


def _train(kind, mode, steps=3, dtype=np.float64, seed=0, backend=None):
    """Weights after ``steps`` steps. ``mode``: ``"plain2g"`` (plain optimizer on 2 g), or
    ``"dist"``/``"tail"`` (the wrapper under ``backend``)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((16, 5)).astype(dtype)
    y = rng.standard_normal((16, 2)).astype(dtype)
    g = tf.Graph()
    with g.as_default():
        w1 = tf.Variable(rng.standard_normal((5, 40)).astype(dtype), name="w1")
        bias = tf.Variable(rng.standard_normal(40).astype(dtype), name="bias")
        w2 = tf.Variable(rng.standard_normal((40, 2)).astype(dtype), name="w2")
        b2 = tf.Variable(rng.standard_normal(2).astype(dtype), name="b2")
        out = tf.matmul(tf.tanh(tf.matmul(tf.constant(x), w1) + bias), w2) + b2
        loss = tf.reduce_mean(tf.square(out - tf.constant(y)))
        gs = tf.train.get_or_create_global_step()
        if mode == "plain2g":
            opt = OPTIMIZERS[kind]()
            gv = [(2.0 * grad, v) for grad, v in opt.compute_gradients(loss)]
            train_op = opt.apply_gradients(gv, global_step=gs)
        else:
            opt = NPUDistributedOptimizer(OPTIMIZERS[kind](),
                                          is_tailing_optimization=(mode == "tail"))
            train_op = opt.minimize(loss, global_step=gs)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(steps):
                sess.run(train_op)
            values = sess.run([w1, bias, w2, b2, gs])
    return values, opt


@pytest.mark.parametrize("kind", sorted(OPTIMIZERS))
@pytest.mark.parametrize("mode", ["dist", "tail"])
def test_averaged_update_equals_plain_update_on_the_mean_gradient(kind, mode, monkeypatch):
    monkeypatch.setattr(distributed_optimizer, "MIN_PIECE_ELEMENTS", 8)  # several pieces
    want, _ = _train(kind, "plain2g")
    backend = TwinBackend(delay=2)
    with collective.use_backend(backend):
        got, opt = _train(kind, mode)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    stats = opt.communication_stats()
    # default split over [w1 bias w2 b2] (200, 40, 80, 2 elements): [w1 bias w2] + [b2]
    assert (stats.steps, stats.messages, stats.bytes) == (3, 6, 3 * 322 * 8)
    calls = [entry[0] for entry in backend.log]
    assert calls == ["iallreduce" if mode == "tail" else "allreduce"] * 6
    assert not backend.in_flight
    if mode == "tail":
        assert backend.tests > 0   # polled the tail segment while updating the first


def test_tailing_with_more_segments_and_float32(monkeypatch):
    monkeypatch.setattr(distributed_optimizer, "MIN_PIECE_ELEMENTS", 1)
    hccl.set_split_strategy_by_idx([0, 1, 2, 3])
    want, _ = _train("adam", "plain2g", dtype=np.float32)
    with collective.use_backend(TwinBackend(delay=5)):
        got, opt = _train("adam", "tail", dtype=np.float32)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    assert opt.communication_stats().messages == 3 * 4


def test_single_process_adds_nothing():
    want, _ = _train("adam", "plain2g", seed=1)
    got, opt = _train("adam", "dist", seed=1)
    assert not np.array_equal(got[0], want[0])   # no averaging to 2 g here
    plain = tf.Graph()
    with plain.as_default():
        v = tf.Variable([1.0, 2.0])
        opt = NPUDistributedOptimizer(tf.train.AdamOptimizer(0.1))
        op = opt.minimize(tf.reduce_sum(v * v))
        assert op.attrs["grad_hook"] is None      # the inner optimizer runs as is
        assert opt.communication_stats().steps == 0


def test_wrapper_delegates():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        inner = tf.train.AdamOptimizer(0.1)
        opt = NPUDistributedOptimizer(inner)
        assert opt.get_name() == "DistributedAdamOptimizer"
        assert NPUDistributedOptimizer(inner, name="D").get_name() == "D"
        assert opt.optimizer is inner and not opt.is_tailing_optimization
        opt.minimize(tf.reduce_sum(v * v))
        assert opt.get_slot_names() == inner.get_slot_names() == ["m", "v"]
        assert opt.get_slot(v, "m") is inner.get_slot(v, "m")
        assert opt.variables() == inner.variables()
        assert opt.rule is inner.rule


@pytest.mark.parametrize("args, exc, match", [
    ((object(),), TypeError, "optimizer must be an optimizer"),
    ((None,), TypeError, "optimizer must be an optimizer"),
])
def test_wrapper_checks_its_arguments(args, exc, match):
    with pytest.raises(exc, match=match):
        NPUDistributedOptimizer(*args)


def test_tailing_flag_must_be_bool():
    with pytest.raises(TypeError, match="is_tailing_optimization must be a bool"):
        NPUDistributedOptimizer(tf.train.AdamOptimizer(0.1), is_tailing_optimization=1)


def test_idx_split_must_end_at_the_last_gradient():
    hccl.set_split_strategy_by_idx([0, 2])
    g = tf.Graph()
    with g.as_default(), collective.use_backend(TwinBackend()):
        a, b = tf.Variable([1.0]), tf.Variable([2.0])
        opt = NPUDistributedOptimizer(tf.train.GradientDescentOptimizer(0.1))
        with pytest.raises(ValueError, match=r"last index must be the last gradient, 1 "
                                             r"\(there are 2 gradients\)"):
            opt.minimize(tf.reduce_sum(a * b))


def test_next_hook_sees_averaged_gradients_and_can_skip():
    seen = []

    def outer(flat_grads, layouts):
        seen.append(flat_grads[0].copy())
        return seen[-1][0] < 100   # skip when the (averaged) gradient is large

    g = tf.Graph()
    with g.as_default(), collective.use_backend(TwinBackend()):
        v = tf.Variable([1.0, 3.0])
        scale = tf.placeholder(tf.float32, [])
        opt = NPUDistributedOptimizer(tf.train.GradientDescentOptimizer(0.5),
                                      is_tailing_optimization=True)
        gv = opt.compute_gradients(tf.reduce_sum(v) * scale)
        op = opt.apply_gradients(gv, grad_hook=outer)
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(op.outputs[0], {scale: 1.0})
            np.testing.assert_array_equal(seen[-1], [2.0, 2.0])   # 1 averaged with 3
            np.testing.assert_array_equal(sess.run(v), [0.0, 2.0])
            assert not sess.run(op.outputs[0], {scale: 100.0})
            np.testing.assert_array_equal(sess.run(v), [0.0, 2.0])


def test_abandoned_tailing_iterator_leaves_nothing_in_flight():
    backend = TwinBackend(delay=100)
    hook = make_allreduce_grad_hook(is_tailing_optimization=True)
    lay = Layout(["a", "b"], [(100,), (2,)])
    with collective.use_backend(backend):
        ranges = hook([np.ones(102)], [lay])
        assert len(backend.in_flight) == 2
        assert next(ranges) == (0, 0, 100)
        ranges.close()
    assert not backend.in_flight
    assert hook.stats.steps == 1 and hook.stats.messages == 2


def test_tailing_pieces():
    lay = Layout(["w", "b", "v", "c"], [(10, 10), (5,), (40,), (3,)])   # 0, 100, 105, 145
    tensors = distributed_optimizer.AllreduceGradHook(True, min_piece_elements=30)
    assert tensors._cut(lay, 0, 145, last=False) == [(0, 100), (100, 145)]
    assert tensors._cut(lay, 100, 148, last=False) == [(100, 148)]   # c merged
    assert tensors._cut(lay, 0, 148, last=True) == [(0, 148)]
    chunks = distributed_optimizer.AllreduceGradHook(True, elementwise=True,
                                                     min_piece_elements=30)
    assert chunks._cut(lay, 0, 100, last=False) == [(0, 30), (30, 60), (60, 100)]
    assert chunks._cut(lay, 0, 110, last=False) == [(0, 30), (30, 60), (60, 90), (90, 110)]


def test_elementwise_flag_comes_from_the_rule():
    assert distributed_optimizer._rule_is_elementwise(tf.train.AdamOptimizer(0.1))
    assert not distributed_optimizer._rule_is_elementwise(tf.train.LAMBOptimizer(0.1))
    assert not distributed_optimizer._rule_is_elementwise(object())
