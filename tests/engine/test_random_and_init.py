"""Random ops with TF1 seed semantics, and the statistics of variable initializers."""
import math

import numpy as np
import pytest

import estimator_npu as tf


def _build(graph_seed=None, op_seed=None, ops_before=0, fn=None):
    g = tf.Graph()
    with g.as_default():
        if graph_seed is not None:
            tf.set_random_seed(graph_seed)
        for _ in range(ops_before):
            tf.constant(0.0)
        t = (fn or (lambda s: tf.random_normal([5], seed=s)))(op_seed)
    return g, t


def _values(g, t, runs=1):
    with tf.Session(graph=g) as s:
        return [s.run(t) for _ in range(runs)]


RANDOM_OPS = {
    "normal": lambda s: tf.random_normal([5], seed=s),
    "uniform": lambda s: tf.random_uniform([5], seed=s),
    "truncated": lambda s: tf.truncated_normal([5], seed=s),
    "uniform_int": lambda s: tf.random_uniform([5], 0, 1000, dtype=tf.int32, seed=s),
    "shuffle": lambda s: tf.random_shuffle(tf.range(20), seed=s),
    "dropout": lambda s: tf.nn.dropout(tf.ones([20]), rate=0.5, seed=s),
}


@pytest.mark.parametrize("kind", sorted(RANDOM_OPS))
def test_graph_seed_reproduces_values_when_graph_is_rebuilt(kind):
    fn = RANDOM_OPS[kind]
    a = _values(*_build(graph_seed=42, fn=fn))[0]
    b = _values(*_build(graph_seed=42, fn=fn))[0]
    np.testing.assert_array_equal(a, b)
    c = _values(*_build(graph_seed=43, fn=fn))[0]
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("kind", sorted(RANDOM_OPS))
def test_unseeded_ops_differ_between_sessions(kind):
    g, t = _build(fn=RANDOM_OPS[kind])
    assert not np.array_equal(_values(g, t)[0], _values(g, t)[0])


def test_op_seed_alone_is_reproducible_across_graphs():
    a = _values(*_build(op_seed=7))[0]
    b = _values(*_build(op_seed=7, ops_before=3))[0]
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, _values(*_build(op_seed=8))[0])


def test_graph_and_op_seed_together():
    a = _values(*_build(graph_seed=1, op_seed=5))[0]
    np.testing.assert_array_equal(a, _values(*_build(graph_seed=1, op_seed=5, ops_before=2))[0])
    assert not np.array_equal(a, _values(*_build(graph_seed=2, op_seed=5))[0])


def test_graph_seed_op_seed_counts_earlier_unseeded_random_ops():
    # As TF 2.15's get_seed: other ops do not move the derived op seed, random ops do.
    a = _values(*_build(graph_seed=1))[0]
    np.testing.assert_array_equal(a, _values(*_build(graph_seed=1, ops_before=1))[0])
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        first, second = tf.random_normal([5]), tf.random_normal([5])
    assert first.op.attrs["seed2"] == [1, 0] and second.op.attrs["seed2"] == [1, 1]


def test_two_unseeded_ops_under_a_graph_seed_differ():
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(3)
        a, b = tf.random_normal([4]), tf.random_normal([4])
        with tf.Session() as s:
            va, vb = s.run([a, b])
    assert not np.array_equal(va, vb)


def test_runs_advance_the_sequence_and_a_new_session_restarts_it():
    g, t = _build(graph_seed=9)
    first, second = _values(g, t, runs=2)
    assert not np.array_equal(first, second)
    again_first, again_second = _values(g, t, runs=2)
    np.testing.assert_array_equal(first, again_first)
    np.testing.assert_array_equal(second, again_second)


def test_random_op_shape_dtype_and_range():
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(0)
        u = tf.random_uniform([1000], -2.0, 3.0)
        i = tf.random_uniform([1000], 5, 9, dtype=tf.int64)
        n = tf.random_normal([2, 3], mean=1.0, stddev=0.5, dtype=tf.float64)
        assert u.shape == [1000] and u.dtype == tf.float32
        with tf.Session() as s:
            vu, vi, vn = s.run([u, i, n])
    assert vu.dtype == np.float32 and vu.min() >= -2.0 and vu.max() < 3.0
    assert vi.dtype == np.int64 and set(np.unique(vi)) == {5, 6, 7, 8}
    assert vn.shape == (2, 3) and vn.dtype == np.float64


