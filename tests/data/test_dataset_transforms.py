"""Dataset transformations: element order, shapes, structures, seeds (issue 3, acc. 1)."""
import numpy as np
import pytest

import estimator_npu as tf
from dataset_helpers import collect, fresh_graph  # noqa: F401 (fresh_graph: autouse)

Dataset = tf.data.Dataset


def repeated(n):
    """``[n] * n`` as a tensor of unknown length (through numpy_function)."""
    return tf.numpy_function(lambda v: np.full(int(v), v), [n], tf.int64)


def scalars(elems):
    return [int(e) for e in elems]


def test_from_tensor_slices_order_dtype_and_static_shape():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    ds = Dataset.from_tensor_slices(x)
    assert ds.output_types == tf.float32
    assert ds.output_shapes == [2]
    got = collect(ds)
    assert len(got) == 6
    for i, row in enumerate(got):
        np.testing.assert_array_equal(row, x[i])
        assert row.dtype == np.float32


def test_python_lists_are_tensors_not_structure_and_use_tf_default_dtypes():
    ds = Dataset.from_tensor_slices([1, 2, 3])
    assert ds.output_types == tf.int32 and ds.output_shapes == []
    assert scalars(collect(ds)) == [1, 2, 3]
    ds = Dataset.from_tensor_slices([[1.5, 2.0], [3.0, 4.0]])
    assert ds.output_types == tf.float32 and ds.output_shapes == [2]
    ds = Dataset.from_tensor_slices(np.arange(3))  # numpy keeps its dtype
    assert ds.output_types == tf.int64


def test_from_tensors_single_element():
    x = np.ones((3, 2), np.float32)
    ds = Dataset.from_tensors((x, np.int64(7)))
    assert ds.output_shapes == (tf.TensorShape([3, 2]), tf.TensorShape([]))
    (got,) = collect(ds)
    np.testing.assert_array_equal(got[0], x)
    assert got[1] == 7


def test_nested_dict_and_tuple_structures():
    feats = {"b": np.arange(4, dtype=np.int32), "a": np.ones((4, 3), np.float32)}
    labels = np.array([0, 1, 0, 1], np.int64)
    ds = Dataset.from_tensor_slices((feats, labels)).batch(3)
    assert ds.output_types == ({"a": tf.float32, "b": tf.int32}, tf.int64)
    assert ds.output_shapes == ({"a": tf.TensorShape([None, 3]), "b": tf.TensorShape([None])},
                                tf.TensorShape([None]))
    got = collect(ds)
    assert [len(g[1]) for g in got] == [3, 1]
    f0, l0 = got[0]
    assert set(f0) == {"a", "b"}
    np.testing.assert_array_equal(f0["b"], [0, 1, 2])
    np.testing.assert_array_equal(f0["a"], np.ones((3, 3)))
    np.testing.assert_array_equal(l0, [0, 1, 0])
    np.testing.assert_array_equal(got[1][0]["b"], [3])


def test_batch_partial_last_batch_and_drop_remainder():
    ds = Dataset.range(10)
    got = collect(ds.batch(4))
    assert [g.tolist() for g in got] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert ds.batch(4).output_shapes == [None]
    dropped = ds.batch(4, drop_remainder=True)
    assert dropped.output_shapes == [4]
    assert [g.tolist() for g in collect(dropped)] == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_batch_generic_path_matches_fast_path_and_rejects_ragged():
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    fast = collect(Dataset.from_tensor_slices(x).batch(3))
    generic = collect(Dataset.from_tensor_slices(x).map(lambda v: v).batch(3))
    assert len(fast) == len(generic) == 4
    for a, b in zip(fast, generic):
        np.testing.assert_array_equal(a, b)

    def gen():
        yield np.zeros(2, np.float32)
        yield np.zeros(3, np.float32)
    ragged = Dataset.from_generator(gen, tf.float32, [None]).batch(2)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"different shapes in component "
                       r"0.*\[2\].*element 1.*\[3\]"):
        collect(ragged)


