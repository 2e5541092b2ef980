"""NPUOptimizer (seed 002): loss scaling and distributed averaging combined, its argument
errors, the tailing-optimization rules and delegation."""
import logging

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import mixed_precision as mp
from estimator_npu.train.npu_optimizer import NPUOptimizer


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def model():
    x = tf.constant(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
    w = tf.Variable(np.full((3, 1), 0.5, np.float32), name="w")
    c = tf.placeholder_with_default(tf.constant(1.0), [], name="c")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0)) * c
    return loss, c, w


def train(opt, steps=5, bad_steps=()):
    """Runs ``steps`` steps (non-finite ones at ``bad_steps``); returns w and global_step."""
    loss, c, w = model()
    gs = tf.train.get_or_create_global_step()
    train_op = opt.minimize(loss, global_step=gs)
    with tf.Session() as sess, np.errstate(all="ignore"):
        sess.run(tf.global_variables_initializer())
        for i in range(steps):
            sess.run(train_op, {c: np.inf} if i in bad_steps else None)
        return sess.run(w), int(sess.run(gs))


def test_missing_manager_error_message():
    with pytest.raises(ValueError) as info:
        NPUOptimizer(tf.train.GradientDescentOptimizer(0.1), is_loss_scale=True)
    assert str(info.value) == "is_loss_scale is True, loss_scale_manager can not be None"


@pytest.mark.parametrize("kwargs, match", [
    ({"is_distributed": 1}, "is_distributed must be a bool"),
    ({"is_loss_scale": "True"}, "is_loss_scale must be a bool"),
    ({"is_tailing_optimization": None}, "is_tailing_optimization must be a bool"),
    ({"loss_scale_manager": 2.0, "is_loss_scale": True}, "loss_scale_manager must be"),
    ({"name": 3}, "name must be str"),
])
def test_argument_type_errors(kwargs, match):
    with pytest.raises(TypeError, match=match):
        NPUOptimizer(tf.train.GradientDescentOptimizer(0.1), **kwargs)
    with pytest.raises(TypeError, match="opt must be an optimizer"):
        NPUOptimizer(object())


def test_default_name_and_delegation(graph):
    inner = tf.train.AdamOptimizer(0.1)
    opt = NPUOptimizer(inner, mp.FixedLossScaleManager(4), is_loss_scale=True)
    assert opt.get_name() == "NPUOptimizerAdamOptimizer"
    assert NPUOptimizer(tf.train.AdamOptimizer(), name="mine").get_name() == "mine"
    assert isinstance(opt, tf.train.Optimizer)
    assert opt.optimizer is inner and opt.is_loss_scale and not opt.is_distributed
    loss, _, w = model()
    opt.minimize(loss)
    assert opt.get_slot_names() == ["m", "v"]
    assert opt.get_slot(w, "v") is inner.get_slot(w, "v") is not None
    assert opt.variables() == inner.variables()


def test_without_loss_scale_it_is_the_plain_optimizer(graph):
    w_ref, gs_ref = train(tf.train.MomentumOptimizer(0.1, 0.9))
    with tf.Graph().as_default():
        w, gs = train(NPUOptimizer(tf.train.MomentumOptimizer(0.1, 0.9)))
    np.testing.assert_array_equal(w, w_ref)
    assert gs == gs_ref == 5


@pytest.mark.parametrize("is_distributed", [False, True])
def test_loss_scale_skips_non_finite_steps(graph, is_distributed):
    manager = mp.ExponentialUpdateLossScaleManager(2 ** 8, 3)
    opt = NPUOptimizer(tf.train.MomentumOptimizer(0.1, 0.9), manager,
                       is_distributed=is_distributed, is_loss_scale=True)
    w, gs = train(opt, steps=6, bad_steps=(1, 4))
    with tf.Graph().as_default():
        w_ref, gs_ref = train(tf.train.MomentumOptimizer(0.1, 0.9), steps=4)
    assert (gs, gs_ref) == (4, 4)
    np.testing.assert_allclose(w, w_ref, rtol=1e-6)
    has_allreduce = any(op.type == "HcomAllReduce" for op in graph.get_operations())
    assert has_allreduce == is_distributed


def test_distributed_in_one_process_changes_nothing(graph):
    w_ref, _ = train(tf.train.AdamOptimizer(0.05))
    with tf.Graph().as_default():
        w, gs = train(NPUOptimizer(tf.train.AdamOptimizer(0.05), is_distributed=True,
                                   is_tailing_optimization=True))
    np.testing.assert_array_equal(w, w_ref)
    assert gs == 5


