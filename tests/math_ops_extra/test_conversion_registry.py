"""tf.register_tensor_conversion_function: a registered class converts wherever a tensor
is expected, lowest priority first, NotImplemented falls through, bad registrations are
refused as TF refuses them (tensorflow/benchmarks registers one at import)."""
import numpy as np
import pytest

import estimator_npu as tf


class Box:
    def __init__(self, value):
        self.value = value


class SubBox(Box):
    pass


def _to_tensor(box, dtype=None, name=None, as_ref=False):
    return tf.constant(box.value, dtype=tf.float32)


tf.register_tensor_conversion_function(Box, _to_tensor)


def test_registered_class_converts_in_ops_and_convert_to_tensor():
    with tf.Graph().as_default():
        t = tf.convert_to_tensor(Box([1.0, 2.0]))
        s = tf.add(SubBox([3.0, 4.0]), 1.0)       # subclasses use the base's function
        m = tf.reduce_sum(tf.stack([Box(1.0), Box(5.0)]))
        with tf.Session() as sess:
            got = sess.run([t, s, m])
    np.testing.assert_array_equal(got[0], [1.0, 2.0])
    np.testing.assert_array_equal(got[1], [4.0, 5.0])
    assert got[2] == 6.0


def test_priority_and_not_implemented():
    class Holder:
        def __init__(self, v):
            self.v = v

    def low(h, dtype=None, name=None, as_ref=False):
        return NotImplemented if h.v < 0 else tf.constant(10.0)

    def high(h, dtype=None, name=None, as_ref=False):
        return tf.constant(float(h.v))

    tf.register_tensor_conversion_function(Holder, high, priority=200)
    tf.register_tensor_conversion_function(Holder, low, priority=10)
    with tf.Graph().as_default():
        a, b = tf.convert_to_tensor(Holder(3)), tf.convert_to_tensor(Holder(-2))
        with tf.Session() as sess:
            assert sess.run([a, b]) == [10.0, -2.0]   # low first; -2 falls through to high


def test_bad_registrations():
    with pytest.raises(TypeError, match="cannot register conversions for Python numeric"):
        tf.register_tensor_conversion_function(float, _to_tensor)
    with pytest.raises(TypeError, match="NumPy scalars and arrays"):
        tf.register_tensor_conversion_function(np.ndarray, _to_tensor)
    with pytest.raises(TypeError, match="base_type must be a class"):
        tf.register_tensor_conversion_function("Box", _to_tensor)
    with pytest.raises(TypeError, match="conversion_func must be callable"):
        tf.register_tensor_conversion_function(Box, None)
    with pytest.raises(TypeError, match="built-in class object"):
        tf.register_tensor_conversion_function(object, _to_tensor)


def test_function_returning_a_non_tensor():
    class Odd:
        pass

    tf.register_tensor_conversion_function(Odd, lambda v, dtype=None, name=None,
                                           as_ref=False: 3.0)
    with tf.Graph().as_default():
        with pytest.raises(RuntimeError, match="for type Odd returned non-Tensor: 3.0"):
            tf.convert_to_tensor(Odd())


def test_internal_module_path(aliases):
    from tensorflow.python.framework import tensor_conversion_registry
    assert tensor_conversion_registry.register_tensor_conversion_function is \
        tf.register_tensor_conversion_function
