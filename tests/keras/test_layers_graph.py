"""tf.keras layers called on tensors in TF1 graph code: names, shapes, values, reuse."""
import numpy as np
import pytest

import estimator_npu as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.keras.backend.clear_session()
    yield
    tf.keras.backend.clear_session()


def test_names_follow_keras_and_name_scopes():
    x = tf.placeholder(tf.float32, [None, 2])
    with tf.variable_scope("foo"):
        tf.keras.layers.Dense(3)(x)
    with tf.name_scope("bar"):
        d = tf.keras.layers.Dense(3)
        d(x)
    tf.keras.layers.Dense(3, name="fc")(x)
    tf.keras.layers.Dense(3, name="fc")(x)
    assert d.name == "dense_1"
    assert [v.op.name for v in tf.global_variables()] == [
        "foo/dense/kernel", "foo/dense/bias", "bar/dense_1/kernel", "bar/dense_1/bias",
        "fc/kernel", "fc/bias", "fc_1/kernel", "fc_1/bias"]
    conv = tf.keras.layers.Conv2D(2, 3)
    assert conv.name == "conv2d"
    assert tf.keras.layers.LeakyReLU().name == "leaky_re_lu"


def test_layer_reuses_its_weights_and_computes_dense():
    x = tf.placeholder(tf.float32, [None, 2])
    d = tf.keras.layers.Dense(2, activation="relu", kernel_initializer="ones",
                              bias_initializer=tf.keras.initializers.Constant(-1.0))
    a, b = d(x), d(x * 2.0)
    assert len(d.weights) == 2 and d.kernel.op.name == "dense/kernel"
    sess = tf.keras.backend.get_session()
    va, vb = sess.run([a, b], {x: [[1.0, 2.0]]})
    np.testing.assert_allclose(va, [[2.0, 2.0]])
    np.testing.assert_allclose(vb, [[5.0, 5.0]])


def test_dropout_follows_the_learning_phase():
    x = tf.ones([100, 100])
    y = tf.keras.layers.Dropout(0.5)(x)
    sess = tf.keras.backend.get_session()
    np.testing.assert_array_equal(sess.run(y), np.ones([100, 100]))
    phase = tf.keras.backend.learning_phase()
    trained = sess.run(y, {phase: True})
    assert set(np.unique(trained)) <= {0.0, 2.0} and 0.3 < (trained == 0).mean() < 0.7
    z = tf.keras.layers.Dropout(0.5)(x, training=True)
    assert (sess.run(z) == 0).any()


def test_conv_pool_and_shape_layers():
    x = tf.placeholder(tf.float32, [None, 8, 8, 3])
    L = tf.keras.layers
    y = L.Conv2D(4, 3, padding="same", activation="relu")(x)
    assert y.shape.as_list() == [None, 8, 8, 4]
    assert L.MaxPooling2D()(y).shape.as_list() == [None, 4, 4, 4]
    assert L.AveragePooling2D(2, 1)(y).shape.as_list() == [None, 7, 7, 4]
    assert L.GlobalAveragePooling2D()(y).shape.as_list() == [None, 4]
    assert L.Conv2DTranspose(2, 3, strides=2, padding="same")(y).shape.as_list() == \
        [None, 16, 16, 2]
    assert L.ZeroPadding2D(1)(x).shape.as_list() == [None, 10, 10, 3]
    assert L.UpSampling2D()(x).shape.as_list() == [None, 16, 16, 3]
    assert L.Flatten()(y).shape.as_list() == [None, 256]
    assert L.Reshape((64, 3))(x).shape.as_list() == [None, 64, 3]
    assert L.Permute((3, 1, 2))(x).shape.as_list() == [None, 3, 8, 8]
    assert L.SeparableConv2D(5, 3)(x).shape.as_list() == [None, 6, 6, 5]
    assert L.DepthwiseConv2D(3)(x).shape.as_list() == [None, 6, 6, 3]
    seq = tf.placeholder(tf.float32, [None, 10, 3])
    assert L.Conv1D(4, 3)(seq).shape.as_list() == [None, 8, 4]
    assert L.MaxPooling1D()(seq).shape.as_list() == [None, 5, 3]
    assert L.GlobalMaxPooling1D()(seq).shape.as_list() == [None, 3]
    names = sorted(v.op.name for v in tf.global_variables())
    assert "conv2d/kernel" in names and "conv2d_transpose/kernel" in names
    assert "separable_conv2d/depthwise_kernel" in names and "conv1d/kernel" in names
    sess = tf.keras.backend.get_session()
    xv = np.random.RandomState(0).rand(2, 8, 8, 3).astype(np.float32)
    up = sess.run(L.UpSampling2D()(x), {x: xv})
    np.testing.assert_array_equal(up[:, ::2, ::2], xv)
    np.testing.assert_array_equal(up[:, 1::2, 1::2], xv)