def test_tailing_without_distributed_warns_and_has_no_effect(graph, caplog):
    with caplog.at_level(logging.WARNING, logger="estimator_npu"):
        opt = NPUOptimizer(tf.train.GradientDescentOptimizer(0.1),
                           is_tailing_optimization=True)
    assert any("is_tailing_optimization" in r.getMessage() and "no effect" in r.getMessage()
               for r in caplog.records)
    w, _ = train(opt)
    with tf.Graph().as_default():
        w_ref, _ = train(tf.train.GradientDescentOptimizer(0.1))
    np.testing.assert_array_equal(w, w_ref)


def test_manager_without_is_loss_scale_warns(caplog):
    with caplog.at_level(logging.WARNING, logger="estimator_npu"):
        opt = NPUOptimizer(tf.train.GradientDescentOptimizer(0.1),
                           mp.FixedLossScaleManager(8))
    assert opt.loss_scale_manager is None
    assert any("is_loss_scale is False" in r.getMessage() for r in caplog.records)


def test_update_ops_register_the_optimizer_for_the_estimator_check(graph):
    from estimator_npu.train.npu_optimizer import NPU_OPTIMIZERS
    opt = NPUOptimizer(tf.train.GradientDescentOptimizer(0.1), is_distributed=True,
                       is_tailing_optimization=True)
    loss, _, _ = model()
    opt.minimize(loss)
    opt.minimize(loss * 2.0)
    assert graph.get_collection(NPU_OPTIMIZERS) == [opt]
    for o in graph.get_collection(NPU_OPTIMIZERS):
        with pytest.raises(ValueError, match="is_tailing_optimization"):
            o.check_tailing_matches(False)


def test_tailing_must_match_the_run_config():
    opt = NPUOptimizer(tf.train.GradientDescentOptimizer(0.1), is_distributed=True,
                       is_tailing_optimization=True)
    opt.check_tailing_matches(True)
    with pytest.raises(ValueError) as info:
        opt.check_tailing_matches(False)
    msg = str(info.value)
    assert "is_tailing_optimization=True" in msg and "is_tailing_optimization=False" in msg
    assert "run config" in msg
    NPUOptimizer(tf.train.GradientDescentOptimizer(0.1)).check_tailing_matches(False)
    with pytest.raises(TypeError, match="is_tailing_optimization"):
        opt.check_tailing_matches("yes")


class PeerBackend:
    """Rank 0 of 2, in process: the peer's gradients are ``peer_factor`` times ours, and
    the peer's overflow count is ``peer_bad`` (so a sum all-reduce of the scalar flag adds
    it)."""

    name = "peer"
    rank = 0
    size = 2
    local_rank = 0
    local_size = 2

    def __init__(self, peer_factor=3.0):
        self.peer_factor = peer_factor
        self.peer_bad = 0.0
        self.flags = []

    def allreduce(self, array, op):
        assert op == "sum"
        if array.size == 1 and array.dtype == np.float32 and array.ndim == 0:
            self.flags.append(float(array))
            array += self.peer_bad
        else:
            array *= 1 + self.peer_factor
        return array

    def iallreduce(self, array, op):  # pragma: no cover - tailing is off here
        raise AssertionError("unexpected non-blocking all-reduce")

    def broadcast(self, array, root):  # pragma: no cover
        return array

    def allgather(self, array):  # pragma: no cover
        return np.stack([array, array])

    def barrier(self):  # pragma: no cover
        pass


def test_two_workers_average_and_skip_together(graph):
    """Gradients are averaged ((1 + 3) / 2 = 2x ours with SGD), and a step that overflows
    only on the peer is skipped here too."""
    from estimator_npu.distribute import collective
    backend = PeerBackend(peer_factor=3.0)
    with collective.use_backend(backend):
        manager = mp.ExponentialUpdateLossScaleManager(2 ** 8, 1000)
        opt = NPUOptimizer(tf.train.GradientDescentOptimizer(0.1), manager,
                           is_distributed=True, is_loss_scale=True)
        loss, c, w = model()
        gs = tf.train.get_or_create_global_step()
        train_op = opt.minimize(loss, global_step=gs)
        grad, = tf.gradients(loss, [w])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            w0, g0 = sess.run([w, grad])
            sess.run(train_op)
            w1 = sess.run(w)
            np.testing.assert_allclose(w1, w0 - 0.1 * 2.0 * g0, rtol=1e-6)
            assert backend.flags == [0.0]
            backend.peer_bad = 1.0                      # the peer overflows
            sess.run(train_op)
            np.testing.assert_array_equal(sess.run(w), w1)
            assert sess.run(gs) == 1
            assert backend.flags == [0.0, 0.0]          # finite here, skipped anyway
