"""Learning-rate schedules against their closed forms."""
import math

import numpy as np
import pytest

import estimator_npu as tf

STEPS = [0, 1, 5, 9, 10, 11, 25, 99, 100, 101, 250]


@pytest.fixture
def step():
    g = tf.Graph()
    with g.as_default():
        yield tf.placeholder(tf.int64, [], name="step")


def _values(t, step):
    with tf.Session(graph=t.graph) as sess:
        return [float(sess.run(t, {step: s})) for s in STEPS]


def _lr(v):
    return tf.constant(v, tf.float64)


@pytest.mark.parametrize("staircase", [False, True])
def test_exponential_decay(step, staircase):
    t = tf.train.exponential_decay(_lr(0.1), step, 10, 0.5, staircase=staircase)
    expected = [0.1 * 0.5 ** (math.floor(s / 10) if staircase else s / 10) for s in STEPS]
    np.testing.assert_allclose(_values(t, step), expected, rtol=1e-12)
    assert t.dtype == tf.float64


def test_natural_exp_and_inverse_time(step):
    ne = tf.train.natural_exp_decay(_lr(0.2), step, 10, 0.3)
    it = tf.train.inverse_time_decay(_lr(0.2), step, 10, 0.3, staircase=True)
    np.testing.assert_allclose(_values(ne, step), [0.2 * math.exp(-0.3 * s / 10)
                                                   for s in STEPS], rtol=1e-12)
    np.testing.assert_allclose(_values(it, step), [0.2 / (1 + 0.3 * math.floor(s / 10))
                                                   for s in STEPS], rtol=1e-12)


def test_piecewise_constant(step):
    t = tf.train.piecewise_constant(step, [10, 100], [_lr(1.0), _lr(0.5), _lr(0.1)])
    expected = [1.0 if s <= 10 else 0.5 if s <= 100 else 0.1 for s in STEPS]
    assert _values(t, step) == expected
    f32 = tf.train.piecewise_constant(step, [10], [1.0, 0.5])
    assert f32.dtype == tf.float32
    with pytest.raises(ValueError, match="length of boundaries should be 1 less"):
        tf.train.piecewise_constant(step, [10, 20], [1.0, 0.5])
    with pytest.raises(ValueError, match="must have the same dtype as x"):
        tf.train.piecewise_constant(step, [10.5], [1.0, 0.5])
    with pytest.raises(ValueError, match="Values must have elements all with the same dtype"):
        tf.train.piecewise_constant(step, [10], [_lr(1.0), 0.5])


@pytest.mark.parametrize("power,cycle", [(1.0, False), (2.0, False), (0.5, True),
                                         (1.0, True)])
def test_polynomial_decay(step, power, cycle):
    lr, end, n = 0.1, 0.001, 100
    t = tf.train.polynomial_decay(_lr(lr), step, n, end_learning_rate=end, power=power,
                                  cycle=cycle)
    expected = []
    for s in STEPS:
        if cycle:
            steps = n * (1 if s == 0 else math.ceil(s / n))
            frac = s / steps
        else:
            frac = min(s, n) / n
        expected.append((lr - end) * (1 - frac) ** power + end)
    np.testing.assert_allclose(_values(t, step), expected, rtol=1e-12)


def test_cosine_decay(step):
    t = tf.train.cosine_decay(_lr(0.1), step, 100, alpha=0.1)
    expected = [0.1 * (0.9 * 0.5 * (1 + math.cos(math.pi * min(s, 100) / 100)) + 0.1)
                for s in STEPS]
    np.testing.assert_allclose(_values(t, step), expected, rtol=1e-12)


def test_linear_warmup(step):
    decayed = tf.train.polynomial_decay(_lr(0.1), step, 100, end_learning_rate=0.0)
    t = tf.train.linear_warmup(decayed, step, 10, initial_learning_rate=0.1)
    expected = [0.1 * s / 10 if s < 10 else 0.1 * (1 - min(s, 100) / 100) for s in STEPS]
    np.testing.assert_allclose(_values(t, step), expected, rtol=1e-12, atol=1e-15)
    plain = tf.train.linear_warmup(_lr(0.5), step, 10)
    np.testing.assert_allclose(_values(plain, step),
                               [0.5 * min(s, 10) / 10 for s in STEPS], rtol=1e-12)


def test_float32_default_and_validation(step):
    t = tf.train.exponential_decay(0.1, step, 10, 0.5)
    assert t.dtype == tf.float32
    np.testing.assert_allclose(_values(t, step), [0.1 * 0.5 ** (s / 10) for s in STEPS],
                               rtol=1e-6)
    with pytest.raises(ValueError, match="global_step is required for exponential_decay"):
        tf.train.exponential_decay(0.1, None, 10, 0.5)
    with pytest.raises(ValueError, match="decay_steps must be positive, got 0"):
        tf.train.polynomial_decay(0.1, step, 0)
    with pytest.raises(ValueError, match="warmup_steps must be positive"):
        tf.train.linear_warmup(0.1, step, -1)


def test_schedule_of_global_step_variable():
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        lr = tf.train.exponential_decay(_lr(1.0), gs, 2, 0.5, staircase=True)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = []
            for s in range(5):
                gs.load(s, sess)
                got.append(float(sess.run(lr)))
    assert got == [1.0, 1.0, 0.5, 0.5, 0.25]