def test_range_forms():
    assert scalars(collect(Dataset.range(3))) == [0, 1, 2]
    assert scalars(collect(Dataset.range(2, 5))) == [2, 3, 4]
    assert scalars(collect(Dataset.range(10, 0, -3))) == [10, 7, 4, 1]
    assert Dataset.range(3).output_types == tf.int64


def test_shuffle_seeded_is_a_permutation_reproducible_and_reshuffled_each_epoch():
    def epochs(seed, reshuffle=None):
        ds = Dataset.range(50).shuffle(50, seed=seed, reshuffle_each_iteration=reshuffle)
        flat = scalars(collect(ds.repeat(3)))
        return [flat[i * 50:(i + 1) * 50] for i in range(3)]
    a, b = epochs(7), epochs(7)
    assert a == b  # same seed, same sequence of orders
    for e in a:
        assert sorted(e) == list(range(50))
    assert a[0] != a[1] and a[1] != a[2] and a[0] != list(range(50))
    assert epochs(8) != a
    fixed = epochs(7, reshuffle=False)
    assert fixed[0] == fixed[1] == fixed[2]


def test_shuffle_reinitialized_iterator_restarts_the_sequence():
    ds = Dataset.range(20).shuffle(20, seed=3).repeat(2)
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as sess:
        runs = []
        for _ in range(2):
            sess.run(it.initializer)
            runs.append([int(sess.run(nxt)) for _ in range(40)])
    assert runs[0] == runs[1]
    assert runs[0][:20] != runs[0][20:]


def test_shuffle_small_buffer_is_local_and_graph_seed_makes_it_reproducible():
    def run():
        with tf.Graph().as_default():
            tf.set_random_seed(11)
            return scalars(collect(Dataset.range(200).shuffle(10)))
    a = run()
    assert a == run()
    assert sorted(a) == list(range(200))
    # With a buffer of 10, output t can only be one of the first t + 10 inputs.
    assert all(v < t + 10 for t, v in enumerate(a))
    assert a != list(range(200))


