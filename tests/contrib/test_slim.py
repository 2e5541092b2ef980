"""tf.contrib.slim / tf.contrib.layers: TF-Slim's variable names (the expected list is what
tf_slim 1.1 on TF 2.15 creates for the same network), arg_scope rules, batch_norm,
regularizers, initializers and the variable queries."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.contrib import layers as contrib_layers
from estimator_npu.contrib import slim


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def test_network_variable_names_match_tf_slim(graph):
    x = tf.placeholder(tf.float32, [None, 8, 8, 3])
    with slim.arg_scope([slim.conv2d, slim.fully_connected], activation_fn=tf.nn.relu,
                        weights_regularizer=slim.l2_regularizer(0.01)):
        with slim.arg_scope([slim.conv2d], padding="SAME"):
            net = slim.conv2d(x, 4, [3, 3], scope="conv1")
            net = slim.repeat(net, 2, slim.conv2d, 5, [3, 3], scope="conv2")
            net = slim.conv2d(net, 6, 3)
            net = slim.max_pool2d(net, [2, 2], scope="pool1")
            net = slim.stack(net, slim.conv2d, [(4, [1, 1]), (2, [3, 3])], scope="st")
            net = slim.flatten(net)
            net = slim.fully_connected(net, 10, scope="fc")
            net = slim.dropout(net, 0.5, is_training=False)
            out = slim.fully_connected(net, 3, activation_fn=None)
    assert sorted(v.op.name for v in tf.global_variables()) == [
        "Conv/biases", "Conv/weights", "conv1/biases", "conv1/weights",
        "conv2/conv2_1/biases", "conv2/conv2_1/weights", "conv2/conv2_2/biases",
        "conv2/conv2_2/weights", "fc/biases", "fc/weights", "fully_connected/biases",
        "fully_connected/weights", "st/st_1/biases", "st/st_1/weights", "st/st_2/biases",
        "st/st_2/weights"]
    assert len(slim.get_model_variables()) == 16
    assert len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)) == 8
    assert out.shape == [None, 3]
    assert len(slim.get_variables_to_restore(exclude=["fc", "st"])) == 10
    assert [v.op.name for v in slim.get_variables_to_restore(include=["conv1"])] == [
        "conv1/weights", "conv1/biases"]


def test_arg_scope_rules(graph):
    x = tf.placeholder(tf.float32, [None, 4])
    with slim.arg_scope([slim.fully_connected], activation_fn=None,
                        biases_initializer=None) as sc:
        with slim.arg_scope([slim.fully_connected], activation_fn=tf.nn.relu):
            a = slim.fully_connected(x, 2, scope="a")           # inner scope wins
        b = slim.fully_connected(x, 2, scope="b", activation_fn=tf.sigmoid)  # call wins
    with slim.arg_scope(sc):
        c = slim.fully_connected(x, 2, scope="c")
    assert a.op.type == "Relu" and b.op.type == "Sigmoid" and c.op.type == "MatMul"
    assert not [v for v in tf.global_variables() if "biases" in v.name]
    with pytest.raises(ValueError, match="add_arg_scope"):
        with slim.arg_scope([tf.nn.relu], x=1):
            pass
    with pytest.raises(ValueError, match="kwargs must be empty"):
        with slim.arg_scope(sc, activation_fn=None):
            pass

    @slim.add_arg_scope
    def mine(value, scale=1.0):
        return value * scale
    with slim.arg_scope([mine], scale=3.0):
        assert mine(2.0) == 6.0 and mine(2.0, scale=5.0) == 10.0
    assert mine(2.0) == 2.0


def test_batch_norm_names_updates_and_inference(graph):
    x = tf.placeholder(tf.float32, [None, 3])
    y = slim.batch_norm(x, decay=0.5, scale=True, is_training=True, updates_collections=None)
    z = slim.fully_connected(x, 2, normalizer_fn=slim.batch_norm,
                             normalizer_params={"is_training": False}, scope="fc")
    names = sorted(v.op.name for v in tf.global_variables())
    assert names == ["BatchNorm/beta", "BatchNorm/gamma", "BatchNorm/moving_mean",
                     "BatchNorm/moving_variance", "fc/BatchNorm/beta",
                     "fc/BatchNorm/moving_mean", "fc/BatchNorm/moving_variance",
                     "fc/weights"]
    assert not tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    v = np.arange(12, dtype=np.float32).reshape(4, 3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = sess.run(y, {x: v})
        np.testing.assert_allclose(out.mean(0), 0, atol=1e-5)
        mm = sess.run(tf.global_variables("BatchNorm/moving_mean")[0])
        np.testing.assert_allclose(mm, 0.5 * v.mean(0), rtol=1e-6)  # update ran before y
        w = sess.run(tf.global_variables("fc/weights")[0])
        np.testing.assert_allclose(sess.run(z, {x: v}), np.maximum(v @ w / np.sqrt(1.001), 0),
                                   rtol=1e-5)


def test_regularizers_and_initializers(graph):
    w = tf.constant([[1.0, -2.0], [3.0, 0.5]])
    with tf.Session() as sess:
        assert sess.run(contrib_layers.l2_regularizer(0.1)(w)) == pytest.approx(
            0.1 * (1 + 4 + 9 + 0.25) / 2)
        assert sess.run(contrib_layers.l1_regularizer(0.5)(w)) == pytest.approx(0.5 * 6.5)
        assert contrib_layers.l2_regularizer(0.0)(w) is None
        with pytest.raises(ValueError, match="integer"):
            contrib_layers.l2_regularizer(1)
        shape = [200, 300]
        u = sess.run(contrib_layers.xavier_initializer()(shape))
        assert np.abs(u).max() <= np.sqrt(6.0 / 500) + 1e-6
        assert u.std() == pytest.approx(np.sqrt(2.0 / 500), rel=0.05)
        t = sess.run(contrib_layers.variance_scaling_initializer()(shape))
        assert t.std() == pytest.approx(np.sqrt(1.3 * 2.0 / 200) * 0.8796, rel=0.05)
        assert np.abs(t).max() <= 2 * np.sqrt(1.3 * 2.0 / 200) + 1e-6


def test_one_hot_softmax_and_layer_norm(graph):
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(slim.one_hot_encoding([0, 2], 3)),
                                      [[1, 0, 0], [0, 0, 1]])
        s = sess.run(slim.softmax(tf.constant([[1.0, 2.0, 3.0]])))
        np.testing.assert_allclose(s.sum(), 1.0, rtol=1e-6)
    assert contrib_layers.layer_norm is tf.layers.layer_norm


def test_conv2d_transpose_names_shapes_and_values(graph):
    x = tf.placeholder(tf.float32, [None, 5, 5, 3])
    up = slim.conv2d_transpose(x, 4, [3, 3], 2, scope="up")
    valid = contrib_layers.convolution2d_transpose(x, 2, 4, [2, 2], padding="VALID",
                                                   activation_fn=None)
    assert [v.op.name for v in tf.global_variables()] == [
        "up/weights", "up/biases", "Conv2d_transpose/weights", "Conv2d_transpose/biases"]
    assert tf.global_variables()[0].shape.as_list() == [3, 3, 4, 3]  # [kh, kw, out, in]
    assert up.shape.as_list() == [None, 10, 10, 4]
    assert valid.shape.as_list() == [None, 12, 12, 2]  # 5 * 2 + (4 - 2)
    assert len(slim.get_model_variables()) == 4
    w, b = tf.global_variables()[:2]
    ref = tf.nn.relu(tf.nn.conv2d_transpose(x, w, tf.stack([tf.shape(x)[0], 10, 10, 4]),
                                            [1, 2, 2, 1], "SAME") + b)
    feed = {x: np.random.default_rng(0).normal(size=(2, 5, 5, 3)).astype(np.float32)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(b.assign(np.array([0.1, -0.2, 0.3, 0.0], np.float32)))
        got, want, v = sess.run([up, ref, valid], feed)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert v.shape == (2, 12, 12, 2)
    with pytest.raises(ValueError, match="4-D"):
        slim.conv2d_transpose(tf.placeholder(tf.float32, [None, 5, 3]), 4, 3)


def test_apply_regularization_sums_penalties_into_the_collection(graph):
    w1 = tf.Variable([[1.0, -2.0]], name="a/weights")
    w2 = tf.Variable([3.0], name="b/weights")
    total = contrib_layers.apply_regularization(contrib_layers.l1_regularizer(0.5), [w1, w2])
    assert tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)[-1] is total
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(total) == pytest.approx(0.5 * 6.0)
    with pytest.raises(ValueError, match="no weights to regularize"):
        contrib_layers.apply_regularization(contrib_layers.l2_regularizer(0.1))
    tf.add_to_collection(tf.GraphKeys.WEIGHTS, w2)
    from_collection = contrib_layers.apply_regularization(contrib_layers.l2_regularizer(1.0))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(from_collection) == pytest.approx(4.5)  # sum(w**2) / 2