def test_random_op_argument_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="minval < maxval"):
            tf.random_uniform([2], 1.0, 1.0)
        with pytest.raises(ValueError, match="maxval"):
            tf.random_uniform([2], dtype=tf.int32)
        with pytest.raises(ValueError, match="fully defined"):
            tf.random_normal([None, 2])


def test_truncated_normal_within_two_stddev():
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        t = tf.truncated_normal([20000], mean=3.0, stddev=0.5, dtype=tf.float64)
        with tf.Session() as s:
            v = s.run(t)
    assert np.all(np.abs(v - 3.0) <= 1.0)
    assert abs(v.mean() - 3.0) < 0.02
    # std of a standard normal truncated to [-2, 2] is 0.8796
    assert abs(v.std() - 0.5 * 0.87962566) < 0.01


def test_normal_and_uniform_statistics():
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(2)
        n = tf.random_normal([20000], mean=-1.0, stddev=2.0, dtype=tf.float64)
        u = tf.random_uniform([20000], 1.0, 3.0, dtype=tf.float64)
        with tf.Session() as s:
            vn, vu = s.run([n, u])
    assert abs(vn.mean() + 1.0) < 0.05 and abs(vn.std() - 2.0) < 0.05
    assert abs(vu.mean() - 2.0) < 0.02 and abs(vu.std() - 2.0 / math.sqrt(12)) < 0.01


def test_dropout_keeps_expectation_and_rate():
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(4)
        d = tf.nn.dropout(tf.ones([20000], tf.float64), rate=0.25)
        old = tf.nn.dropout(tf.ones([20000], tf.float64), keep_prob=0.75)
        with tf.Session() as s:
            vd, vo = s.run([d, old])
    for v in (vd, vo):
        np.testing.assert_allclose(np.unique(v), [0.0, 1 / 0.75])
        assert abs((v == 0).mean() - 0.25) < 0.02
    with pytest.raises(ValueError, match="rate"):
        tf.nn.dropout(tf.ones([2]), rate=1.0)


# ------------------------------------------------------------------ initializers
def _init_values(init, shape, seed=0):
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(seed)
        v = tf.get_variable("v", shape, dtype=tf.float64, initializer=init)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            return s.run(v)


@pytest.mark.parametrize("shape, fan_in, fan_out", [
    ((400, 300), 400, 300),
    ((3, 3, 64, 32), 9 * 64, 9 * 32),
])
def test_glorot_uniform_limits_and_std(shape, fan_in, fan_out):
    v = _init_values(tf.glorot_uniform_initializer(), shape)
    limit = math.sqrt(6.0 / (fan_in + fan_out))
    assert np.all(np.abs(v) <= limit)
    assert v.max() > 0.99 * limit and v.min() < -0.99 * limit
    assert abs(v.std() - limit / math.sqrt(3)) < 0.02 * limit


def test_glorot_normal_std():
    v = _init_values(tf.glorot_normal_initializer(), (400, 300))
    std = math.sqrt(2.0 / 700)
    assert abs(v.std() - std) < 0.02 * std
    assert np.all(np.abs(v) <= 2 * std / 0.87962566 + 1e-12)


def test_default_get_variable_initializer_is_glorot_uniform():
    v = _init_values(None, (200, 100))
    limit = math.sqrt(6.0 / 300)
    assert np.all(np.abs(v) <= limit) and v.max() > 0.99 * limit


@pytest.mark.parametrize("init, std_of_fan_in", [
    (tf.he_normal(), lambda n: math.sqrt(2.0 / n)),
    (tf.variance_scaling_initializer(), lambda n: math.sqrt(1.0 / n)),
    (tf.variance_scaling_initializer(scale=3.0, distribution="untruncated_normal"),
     lambda n: math.sqrt(3.0 / n)),
])
def test_normal_variance_scaling_std(init, std_of_fan_in):
    v = _init_values(init, (500, 200))
    std = std_of_fan_in(500)
    assert abs(v.std() - std) < 0.02 * std
    assert abs(v.mean()) < 0.02 * std