def test_shuffle_generic_path_over_mapped_elements():
    ds = Dataset.range(30).map(lambda v: v * 2).shuffle(8, seed=1)
    a = scalars(collect(ds))
    assert sorted(a) == list(range(0, 60, 2))
    assert a == scalars(collect(ds))
    assert all(v // 2 < t + 8 for t, v in enumerate(a))


def test_repeat_take_skip():
    ds = Dataset.range(4)
    assert scalars(collect(ds.repeat(2))) == [0, 1, 2, 3] * 2
    assert scalars(collect(ds.repeat().take(10))) == [0, 1, 2, 3] * 2 + [0, 1]
    assert scalars(collect(ds.take(2))) == [0, 1]
    assert scalars(collect(ds.take(-1))) == [0, 1, 2, 3]
    assert scalars(collect(ds.skip(3))) == [3]
    assert scalars(collect(ds.skip(-1))) == []
    assert scalars(collect(ds.repeat(0))) == []
    # the same through the generic (per-element) path
    g = ds.map(lambda v: v + 0)
    assert scalars(collect(g.repeat(2).skip(3).take(4))) == [3, 0, 1, 2]
    assert scalars(collect(g.repeat().take(6))) == [0, 1, 2, 3, 0, 1]


def test_repeat_of_empty_dataset_ends():
    assert collect(Dataset.range(0).repeat()) == []
    assert collect(Dataset.range(5).filter(lambda v: v > 10).repeat()) == []


def test_shard():
    ds = Dataset.range(10)
    assert scalars(collect(ds.shard(3, 0))) == [0, 3, 6, 9]
    assert scalars(collect(ds.shard(3, 2))) == [2, 5, 8]
    assert scalars(collect(ds.map(lambda v: v).shard(4, 1))) == [1, 5, 9]
    # shard after repeat counts positions across epochs
    assert scalars(collect(Dataset.range(3).repeat(2).shard(2, 1))) == [1, 0, 2]


def test_zip_nested_and_shortest():
    a = Dataset.range(5)
    b = Dataset.from_tensor_slices(np.arange(3, dtype=np.float32) * 10)
    z = Dataset.zip((a, {"y": b, "x": a}))
    assert z.output_types == (tf.int64, {"x": tf.int64, "y": tf.float32})
    got = collect(z)
    assert len(got) == 3
    assert [(int(i), int(d["x"]), float(d["y"])) for i, d in got] == [
        (0, 0, 0.0), (1, 1, 10.0), (2, 2, 20.0)]


def test_filter_and_flat_map():
    ds = Dataset.range(10).filter(lambda v: tf.equal(v % 3, 0))
    assert scalars(collect(ds)) == [0, 3, 6, 9]
    fm = Dataset.range(1, 4).flat_map(
        lambda n: Dataset.from_tensor_slices(repeated(n)))
    assert scalars(collect(fm)) == [1, 2, 2, 3, 3, 3]
    rows = Dataset.from_tensor_slices(np.arange(6).reshape(3, 2)).flat_map(
        lambda r: Dataset.from_tensor_slices(r))
    assert scalars(collect(rows)) == [0, 1, 2, 3, 4, 5]
    const = Dataset.range(2).flat_map(lambda _: Dataset.range(3))
    assert scalars(collect(const)) == [0, 1, 2, 0, 1, 2]
    with pytest.raises(TypeError, match="must return a Dataset"):
        Dataset.range(2).flat_map(lambda v: v)


def test_interleave_cycle_and_block():
    ds = Dataset.from_tensor_slices(np.array([1, 2, 3, 4], np.int64)).interleave(
        lambda v: Dataset.from_tensors(v).repeat(2), cycle_length=2, block_length=1)
    assert scalars(collect(ds)) == [1, 2, 1, 2, 3, 4, 3, 4]
    ds = Dataset.range(1, 3).interleave(
        lambda v: Dataset.from_tensors(v).repeat(4), cycle_length=2, block_length=3)
    assert scalars(collect(ds)) == [1, 1, 1, 2, 2, 2, 1, 2]


def test_cache_replays_the_first_pass():
    calls = []

    def gen():
        calls.append(1)
        yield from range(4)
    ds = Dataset.from_generator(gen, tf.int64, []).cache().repeat(3)
    assert scalars(collect(ds)) == [0, 1, 2, 3] * 3
    assert len(calls) == 1
    # cache after shuffle freezes the first order
    frozen = Dataset.range(20).shuffle(20, seed=5).cache().repeat(2)
    got = scalars(collect(frozen))
    assert got[:20] == got[20:] and got[:20] != list(range(20))


def test_cache_to_file(tmp_path):
    path = str(tmp_path / "cache.bin")
    calls = []

    def gen():
        calls.append(1)
        yield from ([1.5, 2.5], [3.5, 4.5])
    ds = Dataset.from_generator(gen, tf.float32, [2]).cache(path)
    first = collect(ds)
    second = collect(ds)  # a new iterator and session read the file
    assert len(calls) == 1
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(second[1], [3.5, 4.5])


def test_prefetch_keeps_order_and_determinism():
    ds = Dataset.range(100).map(lambda v: v * 3).shuffle(16, seed=2).prefetch(4)
    a = scalars(collect(ds))
    assert a == scalars(collect(ds))
    assert a == scalars(collect(Dataset.range(100).map(lambda v: v * 3).shuffle(16, seed=2)))
    fast = Dataset.range(50).batch(7).prefetch(2)
    want = [list(range(i, min(i + 7, 50))) for i in range(0, 50, 7)]
    assert [g.tolist() for g in collect(fast)] == want
    auto = Dataset.range(5).map(lambda v: v).prefetch(tf.data.experimental.AUTOTUNE)
    assert scalars(collect(auto)) == [0, 1, 2, 3, 4]


def test_parallel_map_keeps_order():
    def slow_square(v):
        return tf.py_func(lambda a: np.int64(a * a), [v], tf.int64)
    ds = Dataset.range(40).map(slow_square, num_parallel_calls=4)
    assert scalars(collect(ds)) == [i * i for i in range(40)]
    auto = Dataset.range(10).map(lambda v: v + 1, num_parallel_calls=tf.data.AUTOTUNE)
    assert scalars(collect(auto)) == list(range(1, 11))


def test_from_generator_types_shapes_and_errors():
    def gen():
        for i in range(3):
            yield i, [float(i)] * (i + 1)
    ds = Dataset.from_generator(gen, (tf.int64, tf.float32), ([], [None]))
    assert ds.output_types == (tf.int64, tf.float32)
    assert ds.output_shapes == (tf.TensorShape([]), tf.TensorShape([None]))
    got = collect(ds)
    assert [int(a) for a, _ in got] == [0, 1, 2]
    assert got[2][1].dtype == np.float32 and got[2][1].tolist() == [2.0, 2.0, 2.0]
    assert Dataset.from_generator(gen, (tf.int64, tf.float32)).output_shapes == (
        tf.TensorShape(None), tf.TensorShape(None))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"shape \(2,\).*\(1,\)"):
        collect(Dataset.from_generator(lambda: iter([[1, 2]]), tf.int32, [1]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected type was int32"):
        collect(Dataset.from_generator(lambda: iter([1.5]), tf.int32, []))
    args = Dataset.from_generator(lambda n: iter(range(n)), tf.int64, [], args=(3,))
    assert scalars(collect(args)) == [0, 1, 2]


def test_padded_batch_unbatch_enumerate_concatenate():
    ds = Dataset.range(1, 4).map(repeated)
    pb = ds.padded_batch(2, padded_shapes=[None])
    got = collect(pb)
    assert got[0].tolist() == [[1, 0], [2, 2]]
    assert got[1].tolist() == [[3, 3, 3]]
    assert pb.output_shapes == [None, None]
    fixed = ds.padded_batch(3, padded_shapes=[4], padding_values=np.int64(-1))
    assert collect(fixed)[0].tolist() == [[1, -1, -1, -1], [2, 2, -1, -1], [3, 3, 3, -1]]
    ub = Dataset.from_tensor_slices(np.arange(6).reshape(3, 2)).batch(2).unbatch()
    assert ub.output_shapes == [2]
    assert [r.tolist() for r in collect(ub)] == [[0, 1], [2, 3], [4, 5]]
    en = Dataset.from_tensor_slices(np.array([5, 6])).enumerate(start=10)
    assert [(int(i), int(v)) for i, v in collect(en)] == [(10, 5), (11, 6)]
    cat = Dataset.range(2).concatenate(Dataset.range(5, 7))
    assert scalars(collect(cat)) == [0, 1, 5, 6]
    assert Dataset.range(3).apply(lambda d: d.skip(1)).output_types == tf.int64


def test_as_numpy_iterator_and_output_classes():
    ds = Dataset.from_tensor_slices({"a": tf.constant([1, 2])})
    assert [d["a"].item() for d in ds.as_numpy_iterator()] == [1, 2]
    assert ds.output_classes == {"a": tf.Tensor}
    assert tf.data.get_output_types(ds) == {"a": tf.int32}


def test_fetched_values_are_owned_by_the_caller():
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    nxt = Dataset.from_tensor_slices(x).repeat(2).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        first = sess.run(nxt)
        first += 100
        sess.run(nxt)
        sess.run(nxt)
        np.testing.assert_array_equal(sess.run(nxt), [0, 1])
    np.testing.assert_array_equal(x[0], [0, 1])


def test_two_shuffles_seeded_by_the_graph_seed_differ():
    tf.set_random_seed(3)
    a = scalars(collect(Dataset.range(30).shuffle(30)))
    b = scalars(collect(Dataset.range(30).shuffle(30)))
    assert a != b and sorted(a) == sorted(b) == list(range(30))
