"""Tests for the ``tf.layers`` helpers (``estimator_npu/layers/functional.py``)."""
import numpy as np
import pytest

import estimator_npu as tf
import estimator_npu.layers  # noqa: F401 - makes tf.layers available


@pytest.fixture(autouse=True)
def graph():
    with tf.Graph().as_default() as g:
        yield g


def names(variables):
    return [v.op.name for v in variables]


def run(fetches, feeds=None, init=True):
    with tf.Session() as sess:
        if init:
            sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feeds)


# ------------------------------------------------------------------ names, shapes, reuse
def test_variable_names_and_shapes_follow_tf1():
    x = tf.placeholder(tf.float32, [None, 8, 8, 3])
    h = tf.layers.conv2d(x, 4, 3, padding="same")
    h = tf.layers.batch_normalization(h, training=True)
    h = tf.layers.max_pooling2d(h, 2, 2)
    h = tf.layers.dense(tf.layers.flatten(h), 5)
    tf.layers.dense(h, 2)
    with tf.variable_scope("head"):
        tf.layers.layer_norm(h)
    got = {v.op.name: v.shape.as_list() for v in tf.global_variables()}
    assert got == {
        "conv2d/kernel": [3, 3, 3, 4], "conv2d/bias": [4],
        "batch_normalization/gamma": [4], "batch_normalization/beta": [4],
        "batch_normalization/moving_mean": [4], "batch_normalization/moving_variance": [4],
        "dense/kernel": [64, 5], "dense/bias": [5],
        "dense_1/kernel": [5, 2], "dense_1/bias": [2],
        "head/LayerNorm/beta": [5], "head/LayerNorm/gamma": [5],
    }
    trainable = set(names(tf.trainable_variables()))
    assert "batch_normalization/moving_mean" not in trainable
    assert "batch_normalization/moving_variance" not in trainable
    assert "batch_normalization/gamma" in trainable and "dense_1/kernel" in trainable


def test_names_are_unique_per_enclosing_scope():
    x = tf.placeholder(tf.float32, [None, 3])
    with tf.variable_scope("a"):
        tf.layers.dense(x, 2)
        tf.layers.dense(x, 2)
    with tf.variable_scope("b"):
        tf.layers.dense(x, 2)
    assert names(tf.trainable_variables()) == [
        "a/dense/kernel", "a/dense/bias", "a/dense_1/kernel", "a/dense_1/bias",
        "b/dense/kernel", "b/dense/bias"]


def test_reuse_shares_variables():
    rng = np.random.default_rng(0)
    x = tf.placeholder(tf.float32, [None, 3])
    a = tf.layers.dense(x, 4, name="fc")
    b = tf.layers.dense(x, 4, name="fc", reuse=True)
    with tf.variable_scope("shared", reuse=tf.AUTO_REUSE):
        c = tf.layers.conv2d(tf.zeros([1, 5, 5, 2]), 3, 2, name="conv")
        d = tf.layers.conv2d(tf.zeros([1, 5, 5, 2]), 3, 2, name="conv")
    assert len(tf.global_variables()) == 4
    with pytest.raises(ValueError, match="fc/kernel already exists"):
        tf.layers.dense(x, 4, name="fc")
    xv = rng.standard_normal((2, 3)).astype(np.float32)
    av, bv, cv, dv = run([a, b, c, d], {x: xv})
    np.testing.assert_array_equal(av, bv)
    np.testing.assert_array_equal(cv, dv)


# ------------------------------------------------------------------ dense
def test_dense_matches_numpy():
    rng = np.random.default_rng(1)
    x = tf.placeholder(tf.float64, [None, 4])
    y = tf.layers.dense(x, 3, activation=tf.nn.relu,
                        bias_initializer=tf.constant_initializer(0.5))
    xv = rng.standard_normal((5, 4))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        yv, kernel, bias = sess.run([y, *tf.trainable_variables()], {x: xv})
    assert kernel.dtype == np.float64 and y.shape == [None, 3]
    np.testing.assert_array_equal(bias, [0.5] * 3)
    np.testing.assert_allclose(yv, np.maximum(xv @ kernel + bias, 0), rtol=1e-12)


