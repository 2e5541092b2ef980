"""tf.layers classes and the conv2d_transpose / separable_conv2d functions: TF1's variable
names (the expected lists are what TF 2.15's tf.compat.v1 creates for the same calls),
reuse by instance, variables / trainable_weights, and shapes."""
import numpy as np
import pytest

import estimator_npu as tf


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def test_variable_names_follow_tf1(graph):
    x = tf.placeholder(tf.float32, [None, 6])
    d = tf.layers.Dense(4)
    a = d(x)
    d(x)
    c = tf.layers.Dense(3)(a)
    tf.layers.dense(c, 2)
    with tf.variable_scope("blk"):
        tf.layers.Dense(2, name="head")(c)
    bn = tf.layers.BatchNormalization()
    bn(a, training=True)
    im = tf.placeholder(tf.float32, [None, 4, 4, 3])
    t1 = tf.layers.Conv2DTranspose(5, 3, strides=2, padding="same")(im)
    s = tf.layers.separable_conv2d(im, 6, 3, depth_multiplier=2)
    cv = tf.layers.Conv2D(2, 3)
    cv(im)
    cv(im)
    p = tf.layers.MaxPooling2D(2, 2)(im)
    fl = tf.layers.Flatten()(im)
    assert [v.name for v in tf.global_variables()] == [
        "dense/kernel:0", "dense/bias:0", "dense_1/kernel:0", "dense_1/bias:0",
        "dense_2/kernel:0", "dense_2/bias:0", "blk/head/kernel:0", "blk/head/bias:0",
        "batch_normalization/gamma:0", "batch_normalization/beta:0",
        "batch_normalization/moving_mean:0", "batch_normalization/moving_variance:0",
        "conv2d_transpose/kernel:0", "conv2d_transpose/bias:0",
        "separable_conv2d/depthwise_kernel:0", "separable_conv2d/pointwise_kernel:0",
        "separable_conv2d/bias:0", "conv2d/kernel:0", "conv2d/bias:0"]
    assert len(bn.trainable_weights) == 2 and len(bn.variables) == 4
    assert bn.moving_mean.name == "batch_normalization/moving_mean:0"
    assert t1.shape == [None, 8, 8, 5] and s.shape == [None, 2, 2, 6]
    assert p.shape == [None, 2, 2, 3] and fl.shape == [None, 48]
    assert len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)) == 2
    assert d.kernel.name == "dense/kernel:0" and d.bias.shape == [4]


def test_an_instance_shares_its_weights_across_calls(graph):
    x = tf.placeholder(tf.float32, [None, 3])
    layer = tf.layers.Dense(2, activation=tf.nn.relu, name="shared")
    y1, y2 = layer(x), layer.apply(x * 2.0)
    assert len(tf.trainable_variables()) == 2 and layer.variables == tf.global_variables()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        v = np.array([[1.0, -2.0, 0.5]], np.float32)
        a, b, k, bias = sess.run([y1, y2, layer.kernel, layer.bias], {x: v})
    np.testing.assert_allclose(a, np.maximum(v @ k + bias, 0), rtol=1e-6)
    np.testing.assert_allclose(b, np.maximum(2 * v @ k + bias, 0), rtol=1e-6)


def test_dropout_and_batch_norm_classes_take_training(graph):
    x = tf.placeholder(tf.float32, [None, 4])
    drop = tf.layers.Dropout(0.5)
    bn = tf.layers.BatchNormalization(momentum=0.5)
    v = np.ones((8, 4), np.float32) * np.arange(8)[:, None]
    with tf.Session() as sess:
        y_eval = drop(x, training=False)
        y_train = drop(x, training=True)
        z = bn(x, training=True)
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(y_eval, {x: v}), v)
        assert set(np.unique(sess.run(y_train, {x: v}) / np.maximum(v, 1))) <= {0.0, 2.0}
        out = sess.run(z, {x: v})
        np.testing.assert_allclose(out.mean(0), 0, atol=1e-5)


def test_conv2d_transpose_layer_matches_nn_op(graph):
    im = tf.placeholder(tf.float32, [None, 3, 3, 2])
    layer = tf.layers.Conv2DTranspose(4, 3, strides=2, padding="valid", use_bias=False)
    y = layer(im)
    assert y.shape == [None, 7, 7, 4]
    ref = tf.nn.conv2d_transpose(im, layer.kernel, [2, 7, 7, 4], [1, 2, 2, 1], "VALID")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        v = np.random.RandomState(0).normal(size=(2, 3, 3, 2)).astype(np.float32)
        a, b = sess.run([y, ref], {im: v})
    np.testing.assert_allclose(a, b, rtol=1e-6)


def test_old_engine_import_path_still_works():
    from estimator_npu.engine.layers import dense
    assert dense is tf.layers.dense


def test_layers_conv1d_variables_shape_and_values():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 12, 3])
        y = tf.layers.conv1d(x, 4, 5, name="conv")
        same = tf.layers.conv1d(x, 2, 3, strides=2, padding="same", activation=tf.nn.relu)
        assert [v.op.name for v in tf.global_variables()] == [
            "conv/kernel", "conv/bias", "conv1d/kernel", "conv1d/bias"]
        assert tf.global_variables()[0].shape.as_list() == [5, 3, 4]
        assert y.shape.as_list() == [None, 8, 4]
        assert same.shape.as_list() == [None, 6, 2]
        k, b = tf.global_variables()[:2]
        ref = tf.nn.conv1d(x, k, 1, "VALID") + b
        feed = {x: np.random.default_rng(1).normal(size=(2, 12, 3)).astype(np.float32)}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(b.assign([0.5, -0.5, 1.0, 0.0]))
            got, want = sess.run([y, ref], feed)
        np.testing.assert_allclose(got, want, rtol=1e-6)
        with pytest.raises(ValueError, match="3-D"):
            tf.layers.conv1d(tf.placeholder(tf.float32, [None, 4, 4, 3]), 2, 3)
