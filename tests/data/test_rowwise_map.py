"""A row-wise ``map`` runs once per gathered batch (issue 16): same elements and order as
the element-by-element path, which it falls back to for functions that are not row-wise."""
import threading

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.data import rowwise
from dataset_helpers import collect, fresh_graph  # noqa: F401 (fresh_graph: autouse)

Dataset = tf.data.Dataset
N = 203  # not a multiple of any batch size below: a short last batch per pass


def data():
    rng = np.random.default_rng(5)
    return (rng.integers(0, 256, (N, 6, 2)).astype(np.uint8),
            rng.integers(0, 10, N).astype(np.int64))


def scale(img, label):
    img = tf.cast(img, tf.float32) / 255.0
    return (tf.maximum(img * 2.0 - tf.constant([0.5, 1.0]), 0.0),
            tf.cast(label, tf.int32) * 3 + 1)


def element_by_element(monkeypatch):
    monkeypatch.setattr(rowwise, "is_rowwise", lambda fn: False)


def assert_same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert len(g) == len(w)
        for a, b in zip(g, w):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)


def block_fn(ds):
    return ds._node._block_fn()


@pytest.mark.parametrize("seed,buffer,batch,drop,count", [
    (0, 50, 32, False, 2), (1, 203, 16, True, 3), (7, 1, 64, False, 1),
    (3, 1000, 203, False, 2), (11, 17, 10, True, 1)])
def test_vectorised_map_equals_the_element_path(monkeypatch, seed, buffer, batch, drop,
                                                count):
    x, y = data()

    def pipeline(before):
        ds = Dataset.from_tensor_slices((x, y))
        if before:
            ds = ds.map(scale)
        ds = ds.shuffle(buffer, seed=seed).repeat(count)
        if not before:
            ds = ds.map(scale)
        return ds.batch(batch, drop_remainder=drop)

    assert block_fn(Dataset.from_tensor_slices((x, y)).map(scale)) is not None
    fast_before, fast_after = collect(pipeline(True)), collect(pipeline(False))
    element_by_element(monkeypatch)
    assert block_fn(Dataset.from_tensor_slices((x, y)).map(scale)) is None
    want = collect(pipeline(False))  # map per element, over the same index shuffle
    sizes = [len(b[0]) for b in want]
    assert sum(sizes) == (N * count // batch * batch if drop else N * count)
    assert_same(fast_before, want)
    assert_same(fast_after, want)


def test_unbatched_elements_and_take_skip_through_a_vectorised_map(monkeypatch):
    x, y = data()

    def pipeline(before):
        ds = Dataset.from_tensor_slices((x, y))
        ds = ds.map(scale) if before else ds
        ds = ds.repeat(2).skip(3).take(300).shuffle(40, seed=2)
        return ds if before else ds.map(scale)
    fast = collect(pipeline(True))
    assert_same(fast, collect(pipeline(False)))
    element_by_element(monkeypatch)
    assert_same(fast, collect(pipeline(False)))  # map per element, same index shuffle
    assert len(fast) == 300 and fast[0][0].shape == (6, 2)


@pytest.mark.parametrize("fn", [
    lambda a, b: (tf.reshape(a, [12]), b),                       # not element-wise
    lambda a, b: (tf.reduce_sum(tf.cast(a, tf.int32)), b),       # reduces the row
    lambda a, b: (tf.cast(a, tf.float32) + tf.random_uniform([6, 2]), b),  # per-row draw
    lambda a, b: (a, tf.cast(b, tf.int32) + tf.constant([1, 2, 3])),  # broadcasts the row
    lambda a, b: (a, tf.constant(4)),                            # a constant component
])
def test_functions_that_are_not_row_wise_keep_the_element_path(fn):
    x, y = data()
    ds = Dataset.from_tensor_slices((x, y)).map(fn)
    assert block_fn(ds) is None
    got = collect(ds.batch(64))
    assert [len(b[0]) for b in got] == [64, 64, 64, 11]


def test_prefetch_thread_does_not_change_results():
    x, y = data()

    def pipeline(prefetch):
        ds = Dataset.from_tensor_slices((x, y)).map(scale).shuffle(60, seed=4).repeat(2) \
            .batch(25)
        return ds.prefetch(2) if prefetch else ds
    before = {t.ident for t in threading.enumerate()}
    nxt = pipeline(True).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        first = sess.run(nxt)
        names = [t.name for t in threading.enumerate() if t.ident not in before]
        got = [first]
        while True:
            try:
                got.append(sess.run(nxt))
            except tf.errors.OutOfRangeError:
                break
    assert names == ["data-prefetch"]
    assert_same(got, collect(pipeline(False)))


@pytest.mark.parametrize("mode", ["thread", "sync"])
def test_prefetch_modes_give_the_same_batches_on_the_plain_gather_path(monkeypatch, mode):
    from estimator_npu.data import prefetch
    x, y = data()

    def pipeline():
        return Dataset.from_tensor_slices((x, y)).shuffle(30, seed=9).repeat(2).batch(48) \
            .prefetch(1)
    want = collect(pipeline())  # auto: synchronous over one gather per batch
    monkeypatch.setattr(prefetch, "MODE", mode)
    before = {t.ident for t in threading.enumerate()}
    nxt = pipeline().make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        got = [sess.run(nxt)]
        names = [t.name for t in threading.enumerate() if t.ident not in before]
        while True:
            try:
                got.append(sess.run(nxt))
            except tf.errors.OutOfRangeError:
                break
    assert names == (["data-prefetch"] if mode == "thread" else [])
    assert_same(got, want)
    assert [len(b[0]) for b in got] == [48] * 8 + [22]


def test_a_single_component_source_and_a_dict_result(monkeypatch):
    x, _ = data()

    def pipeline():
        return Dataset.from_tensor_slices(x).shuffle(20, seed=1).map(
            lambda a: {"img": tf.cast(a, tf.float32) * 0.5, "pos": a > 100}).batch(50)
    assert pipeline()._node.inputs[0]._block_fn() is not None
    fast = collect(pipeline())
    element_by_element(monkeypatch)
    want = collect(pipeline())
    assert [sorted(b) for b in fast] == [["img", "pos"]] * 5
    assert_same([(b["img"], b["pos"]) for b in fast], [(b["img"], b["pos"]) for b in want])