@pytest.mark.parametrize("shape", [[None, 5, 4], [None, None, 4]], ids=["static", "dynamic"])
def test_dense_on_rank3_inputs_works_over_the_last_dim(shape):
    rng = np.random.default_rng(2)
    x = tf.placeholder(tf.float32, shape)
    y = tf.layers.dense(x, 3)
    assert y.shape.ndims == 3 and y.shape[-1] in (3, None)
    if None not in shape[1:]:
        assert y.shape == [None, 5, 3]
    g = tf.gradients(tf.reduce_sum(y), tf.trainable_variables())
    xv = rng.standard_normal((2, 5, 4)).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        yv, kernel, bias, gk, gb = sess.run([y, *tf.trainable_variables(), *g], {x: xv})
    np.testing.assert_allclose(yv, np.einsum("bti,io->bto", xv, kernel) + bias, rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(gk, np.broadcast_to(xv.sum((0, 1))[:, None], (4, 3)),
                               rtol=1e-5)
    np.testing.assert_allclose(gb, [10.0] * 3)


def test_kernel_regularizer_adds_a_regularization_loss():
    x = tf.placeholder(tf.float32, [None, 3])
    tf.layers.dense(x, 2, kernel_initializer=tf.ones_initializer(),
                    kernel_regularizer=lambda w: 0.1 * tf.reduce_sum(tf.square(w)))
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert len(losses) == 1
    np.testing.assert_allclose(run(losses[0]), 0.6, rtol=1e-6)


# ------------------------------------------------------------------ conv, pooling, flatten
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_conv2d_layer_matches_nn_conv2d(data_format):
    rng = np.random.default_rng(3)
    nchw = data_format == "channels_first"
    shape = [2, 3, 7, 7] if nchw else [2, 7, 7, 3]
    x = tf.placeholder(tf.float32, shape)
    y = tf.layers.conv2d(x, 4, (3, 2), strides=2, padding="SAME", data_format=data_format,
                         activation=tf.nn.relu, bias_initializer=tf.constant_initializer(0.1))
    kernel = tf.trainable_variables()[0]
    fmt = "NCHW" if nchw else "NHWC"
    ref = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, kernel, 2, "SAME", data_format=fmt),
                                    tf.fill([4], 0.1), data_format=fmt))
    assert y.shape == ref.shape == ([2, 4, 4, 4])
    yv, rv = run([y, ref], {x: rng.standard_normal(shape).astype(np.float32)})
    np.testing.assert_allclose(yv, rv, rtol=1e-6)


def test_pooling_and_flatten():
    rng = np.random.default_rng(4)
    xv = rng.standard_normal((2, 4, 6, 3)).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 4, 6, 3])
    mp = tf.layers.max_pooling2d(x, 2, 2)
    ap = tf.layers.average_pooling2d(x, [2, 3], [2, 3], padding="same")
    flat = tf.layers.flatten(mp)
    flat_cf = tf.layers.flatten(tf.transpose(mp, [0, 3, 1, 2]), data_format="channels_first")
    dyn = tf.layers.flatten(tf.placeholder_with_default(x, [None, None, 6, 3]))
    assert mp.shape == [None, 2, 3, 3] and ap.shape == [None, 2, 2, 3]
    assert flat.shape == [None, 18] and dyn.shape.ndims == 2
    mv, av, fv, fcv, dv = run([mp, ap, flat, flat_cf, dyn], {x: xv}, init=False)
    np.testing.assert_array_equal(mv, xv.reshape(2, 2, 2, 3, 2, 3).max(axis=(2, 4)))
    np.testing.assert_allclose(av, xv.reshape(2, 2, 2, 2, 3, 3).mean(axis=(2, 4)), rtol=1e-6)
    np.testing.assert_array_equal(fv, mv.reshape(2, 18))
    np.testing.assert_array_equal(fcv, fv)
    np.testing.assert_array_equal(dv, xv.reshape(2, -1))


