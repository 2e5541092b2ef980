"""Iterators: one-shot, initializable with new feeds, end of data, module functions
(issue 3, acceptance 3), and what the device loop relies on."""
import threading

import numpy as np
import pytest

import estimator_npu as tf
from dataset_helpers import fresh_graph  # noqa: F401 (fresh_graph: autouse)

Dataset = tf.data.Dataset


def test_one_shot_iterator_method_and_module_function_end_with_out_of_range():
    for make in (lambda d: d.make_one_shot_iterator(), tf.data.make_one_shot_iterator):
        it = make(Dataset.range(3))
        assert it.kind == "one_shot"
        nxt = it.get_next()
        assert isinstance(nxt, tf.Tensor) and nxt.op.type == "IteratorGetNext"
        assert nxt.op.attrs["iterator_kind"] == "one_shot"
        with tf.Session() as sess:
            assert [int(sess.run(nxt)) for _ in range(3)] == [0, 1, 2]
            with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
                sess.run(nxt)
            with pytest.raises(tf.errors.OutOfRangeError):  # and it stays at the end
                sess.run(nxt)
        with pytest.raises(ValueError, match="does not have an initializer"):
            it.initializer


def test_initializable_iterator_reinitialized_with_new_placeholder_feeds():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    for make in (lambda d: d.make_initializable_iterator(),
                 tf.data.make_initializable_iterator):
        ds = Dataset.from_tensor_slices((x, y)).batch(2)
        it = make(ds)
        assert it.kind == "initializable"
        bx, by = it.get_next()
        assert bx.shape == [None, 2] and by.dtype == tf.int64
        assert list(it.initializer.inputs) == [x, y]
        with tf.Session() as sess:
            sess.run(it.initializer, feed_dict={x: np.ones((3, 2)), y: [1, 2, 3]})
            a = sess.run((bx, by))
            np.testing.assert_array_equal(a[1], [1, 2])
            np.testing.assert_array_equal(sess.run(by), [3])
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(by)
            sess.run(it.initializer, feed_dict={x: np.zeros((1, 2)), y: [9]})
            bxv, byv = sess.run((bx, by))
            np.testing.assert_array_equal(bxv, [[0, 0]])
            np.testing.assert_array_equal(byv, [9])
            # re-initializing in the middle restarts from the new data
            sess.run(it.initializer, feed_dict={x: np.zeros((4, 2)), y: [5, 6, 7, 8]})
            sess.run(by)
            sess.run(it.initializer, feed_dict={x: np.zeros((4, 2)), y: [5, 6, 7, 8]})
            np.testing.assert_array_equal(sess.run(by), [5, 6])


def test_using_an_initializable_iterator_before_its_initializer_fails_naming_it():
    it = Dataset.range(3).make_initializable_iterator(shared_name="train_input")
    nxt = it.get_next()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="'train_input'.*"
                           "not been initialized"):
            sess.run(nxt)


