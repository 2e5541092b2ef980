"""Loss-scale managers: the exact dynamic rule step by step, argument errors, checkpointing
of the scale and counters, the ``loss_scale`` summary."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import mixed_precision as mp
from estimator_npu.train import loss_scale


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def reference_rule(scale, good, bad, finite, n_incr, n_decr, incr, decr):
    """SPEC §6, written out independently (float32 arithmetic as TF1)."""
    scale = np.float32(scale)
    if finite:
        if good + 1 >= n_incr:
            with np.errstate(over="ignore"):
                new = scale * np.float32(incr)
            return (new if np.isfinite(new) else scale), 0, 0
        return scale, good + 1, bad
    if bad + 1 >= n_decr:
        return np.float32(max(np.float32(1.0), scale * np.float32(decr))), 0, 0
    return scale, 0, bad + 1


class Stepper:
    """Runs the manager's update op with a fed finite flag; reads (scale, good, bad)."""

    def __init__(self, manager):
        self.flag = tf.placeholder(tf.bool, [])
        self.update = manager.update_loss_scale(self.flag)
        self.scale_t = manager.get_loss_scale()
        self.vars = manager.variables()
        self.sess = tf.Session()
        self.sess.run(tf.global_variables_initializer())

    def step(self, finite):
        self.sess.run(self.update, {self.flag: finite})
        return self.state()

    def state(self):
        s, g, b = self.sess.run(list(self.vars))
        return float(s), int(g), int(b)


def test_rule_step_by_step(graph):
    m = mp.ExponentialUpdateLossScaleManager(8, incr_every_n_steps=3,
                                             decr_every_n_nan_or_inf=2, incr_ratio=2,
                                             decr_ratio=0.5)
    st = Stepper(m)
    assert st.state() == (8.0, 0, 0)
    expected = [
        (True, (8.0, 1, 0)),
        (True, (8.0, 2, 0)),
        (True, (16.0, 0, 0)),    # good_steps + 1 >= 3: grow, reset both counters
        (False, (16.0, 0, 1)),   # one bad step: bad_steps += 1, good_steps = 0
        (True, (16.0, 1, 1)),    # a good step leaves bad_steps alone
        (False, (8.0, 0, 0)),    # bad_steps + 1 >= 2: shrink, reset
        (False, (8.0, 0, 1)),
        (False, (4.0, 0, 0)),
        (True, (4.0, 1, 0)),
        (True, (4.0, 2, 0)),
        (False, (4.0, 0, 1)),    # good_steps reset by the bad step
        (True, (4.0, 1, 1)),
        (True, (4.0, 2, 1)),
        (True, (8.0, 0, 0)),
        (False, (8.0, 0, 1)), (False, (4.0, 0, 0)),
        (False, (4.0, 0, 1)), (False, (2.0, 0, 0)),
        (False, (2.0, 0, 1)), (False, (1.0, 0, 0)),
        (False, (1.0, 0, 1)), (False, (1.0, 0, 0)),   # floor at 1
        (False, (1.0, 0, 1)), (True, (1.0, 1, 1)),
    ]
    for i, (finite, want) in enumerate(expected):
        assert st.step(finite) == want, (i, finite)


def test_shrink_floors_at_one_with_non_power_of_two_ratio(graph):
    m = mp.ExponentialUpdateLossScaleManager(1.5, 10, decr_every_n_nan_or_inf=1,
                                             decr_ratio=0.8)
    st = Stepper(m)
    assert st.step(False) == (pytest.approx(np.float32(1.5) * np.float32(0.8)), 0, 0)
    assert st.step(False) == (1.0, 0, 0)       # 1.2 * 0.8 = 0.96 -> 1
    assert st.step(False) == (1.0, 0, 0)


def test_growth_stops_below_float32_overflow(graph):
    m = mp.ExponentialUpdateLossScaleManager(2.0 ** 126, 1, incr_ratio=2)
    st = Stepper(m)
    assert st.step(True) == (2.0 ** 127, 0, 0)
    assert st.step(True) == (2.0 ** 127, 0, 0)  # 2**128 is inf in float32: kept, reset