# ------------------------------------------------------------------ dropout
def test_dropout_training_vs_inference():
    rng = np.random.default_rng(5)
    xv = rng.uniform(1.0, 2.0, (200, 50)).astype(np.float32)
    x = tf.placeholder(tf.float32, xv.shape)
    train = tf.layers.dropout(x, rate=0.3, training=True, seed=7)
    infer = tf.layers.dropout(x, rate=0.3)
    flag = tf.placeholder(tf.bool, [])
    switched = tf.layers.dropout(x, rate=0.3, training=flag, seed=7)
    with tf.Session() as sess:
        tv, iv = sess.run([train, infer], {x: xv})
        off = sess.run(switched, {x: xv, flag: False})
        on = sess.run(switched, {x: xv, flag: True})
    np.testing.assert_array_equal(iv, xv)
    np.testing.assert_array_equal(off, xv)
    for v in (tv, on):
        kept = v != 0
        assert 0.25 < 1 - kept.mean() < 0.35
        np.testing.assert_allclose(v[kept], xv[kept] / 0.7, rtol=1e-6)


# ------------------------------------------------------------------ batch normalization
def test_batch_normalization_training_and_moving_average_updates():
    rng = np.random.default_rng(6)
    batches = [rng.normal(3.0, 2.0, (8, 5, 4)) for _ in range(3)]
    x = tf.placeholder(tf.float64, [None, 5, 4])
    y = tf.layers.batch_normalization(x, momentum=0.9, epsilon=1e-3, training=True,
                                      beta_initializer=tf.constant_initializer(0.5),
                                      gamma_initializer=tf.constant_initializer(2.0))
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert len(update_ops) == 2
    with tf.control_dependencies(update_ops):
        train_y = tf.identity(y)
    moving = [v for v in tf.global_variables() if "moving" in v.op.name]
    mm, mv = np.zeros(4), np.ones(4)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for b in batches:
            yv = sess.run(train_y, {x: b})
            mean, var = b.mean(axis=(0, 1)), b.var(axis=(0, 1))
            np.testing.assert_allclose(yv, 2.0 * (b - mean) / np.sqrt(var + 1e-3) + 0.5,
                                       rtol=1e-10, atol=1e-12)
            mm, mv = 0.9 * mm + 0.1 * mean, 0.9 * mv + 0.1 * var
            got_mm, got_mv = sess.run(moving)
            np.testing.assert_allclose(got_mm, mm, rtol=1e-12)
            np.testing.assert_allclose(got_mv, mv, rtol=1e-12)
        # Running y alone (no update ops) leaves the moving statistics alone.
        sess.run(y, {x: batches[0]})
        np.testing.assert_allclose(sess.run(moving[0]), mm, rtol=1e-12)

        # Inference (same variables) normalizes with the moving statistics.
        infer = tf.layers.batch_normalization(x, training=False, name="batch_normalization",
                                              reuse=True)
        iv = sess.run(infer, {x: batches[0]})
    np.testing.assert_allclose(iv, 2.0 * (batches[0] - mm) / np.sqrt(mv + 1e-3) + 0.5,
                               rtol=1e-10)
    assert len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)) == 2


