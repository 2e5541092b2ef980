"""``py_func`` / ``numpy_function`` host-call ops."""
import numpy as np
import pytest

import estimator_npu as tf
from dataset_helpers import fresh_graph  # noqa: F401 (fresh_graph: autouse)


def test_single_and_multiple_outputs():
    x = tf.placeholder(tf.float32, [None])
    y = tf.py_func(lambda a: a * 2, [x], tf.float32)
    assert isinstance(y, tf.Tensor) and y.dtype == tf.float32 and y.shape == tf.TensorShape(None)
    assert y.op.type == "PyFunc"
    lo, hi = tf.numpy_function(lambda a: (a.min(), a.max()), [x], [tf.float32, tf.float32])
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1, 2]}), [2, 4])
        assert sess.run((lo, hi), {x: [3, -1, 2]}) == (-1.0, 3.0)
        r = sess.run(y + 1.0, {x: [1.0]})  # downstream engine ops consume the result
        np.testing.assert_array_equal(r, [3.0])


def test_results_are_converted_to_tout_and_kind_mismatch_fails():
    x = tf.constant([1, 2], tf.int32)
    as_float = tf.py_func(lambda a: a.astype(np.float64) / 2, [x], tf.float32)
    bad = tf.py_func(lambda a: a / 2, [x], tf.int32, name="Halve")
    count = tf.py_func(lambda a: len(a), [x], tf.int64)
    with tf.Session() as sess:
        v = sess.run(as_float)
        assert v.dtype == np.float32 and v.tolist() == [0.5, 1.0]
        assert sess.run(count) == 2 and sess.run(count).dtype == np.int64
        with pytest.raises(tf.errors.InvalidArgumentError, match="0-th value returned by "
                           "Halve is float64, but expects int32"):
            sess.run(bad)


def test_wrong_number_of_results_and_exceptions():
    x = tf.constant(1.0)
    two = tf.py_func(lambda a: (a, a, a), [x], [tf.float32, tf.float32])
    stop = tf.py_func(lambda a: next(iter(())), [x], tf.float32)
    err = tf.py_func(lambda a: 1 / 0, [x], tf.float32, name="Div")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="returned 3 values, but "
                           "Tout has 2"):
            sess.run(two)
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(stop)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Div.*ZeroDivisionError"):
            sess.run(err)


def test_empty_tout_returns_the_op_and_runs_for_side_effects():
    seen = []
    op = tf.py_func(lambda a: seen.append(float(a)), [tf.constant(4.0)], [])
    assert isinstance(op, tf.Operation)
    with tf.Session() as sess:
        assert sess.run(op) is None
    assert seen == [4.0]


def test_stateless_variant_no_gradient_and_validation():
    x = tf.placeholder(tf.float32, [2])
    y = tf.py_func(np.square, [x], tf.float32, stateful=False)
    assert y.op.type == "PyFuncStateless"
    with pytest.raises(LookupError, match="No gradient defined for operation 'PyFunc'"):
        tf.gradients(tf.reduce_sum(y), [x])
    with pytest.raises(TypeError, match="func must be callable"):
        tf.py_func(3, [x], tf.float32)


def test_aliasing_result_is_copied_on_fetch():
    state = np.zeros(2, np.float32)
    y = tf.py_func(lambda: state, [], tf.float32)
    with tf.Session() as sess:
        v = sess.run(y)
        v += 1
    assert state.tolist() == [0.0, 0.0]