@pytest.mark.parametrize("seed", range(3))
def test_random_sequences_follow_the_reference(graph, seed):
    rng = np.random.default_rng(seed)
    n_incr = int(rng.integers(1, 5))
    n_decr = int(rng.integers(1, 4))
    incr = float(rng.choice([1.0, 1.5, 2.0, 3.0]))
    decr = float(rng.choice([0.25, 0.5, 0.8, 1.0]))
    init = float(rng.choice([1.0, 3.0, 2.0 ** 15, 1e30]))
    m = mp.ExponentialUpdateLossScaleManager(init, n_incr, decr_every_n_nan_or_inf=n_decr,
                                             incr_ratio=incr, decr_ratio=decr)
    st = Stepper(m)
    state = (np.float32(init), 0, 0)
    for finite in rng.random(60) < 0.6:
        state = reference_rule(*state, bool(finite), n_incr, n_decr, incr, decr)
        got = st.step(bool(finite))
        assert got == (float(state[0]), state[1], state[2])


def test_next_loss_scale_is_the_kernel_rule():
    assert loss_scale.next_loss_scale(8.0, 2, 1, True, 3, 2, 2.0, 0.5) == (16.0, 0, 0)
    assert loss_scale.next_loss_scale(8.0, 1, 1, True, 3, 2, 2.0, 0.5) == (8.0, 2, 1)
    assert loss_scale.next_loss_scale(8.0, 2, 1, False, 3, 2, 2.0, 0.5) == (4.0, 0, 0)
    assert loss_scale.next_loss_scale(8.0, 2, 0, False, 3, 2, 2.0, 0.5) == (8.0, 0, 1)


def test_variables_are_checkpointed_non_trainable_and_summarized(graph, tmp_path):
    m = mp.ExponentialUpdateLossScaleManager(2.0 ** 10, 2, decr_every_n_nan_or_inf=1,
                                             decr_ratio=0.5)
    st = Stepper(m)
    scale, good, bad = m.variables()
    assert [v.op.name for v in (scale, good, bad)] == ["loss_scale", "good_steps",
                                                       "bad_steps"]
    assert (scale.dtype, good.dtype, bad.dtype) == (tf.float32, tf.int32, tf.int32)
    glob = tf.global_variables()
    assert all(v in glob for v in (scale, good, bad))
    assert not any(v in tf.trainable_variables() for v in (scale, good, bad))
    assert m.variables() == (scale, good, bad)          # created once per graph
    summary = tf.summary.merge_all()
    value = st.sess.run(summary).value
    assert [(v.tag, v.simple_value) for v in value] == [("loss_scale", 1024.0)]

    saver = tf.train.Saver()
    st.step(False)
    st.step(True)                                       # (512, 1, 0)
    path = saver.save(st.sess, str(tmp_path / "model.ckpt"), global_step=2)
    assert tf.train.load_variable(path, "loss_scale") == 512.0
    assert tf.train.load_variable(path, "good_steps") == 1
    st.step(False)
    st.step(False)
    assert st.state() == (128.0, 0, 0)
    saver.restore(st.sess, path)
    assert st.state() == (512.0, 1, 0)
    assert st.step(True) == (1024.0, 0, 0)              # resumes the count where saved

    sess2 = tf.Session()
    saver.restore(sess2, path)                          # a fresh session resumes too
    sess2.run(st.update, {st.flag: True})
    assert sess2.run(list(m.variables())) == [1024.0, 0, 0]


def test_variables_per_graph_and_created_at_the_root(graph):
    m = mp.ExponentialUpdateLossScaleManager(4, 2)
    with tf.name_scope("tower"), tf.control_dependencies([tf.no_op()]):
        t = m.get_loss_scale()
    assert t.op.name == "loss_scale" and not t.op.control_inputs
    g2 = tf.Graph()
    with g2.as_default():
        t2 = m.get_loss_scale()
    assert t2.graph is g2 and m.variables(g2)[0].graph is g2
    assert m.variables(graph)[0].graph is graph


