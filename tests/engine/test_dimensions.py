"""``TensorShape.dims`` holds TF1 ``Dimension`` objects (``shape.dims[-1].value``), while
``values``, ``as_list()``, indexing and iteration give ints / None; ``tensor_shape``'s
``Dimension`` / ``dimension_value`` / ``as_dimension``; tf_slim's fused batch_norm, which
reads ``inputs.get_shape().dims[axis].value``."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import compat
from estimator_npu.engine import shape as tensor_shape
from estimator_npu.engine.shape import Dimension, TensorShape


def test_dims_are_dimension_objects_with_value():
    s = TensorShape([None, 28, 3])
    dims = s.dims
    assert isinstance(dims, list) and all(isinstance(d, Dimension) for d in dims)
    assert [d.value for d in dims] == [None, 28, 3]
    assert dims[-1].value == 3 and dims[-1] == 3 and int(dims[1]) * 2 == 56
    assert repr(dims[0]) == "Dimension(None)" and str(dims[0]) == "?"
    assert (dims[0] == 5) is None, "TF1: comparing an unknown Dimension is unknown"
    assert dims[0].is_compatible_with(7) and dims[2].is_compatible_with(Dimension(None))
    assert not dims[2].is_compatible_with(4)
    assert dims[0].merge_with(4).value == 4 and dims[1].merge_with(None).value == 28
    with pytest.raises(ValueError, match="not compatible"):
        dims[2].merge_with(4)
    assert (dims[0] + 1).value is None and dims[1] + 1 == 29
    assert TensorShape(None).dims is None
    assert TensorShape([]).dims == []


def test_values_and_as_list_stay_ints_indexing_and_iteration_give_dimensions():
    s = TensorShape([None, 28, 3])
    assert s.values == (None, 28, 3)
    assert s.as_list() == [None, 28, 3] and all(type(d) in (int, type(None))
                                                 for d in s.as_list())
    # as TF1: shape[i] and iteration give Dimensions (Dimension(None) for an unknown dim)
    assert [d.value for d in s] == [None, 28, 3] and list(s)[1] == 28
    assert repr(list(s)) == "[Dimension(None), 28, 3]"
    assert s[0] is not None and s[0].value is None
    assert repr(s[0]) == "Dimension(None)" and not s[0] and s[1].value == 28
    assert TensorShape(None)[3].value is None and TensorShape(None)[1:] == TensorShape(None)
    assert TensorShape(s.dims) == s, "a shape built from Dimensions is the same shape"
    assert TensorShape([Dimension(None), Dimension(4)]).values == (None, 4)
    x = tf.placeholder(tf.float32, [None, 5])
    assert x.shape.dims[-1].value == 5 and x.get_shape().dims[0].value is None
    y = tf.matmul(x, tf.zeros([5, 2]))
    assert y.shape.as_list() == [None, 2]


def test_tensor_shape_module_helpers():
    assert tensor_shape.dimension_value(Dimension(3)) == 3
    assert tensor_shape.dimension_value(Dimension(None)) is None
    assert tensor_shape.dimension_value(7) == 7 and tensor_shape.dimension_value(None) is None
    assert tensor_shape.as_dimension(4) is not None and tensor_shape.as_dimension(4).value == 4
    assert tensor_shape.dimension_at_index([2, None], 1).value is None
    assert tensor_shape.dimension_at_index(None, 3).value is None
    assert Dimension(Dimension(5)) == 5
    with pytest.raises(ValueError, match=">= 0"):
        Dimension(-1)
    with pytest.raises(TypeError, match="integer or None"):
        Dimension(2.5)


def test_tf_slim_fused_batch_norm_on_4d_input():
    compat.install()  # the real tf_slim package runs on top of the aliases
    try:
        try:
            import tf_slim as slim
        except ModuleNotFoundError as e:
            if e.name == "tf_slim":
                pytest.skip("tf_slim is not installed (pip install tf-slim)")
            raise
        import tensorflow.compat.v1 as tf1
        rng = np.random.RandomState(0)
        xs = (rng.randn(4, 5, 5, 3) * 2 + 1).astype(np.float32)
        with tf1.Graph().as_default():
            x = tf1.placeholder(tf1.float32, [None, 5, 5, 3])
            y = slim.batch_norm(x, fused=True, is_training=True, decay=0.9, epsilon=1e-3,
                                scale=True, updates_collections=None, scope="bn")
            names = sorted(v.op.name for v in tf1.global_variables())
            assert names == ["bn/beta", "bn/gamma", "bn/moving_mean", "bn/moving_variance"]
            mm = [v for v in tf1.global_variables() if v.op.name == "bn/moving_mean"][0]
            with tf1.Session() as sess:
                sess.run(tf1.global_variables_initializer())
                out = sess.run(y, {x: xs})
                mean_after = sess.run(mm)
        m = xs.mean((0, 1, 2))
        v = xs.var((0, 1, 2))
        np.testing.assert_allclose(out, (xs - m) / np.sqrt(v + 1e-3), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(mean_after, 0.1 * m, rtol=1e-5)
    finally:
        compat.uninstall()


def test_resize_images_with_a_size_computed_in_the_graph():
    """ShuffleNetV2's eval pipeline resizes to ``[tf.cast(h * r, tf.int32), ...]``: the
    size is read when the op runs; values and gradients equal the static-size resize."""
    rng = np.random.default_rng(3)
    xs = rng.standard_normal((5, 7, 2)).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, None, 2])
    h = tf.cast(tf.cast(tf.shape(x)[0], tf.float32) * 1.6, tf.int32)
    w = tf.cast(tf.cast(tf.shape(x)[1], tf.float32) * 0.5, tf.int32)
    dyn = tf.image.resize_images(x, [h, w])
    static = tf.image.resize_images(x, [8, 3])
    near = tf.image.resize_images(x, [h, w], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR)
    near_static = tf.image.resize_images(x, [8, 3],
                                         method=tf.image.ResizeMethod.NEAREST_NEIGHBOR)
    assert dyn.shape.as_list() == [None, None, 2]
    wts = tf.constant(rng.standard_normal((8, 3, 2)).astype(np.float32))
    g_dyn, = tf.gradients(tf.reduce_sum(dyn * wts), [x])
    g_static, = tf.gradients(tf.reduce_sum(static * wts), [x])
    with tf.Session() as sess:
        a, b, c, d, ga, gb = sess.run([dyn, static, near, near_static, g_dyn, g_static],
                                      {x: xs})
    assert a.shape == (8, 3, 2)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(c, d)
    np.testing.assert_allclose(ga, gb, rtol=1e-6)
    with pytest.raises(ValueError, match="size must be 2 ints"):
        tf.image.resize_images(x, tf.placeholder(tf.float32, [2]))


def test_top_level_tf1_names():
    assert tf.Dimension(None).value is None and tf.Dimension(6) == 6
    assert tf.dimension_value(tf.TensorShape([None, 4]).dims[1]) == 4
    assert tf.dimension_at_index(tf.TensorShape([None, 4]), 0).value is None