def test_merge_embedding_and_activations():
    L = tf.keras.layers
    a, b = tf.constant([[1.0, -2.0]]), tf.constant([[3.0, 4.0]])
    sess = tf.keras.backend.get_session()
    got = sess.run([L.add([a, b]), L.Concatenate()([a, b]), L.Multiply()([a, b]),
                    L.concatenate([a, b], axis=0), L.ReLU()(a), L.LeakyReLU(0.1)(a),
                    L.Softmax()(b), L.Activation("tanh")(a), L.Lambda(lambda t: t * 3)(a)])
    np.testing.assert_allclose(got[0], [[4, 2]])
    np.testing.assert_allclose(got[1], [[1, -2, 3, 4]])
    np.testing.assert_allclose(got[2], [[3, -8]])
    assert got[3].shape == (2, 2)
    np.testing.assert_allclose(got[4], [[1, 0]])
    np.testing.assert_allclose(got[5], [[1, -0.2]], rtol=1e-6)
    np.testing.assert_allclose(got[6], [[np.exp(-1) / (1 + np.exp(-1)),
                                         1 / (1 + np.exp(-1))]], rtol=1e-6)
    np.testing.assert_allclose(got[8], [[3, -6]])
    ids = tf.constant([[0, 2], [1, 1]])
    emb = L.Embedding(3, 2, weights=[np.arange(6).reshape(3, 2)])
    out = emb(ids)
    assert emb.embeddings.op.name == "embedding/embeddings"
    np.testing.assert_allclose(tf.keras.backend.get_session().run(out),
                               [[[0, 1], [4, 5]], [[2, 3], [2, 3]]])


def test_regularizers_go_to_layer_losses_not_the_collection():
    x = tf.ones([2, 3])
    d = tf.keras.layers.Dense(2, kernel_initializer="ones",
                              kernel_regularizer=tf.keras.regularizers.l2(0.5))
    d(x)
    assert tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES) == []
    assert len(d.losses) == 1
    assert tf.keras.backend.get_session().run(d.losses[0]) == pytest.approx(3.0)


def test_keras_layers_in_an_estimator_model_fn(tmp_path):
    def model_fn(features, labels, mode):
        training = mode == tf.estimator.ModeKeys.TRAIN
        h = tf.keras.layers.Dense(8, activation="relu")(features["x"])
        bn = tf.keras.layers.BatchNormalization()
        h = bn(h, training=training)
        h = tf.keras.layers.Dropout(0.2)(h, training=training)
        logits = tf.keras.layers.Dense(2)(h)
        loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
        if mode == tf.estimator.ModeKeys.EVAL:
            return tf.estimator.EstimatorSpec(mode, loss=loss)
        with tf.control_dependencies(bn.updates):
            train_op = tf.train.AdamOptimizer(0.01).minimize(
                loss, tf.train.get_or_create_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    rng = np.random.RandomState(0)
    x = rng.rand(64, 4).astype(np.float32)
    y = (x.sum(1) > 2).astype(np.int32)
    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    fn = tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=16, num_epochs=None,
                                            shuffle=True)
    est.train(fn, steps=20)
    names = est.get_variable_names()
    assert "dense/kernel" in names and "batch_normalization/moving_mean" in names
    assert not np.allclose(est.get_variable_value("batch_normalization/moving_mean"), 0)
    ev = est.evaluate(tf.estimator.inputs.numpy_input_fn({"x": x}, y, shuffle=False))
    assert ev["global_step"] == 20 and np.isfinite(ev["loss"])


def test_user_layer_subclass_and_constraints():
    class Scale(tf.keras.layers.Layer):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight(name="w", shape=(input_shape[-1], self.units),
                                     initializer="ones", trainable=True,
                                     constraint=tf.keras.constraints.NonNeg())
            super().build(input_shape)

        def call(self, x):
            return tf.matmul(x, self.w)

        def get_config(self):
            return dict(super().get_config(), units=self.units)

    layer = Scale(2)
    assert layer.name == "scale" and layer.get_config()["units"] == 2
    inp = tf.keras.Input((3,))
    model = tf.keras.Model(inp, layer(inp))
    assert [v.op.name for v in model.trainable_weights] == ["scale/w"]
    model.compile(tf.keras.optimizers.SGD(1.0), "mse")
    x = np.ones((4, 3), np.float32)
    model.fit(x, np.full((4, 2), -5.0, np.float32), epochs=1, verbose=0)
    w = model.get_weights()[0]
    assert (w >= 0).all() and (w == 0).all()    # one big step down, clipped at zero
    f = tf.keras.backend.function([inp], [model.output])
    np.testing.assert_array_equal(f([x])[0], np.zeros((4, 2)))


def test_spatial_dropout2d_drops_whole_feature_maps():
    import numpy as np
    import estimator_npu as tf
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 4, 4, 6])
    layer = tf.keras.layers.SpatialDropout2D(0.5)
    y_train, y_test = layer(x, training=True), layer(x, training=False)
    ones = np.ones((3, 4, 4, 6), np.float32)
    with tf.Session() as sess:
        got, same = sess.run([y_train, y_test], {x: ones})
    np.testing.assert_array_equal(same, ones)
    per_map = got.reshape(3, 16, 6)
    assert set(np.unique(got)) <= {0.0, 2.0}
    assert (per_map == per_map[:, :1, :]).all()  # one draw per example and channel
    assert layer.get_config()["noise_shape"] is None  # the call did not overwrite it
