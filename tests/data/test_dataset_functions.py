"""Functions given to map/filter/flat_map get Tensors, are traced once, may use engine
ops and py_func/numpy_function (issue 3, acceptance 2)."""
import numpy as np
import pytest

import estimator_npu as tf
from dataset_helpers import collect, fresh_graph  # noqa: F401 (fresh_graph: autouse)

Dataset = tf.data.Dataset


def test_map_receives_tensors_and_is_traced_once():
    seen = []

    def fn(image, label):
        seen.append((type(image), image.shape, image.dtype, type(label), label.dtype))
        return tf.cast(image, tf.float32) / 255.0, tf.equal(label, 3)
    images = np.arange(24, dtype=np.uint8).reshape(4, 6)
    labels = np.array([3, 1, 3, 0], np.int64)
    ds = Dataset.from_tensor_slices((images, labels)).map(fn)
    assert seen == [(tf.Tensor, tf.TensorShape([6]), tf.uint8, tf.Tensor, tf.int64)]
    assert ds.output_types == (tf.float32, tf.bool)
    assert ds.output_shapes == (tf.TensorShape([6]), tf.TensorShape([]))
    got = collect(ds)
    assert len(seen) == 1  # not re-traced per element
    for i, (x, is3) in enumerate(got):
        assert x.dtype == np.float32
        np.testing.assert_allclose(x, images[i].astype(np.float32) / np.float32(255.0),
                                   rtol=1e-6)
        assert bool(is3) == (labels[i] == 3)


def test_map_dict_argument_and_returned_structures():
    ds = Dataset.from_tensor_slices({"x": np.array([1.0, 2.0], np.float32),
                                     "y": np.array([10, 20], np.int32)})
    out = ds.map(lambda d: {"sum": d["x"] + tf.cast(d["y"], tf.float32), "y": d["y"]})
    assert out.output_types == {"sum": tf.float32, "y": tf.int32}
    got = collect(out)
    assert [(float(g["sum"]), int(g["y"])) for g in got] == [(11.0, 10), (22.0, 20)]
    listed = Dataset.range(2).map(lambda v: [v, v * 2])  # a list becomes a tuple
    assert listed.output_types == (tf.int64, tf.int64)
    assert [(int(a), int(b)) for a, b in collect(listed)] == [(0, 0), (1, 2)]
    consts = Dataset.range(2).map(lambda v: (v, np.float32(0.5)))
    assert [float(b) for _, b in collect(consts)] == [0.5, 0.5]


def test_map_after_batch_is_vectorized_over_the_batch():
    calls = []

    def np_double(batch):
        calls.append(batch.shape)
        return batch * 2

    x = np.arange(10, dtype=np.float32)
    ds = Dataset.from_tensor_slices(x).batch(4).map(
        lambda b: tf.numpy_function(np_double, [b], tf.float32))
    got = collect(ds)
    assert calls == [(4,), (4,), (2,)]
    np.testing.assert_array_equal(np.concatenate(got), x * 2)


def test_py_func_inside_map_and_filter():
    def np_norm(v):
        return np.float32(np.linalg.norm(v))
    x = np.array([[3, 4], [6, 8], [0, 1]], np.float32)
    ds = Dataset.from_tensor_slices(x).map(lambda v: tf.py_func(np_norm, [v], tf.float32))
    assert [float(v) for v in collect(ds)] == [5.0, 10.0, 1.0]
    kept = Dataset.range(6).filter(
        lambda v: tf.py_func(lambda a: np.bool_(a % 2 == 0), [v], tf.bool, stateful=False))
    assert [int(v) for v in collect(kept)] == [0, 2, 4]


def test_map_function_errors_name_the_failing_op():
    def boom(v):
        raise RuntimeError("bad element")
    ds = Dataset.range(3).map(lambda v: tf.py_func(boom, [v], tf.int64, name="Boom"))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Boom.*bad element"):
        collect(ds)


def test_filter_predicate_must_be_a_scalar_bool():
    with pytest.raises(TypeError, match="scalar boolean"):
        Dataset.range(3).filter(lambda v: v)
    with pytest.raises(TypeError, match="scalar boolean"):
        Dataset.from_tensor_slices(np.ones((3, 2), bool)).filter(lambda v: v)


def test_functions_capture_constants_but_no_other_tensors_of_the_user_graph(fresh_graph):
    outer = tf.constant(2, tf.int64)
    assert collect(Dataset.range(3).map(lambda v: v * outer)) == [0, 2, 4]   # as TF
    fed = tf.placeholder(tf.int64, [])
    with pytest.raises(ValueError, match="another graph"):
        Dataset.range(3).map(lambda v: v * fed)


def test_map_uses_random_ops_and_reshape():
    ds = Dataset.from_tensor_slices(np.zeros((3, 4), np.float32)).map(
        lambda v: tf.reshape(v + tf.random_uniform([4], seed=1), [2, 2]))
    assert ds.output_shapes == [2, 2]
    got = collect(ds)
    assert all(g.shape == (2, 2) and (g >= 0).all() and (g < 1).all() for g in got)
    assert not np.array_equal(got[0], got[1])  # the stateful op advances per element


def test_non_callable_function_is_rejected():
    with pytest.raises(TypeError, match="callable"):
        Dataset.range(3).map(3)