def test_batch_normalization_with_a_bool_tensor_and_channels_first():
    rng = np.random.default_rng(7)
    xv = rng.normal(-1.0, 3.0, (4, 3, 2, 2))
    x = tf.placeholder(tf.float64, xv.shape)
    training = tf.placeholder(tf.bool, [])
    y = tf.layers.batch_normalization(x, axis=1, momentum=0.5, training=training)
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    moving = [v for v in tf.global_variables() if "moving" in v.op.name]
    grad = tf.gradients(tf.reduce_sum(y * y), x)[0]
    mean, var = xv.mean(axis=(0, 2, 3)), xv.var(axis=(0, 2, 3))
    c = (slice(None), None, None)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        yv, _ = sess.run([y, updates], {x: xv, training: False})
        np.testing.assert_allclose(yv, xv / np.sqrt(1 + 1e-3), rtol=1e-12)
        np.testing.assert_allclose(sess.run(moving), [np.zeros(3), np.ones(3)])
        yv, _, gv = sess.run([y, updates, grad], {x: xv, training: True})
        np.testing.assert_allclose(yv, (xv - mean[c]) / np.sqrt(var[c] + 1e-3), rtol=1e-10,
                                   atol=1e-12)
        got_mm, got_mv = sess.run(moving)
    np.testing.assert_allclose(got_mm, 0.5 * mean, rtol=1e-12)
    np.testing.assert_allclose(got_mv, 0.5 + 0.5 * var, rtol=1e-12)
    assert np.all(np.isfinite(gv)) and gv.shape == xv.shape


# ------------------------------------------------------------------ layer norm
@pytest.mark.parametrize("begin_norm_axis, begin_params_axis", [(1, -1), (-1, -1), (2, 1)])
def test_layer_norm_matches_numpy(begin_norm_axis, begin_params_axis):
    rng = np.random.default_rng(8)
    xv = rng.normal(2.0, 3.0, (3, 4, 5))
    x = tf.placeholder(tf.float64, [None, 4, 5])
    y = tf.layers.layer_norm(x, begin_norm_axis=begin_norm_axis,
                             begin_params_axis=begin_params_axis)
    beta, gamma = tf.trainable_variables()
    assert names([beta, gamma]) == ["LayerNorm/beta", "LayerNorm/gamma"]
    assert beta.shape == gamma.shape == list(xv.shape[begin_params_axis % 3:])
    bv = rng.standard_normal(beta.shape.as_list())
    gv = rng.standard_normal(gamma.shape.as_list())
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        beta.load(bv, sess)
        gamma.load(gv, sess)
        yv = sess.run(y, {x: xv})
    axes = tuple(range(begin_norm_axis % 3, 3))
    mean, var = xv.mean(axis=axes, keepdims=True), xv.var(axis=axes, keepdims=True)
    np.testing.assert_allclose(yv, (xv - mean) / np.sqrt(var + 1e-12) * gv + bv, rtol=1e-10,
                               atol=1e-12)


# ------------------------------------------------------------------ argument errors
@pytest.mark.parametrize("build, words", [
    (lambda: tf.layers.dense(tf.placeholder(tf.float32, [None, None]), 3),
     ["dense", "last dimension", "(?, ?)"]),
    (lambda: tf.layers.dense(tf.zeros([3]), 3), ["dense", "rank"]),
    (lambda: tf.layers.conv2d(tf.zeros([1, 4, 4, 2]), 3, 2, padding="full"),
     ["conv2d", "padding", "full"]),
    (lambda: tf.layers.conv2d(tf.zeros([1, 4, 4, 2]), 3, 2, data_format="NHWC"),
     ["conv2d", "data_format", "NHWC"]),
    (lambda: tf.layers.max_pooling2d(tf.zeros([1, 4, 4, 2]), 2, 2, padding="SAMEISH"),
     ["max_pooling2d", "padding"]),
    (lambda: tf.layers.batch_normalization(tf.zeros([2, 3]), axis=2),
     ["batch_normalization", "axis 2"]),
    (lambda: tf.layers.batch_normalization(tf.zeros([2, 3]), renorm=True),
     ["batch_normalization", "renorm"]),
    (lambda: tf.layers.layer_norm(tf.zeros([2, 3]), begin_norm_axis=2),
     ["layer_norm", "begin_norm_axis"]),
])
def test_bad_arguments_raise_value_error(build, words):
    with pytest.raises(ValueError) as info:
        build()
    for word in words:
        assert word in str(info.value)