def test_truncated_variance_scaling_is_bounded():
    v = _init_values(tf.he_normal(), (500, 200))
    std = math.sqrt(2.0 / 500) / 0.87962566
    assert np.all(np.abs(v) <= 2 * std + 1e-12)


@pytest.mark.parametrize("init, limit_of_fans", [
    (tf.he_uniform(), lambda fi, fo: math.sqrt(6.0 / fi)),
    (tf.variance_scaling_initializer(mode="fan_out", distribution="uniform"),
     lambda fi, fo: math.sqrt(3.0 / fo)),
    (tf.variance_scaling_initializer(2.0, mode="fan_avg", distribution="uniform"),
     lambda fi, fo: math.sqrt(6.0 / ((fi + fo) / 2))),
])
def test_uniform_variance_scaling_limits(init, limit_of_fans):
    v = _init_values(init, (300, 500))
    limit = limit_of_fans(300, 500)
    assert np.all(np.abs(v) <= limit) and v.max() > 0.99 * limit
    assert abs(v.std() - limit / math.sqrt(3)) < 0.02 * limit


def test_variance_scaling_argument_errors():
    with pytest.raises(ValueError, match="scale"):
        tf.variance_scaling_initializer(scale=0.0)
    with pytest.raises(ValueError, match="mode"):
        tf.variance_scaling_initializer(mode="fan_sideways")
    with pytest.raises(ValueError, match="distribution"):
        tf.variance_scaling_initializer(distribution="cauchy")


def test_seeded_initializer_is_reproducible():
    a = _init_values(tf.glorot_uniform_initializer(seed=3), (4, 5), seed=0)
    b = _init_values(tf.glorot_uniform_initializer(seed=3), (4, 5), seed=0)
    np.testing.assert_array_equal(a, b)


def test_random_normal_and_uniform_initializers():
    v = _init_values(tf.random_normal_initializer(1.0, 0.1), (300, 100))
    assert abs(v.mean() - 1.0) < 0.01 and abs(v.std() - 0.1) < 0.005
    u = _init_values(tf.random_uniform_initializer(-0.5, 0.5), (300, 100))
    assert u.min() >= -0.5 and u.max() < 0.5
    t = _init_values(tf.truncated_normal_initializer(0.0, 0.1), (300, 100))
    assert np.all(np.abs(t) <= 0.2)


def test_constant_zeros_ones_initializers():
    np.testing.assert_array_equal(_init_values(tf.zeros_initializer(), (2, 3)), np.zeros((2, 3)))
    np.testing.assert_array_equal(_init_values(tf.ones_initializer(), (2,)), np.ones(2))
    np.testing.assert_array_equal(_init_values(tf.constant_initializer(2.5), (2, 2)),
                                  np.full((2, 2), 2.5))
    np.testing.assert_array_equal(
        _init_values(tf.constant_initializer([1, 2, 3, 4, 5, 6]), (2, 3)),
        np.arange(1.0, 7.0).reshape(2, 3))
    np.testing.assert_array_equal(
        _init_values(tf.constant_initializer(np.eye(2)), (2, 2)), np.eye(2))


def test_constant_initializer_shape_errors():
    with pytest.raises(ValueError, match="7 elements"):
        _init_values(tf.constant_initializer(list(range(7))), (2, 3))
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"\(2, 2\)"):
            tf.constant([1.0, 2.0, 3.0], shape=[2, 2])


def test_initializer_dtype_follows_variable():
    g = tf.Graph()
    with g.as_default():
        v = tf.get_variable("v", [3], dtype=tf.float64, initializer=tf.ones_initializer())
        i = tf.get_variable("i", [3], dtype=tf.int32, initializer=tf.zeros_initializer())
        assert v.dtype == tf.float64 and i.dtype == tf.int32
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert s.run(v).dtype == np.float64 and s.run(i).dtype == np.int32