def test_fixed_manager(graph):
    m = mp.FixedLossScaleManager(128)
    t = m.get_loss_scale()
    assert t.dtype == tf.float32
    flag = tf.placeholder(tf.bool, [])
    op = m.update_loss_scale(flag)
    with tf.Session() as sess:
        for finite in (True, False, False):
            sess.run(op, {flag: finite})
            assert sess.run(t) == 128.0
    assert m.get_loss_scale() is t


def test_update_needs_a_scalar_bool(graph):
    m = mp.ExponentialUpdateLossScaleManager(4, 2)
    with pytest.raises(ValueError, match="finite_grads"):
        m.update_loss_scale(tf.constant(1.0))
    with pytest.raises(ValueError, match="finite_grads"):
        mp.FixedLossScaleManager(2).update_loss_scale(tf.constant([True, False]))


def test_uninitialized_state_is_reported(graph):
    m = mp.ExponentialUpdateLossScaleManager(4, 2)
    op = m.update_loss_scale(tf.constant(True))
    from estimator_npu import errors
    with tf.Session() as sess, pytest.raises(errors.FailedPreconditionError, match="loss_scale"):
        sess.run(op)


@pytest.mark.parametrize("value, exc, match", [
    (0.5, ValueError, "loss_scale must be a finite number >= 1"),
    (0, ValueError, "got 0"),
    (-4, ValueError, "loss_scale"),
    (float("inf"), ValueError, "loss_scale"),
    (float("nan"), ValueError, "loss_scale"),
    ("2", TypeError, "loss_scale must be a number"),
    (True, TypeError, "loss_scale"),
    (None, TypeError, "loss_scale"),
])
def test_fixed_manager_argument_errors(value, exc, match):
    with pytest.raises(exc, match=match):
        mp.FixedLossScaleManager(value)


@pytest.mark.parametrize("kwargs, exc, name", [
    ({"init_loss_scale": 0.5}, ValueError, "init_loss_scale"),
    ({"init_loss_scale": "big"}, TypeError, "init_loss_scale"),
    ({"init_loss_scale": float("inf")}, ValueError, "init_loss_scale"),
    ({"incr_every_n_steps": 0}, ValueError, "incr_every_n_steps"),
    ({"incr_every_n_steps": 2.5}, TypeError, "incr_every_n_steps"),
    ({"incr_every_n_steps": True}, TypeError, "incr_every_n_steps"),
    ({"decr_every_n_nan_or_inf": 0}, ValueError, "decr_every_n_nan_or_inf"),
    ({"decr_every_n_nan_or_inf": "2"}, TypeError, "decr_every_n_nan_or_inf"),
    ({"incr_ratio": 0.5}, ValueError, "incr_ratio"),
    ({"incr_ratio": float("nan")}, ValueError, "incr_ratio"),
    ({"decr_ratio": 0.0}, ValueError, "decr_ratio"),
    ({"decr_ratio": 1.5}, ValueError, "decr_ratio"),
    ({"decr_ratio": None}, TypeError, "decr_ratio"),
])
def test_exponential_manager_argument_errors(kwargs, exc, name):
    args = {"init_loss_scale": 2.0 ** 15, "incr_every_n_steps": 100}
    args.update(kwargs)
    with pytest.raises(exc, match=name) as info:
        mp.ExponentialUpdateLossScaleManager(**args)
    value = args[name]
    assert repr(value) in str(info.value) or str(value) in str(info.value)  # names the value


def test_defaults_and_properties():
    m = mp.ExponentialUpdateLossScaleManager(2 ** 15, 1000)
    assert (m.incr_every_n_steps, m.decr_every_n_nan_or_inf, m.incr_ratio, m.decr_ratio) \
        == (1000, 2, 2.0, 0.8)
    assert isinstance(m, mp.LossScaleManager)
    assert isinstance(mp.FixedLossScaleManager(1), mp.LossScaleManager)
    with pytest.raises(NotImplementedError):
        mp.LossScaleManager().get_loss_scale()