def test_unfed_placeholder_in_initializer_and_mismatched_lengths_at_run_time():
    x = tf.placeholder(tf.float32, [None], name="feat")
    y = tf.placeholder(tf.float32, [None], name="lab")
    it = Dataset.from_tensor_slices((x, y)).make_initializable_iterator()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="feat"):
            sess.run(it.initializer, feed_dict={y: [1.0]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="has 3 and component 1 has 2"):
            sess.run(it.initializer, feed_dict={x: [1.0, 2.0, 3.0], y: [1.0, 2.0]})


def test_one_shot_iterator_rejects_placeholders_but_accepts_constants():
    x = tf.placeholder(tf.float32, [None])
    with pytest.raises(ValueError, match="make_initializable_iterator"):
        Dataset.from_tensor_slices(x).make_one_shot_iterator()
    c = tf.constant([1.0, 2.0])
    nxt = Dataset.from_tensor_slices(c).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert [float(sess.run(nxt)) for _ in range(2)] == [1.0, 2.0]


def test_tensor_batch_size_is_checked_when_initialized():
    bs = tf.placeholder(tf.int64, [], name="bs")
    it = Dataset.range(5).batch(bs).make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as sess:
        sess.run(it.initializer, {bs: 2})
        assert sess.run(nxt).tolist() == [0, 1]
        sess.run(it.initializer, {bs: 4})
        assert sess.run(nxt).tolist() == [0, 1, 2, 3]
        with pytest.raises(tf.errors.InvalidArgumentError, match="batch_size must be >= 1, "
                           "got 0"):
            sess.run(it.initializer, {bs: 0})


def test_get_next_twice_pulls_from_the_same_iterator():
    it = Dataset.range(4).make_initializable_iterator()
    a, b = it.get_next(), it.get_next()
    assert a.op is not b.op
    with tf.Session() as sess:
        sess.run(it.initializer)
        assert [int(sess.run(a)), int(sess.run(b)), int(sess.run(a))] == [0, 1, 2]


def test_iterator_state_is_per_session():
    nxt = Dataset.range(3).make_one_shot_iterator().get_next()
    with tf.Session() as s1, tf.Session() as s2:
        assert int(s1.run(nxt)) == 0
        assert int(s1.run(nxt)) == 1
        assert int(s2.run(nxt)) == 0


def test_from_structure_reinitializable_iterator():
    it = tf.data.Iterator.from_structure(tf.int64, tf.TensorShape([]))
    nxt = it.get_next()
    train = it.make_initializer(Dataset.range(3))
    test = it.make_initializer(Dataset.range(10, 12))
    with pytest.raises(TypeError, match="types"):
        it.make_initializer(Dataset.from_tensor_slices(np.ones(2, np.float32)))
    with tf.Session() as sess:
        sess.run(train)
        assert int(sess.run(nxt)) == 0
        sess.run(test)
        assert [int(sess.run(nxt)) for _ in range(2)] == [10, 11]
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(nxt)


def test_get_next_in_a_model_and_repeated_plan_pulls_one_batch_per_run():
    # What the device loop does: run a plan that depends on get_next k times.
    x = np.arange(8, dtype=np.float32).reshape(8, 1)
    it = Dataset.from_tensor_slices(x).batch(2).make_initializable_iterator()
    batch = it.get_next()
    total = tf.reduce_sum(batch * 2.0)
    getnext = [op for op in tf.get_default_graph().get_operations()
               if op.attrs.get("iterator_kind")]
    assert [op.type for op in getnext] == ["IteratorGetNext"]
    assert getnext[0].attrs["iterator_kind"] == "initializable"
    with tf.Session() as sess:
        sess.run(it.initializer)
        sums = [float(sess.run(total)) for _ in range(4)]
        assert sums == [2.0, 10.0, 18.0, 26.0]
        with pytest.raises(tf.errors.OutOfRangeError) as info:
            sess.run(total)
        assert info.value.op is getnext[0]


def test_session_close_stops_prefetch_threads():
    before = {t.ident for t in threading.enumerate()}
    ds = Dataset.range(1000).map(lambda v: v + 1).prefetch(2)
    nxt = ds.make_one_shot_iterator().get_next()
    sess = tf.Session()
    assert int(sess.run(nxt)) == 1
    new = [t for t in threading.enumerate() if t.ident not in before]
    assert [t.name for t in new] == ["data-prefetch"]
    sess.close()
    new[0].join(timeout=5)
    assert not new[0].is_alive()


def test_errors_inside_the_pipeline_surface_from_session_run():
    def gen():
        yield 1
        raise KeyError("lost file")
    nxt = Dataset.from_generator(gen, tf.int64, []).prefetch(1) \
        .make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert int(sess.run(nxt)) == 1
        with pytest.raises(tf.errors.InvalidArgumentError, match="lost file"):
            sess.run(nxt)


def test_concurrent_session_runs_pull_distinct_elements():
    nxt = Dataset.range(400).make_one_shot_iterator().get_next()
    got = []
    with tf.Session() as sess:
        def worker():
            for _ in range(100):
                got.append(int(sess.run(nxt)))
        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert sorted(got) == list(range(400))
