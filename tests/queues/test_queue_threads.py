"""Blocking, closing and thread safety of the queue ops: enqueue threads and a consumer
run ``Session.run`` at once; a full queue blocks its enqueuers, an empty one its
dequeuers; closing and session teardown wake them."""
import threading
import time

import numpy as np
import pytest

import estimator_npu as tf


def _thread(fn):
    box = {}

    def target():
        try:
            box["value"] = fn()
        except Exception as e:  # noqa: BLE001 - inspected by the test
            box["error"] = e
    t = threading.Thread(target=target, daemon=True)
    t.start()
    return t, box


def test_full_queue_blocks_enqueue_until_a_dequeue():
    q = tf.FIFOQueue(2, [tf.int32], shapes=[[]])
    enq = q.enqueue_many([[1, 2, 3]])
    x = q.dequeue()
    with tf.Session() as sess:
        t, box = _thread(lambda: sess.run(enq))
        t.join(0.3)
        assert t.is_alive() and sess.run(q.size()) == 2       # blocked on the 3rd element
        assert sess.run(x) == 1
        t.join(5)
        assert not t.is_alive() and "error" not in box
        assert [int(sess.run(x)) for _ in range(2)] == [2, 3]


def test_dequeue_many_waits_for_all_elements_and_may_exceed_capacity():
    q = tf.FIFOQueue(2, [tf.int32], shapes=[[]])
    one = tf.placeholder(tf.int32, [])
    enq = q.enqueue(one)
    many = q.dequeue_many(5)
    with tf.Session() as sess:
        t, box = _thread(lambda: sess.run(many))
        for i in range(5):
            sess.run(enq, {one: i})
        t.join(5)
        assert box["value"].tolist() == [0, 1, 2, 3, 4]


def test_close_wakes_blocked_dequeue_with_out_of_range():
    q = tf.FIFOQueue(4, [tf.float32], shapes=[[]])
    x = q.dequeue()
    with tf.Session() as sess:
        t, box = _thread(lambda: sess.run(x))
        time.sleep(0.1)
        sess.run(q.close())
        t.join(5)
        assert isinstance(box["error"], tf.errors.OutOfRangeError)
        assert "is closed and has insufficient elements (requested 1, current size 0)" in \
            str(box["error"])


def test_close_with_cancel_pending_enqueues_cancels_the_blocked_enqueue():
    q = tf.FIFOQueue(1, [tf.int32], shapes=[[]])
    enq = q.enqueue_many([[1, 2]])
    with tf.Session() as sess:
        t, box = _thread(lambda: sess.run(enq))
        time.sleep(0.1)
        sess.run(q.close(cancel_pending_enqueues=True))
        t.join(5)
        assert isinstance(box["error"], tf.errors.CancelledError)
        assert sess.run(q.size()) == 1


def test_close_without_cancel_lets_pending_enqueues_finish():
    q = tf.FIFOQueue(1, [tf.int32], shapes=[[]])
    enq = q.enqueue_many([[1, 2]])
    x = q.dequeue()
    with tf.Session() as sess:
        t, box = _thread(lambda: sess.run(enq))
        time.sleep(0.1)
        sess.run(q.close())
        assert sess.run(x) == 1
        t.join(5)
        assert "error" not in box and sess.run(x) == 2
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(x)


def test_session_close_cancels_a_blocked_dequeue():
    q = tf.FIFOQueue(4, [tf.float32], shapes=[[]])
    x = q.dequeue()
    sess = tf.Session()
    t, box = _thread(lambda: sess.run(x))
    time.sleep(0.1)
    sess.close()
    t.join(5)
    assert isinstance(box["error"], tf.errors.CancelledError)


def test_random_shuffle_queue_keeps_min_after_dequeue_until_closed():
    q = tf.RandomShuffleQueue(10, 3, [tf.int32], shapes=[[]], seed=1)
    enq = q.enqueue_many([[0, 1, 2, 3]])
    x = q.dequeue()
    with tf.Session() as sess:
        sess.run(enq)
        first = sess.run(x)                       # 4 > 3: one may go
        t, box = _thread(lambda: sess.run(x))     # 3 left: blocks while open
        t.join(0.3)
        assert t.is_alive()
        sess.run(q.close())                       # closed: the rest drain
        t.join(5)
        rest = [box["value"]] + [sess.run(x) for _ in range(2)]
        assert sorted([first] + rest) == [0, 1, 2, 3]


def test_random_shuffle_queue_order_follows_the_seed():
    def order(seed):
        with tf.Graph().as_default():
            q = tf.RandomShuffleQueue(50, 0, [tf.int32], shapes=[[]], seed=seed)
            enq = q.enqueue_many([list(range(30))])
            out = q.dequeue_many(30)
            with tf.Session() as sess:
                sess.run(enq)
                return sess.run(out).tolist()
    a, b, c = order(4), order(4), order(5)
    assert a == b and a != c and sorted(a) == list(range(30)) and a != list(range(30))


def test_concurrent_enqueue_threads_and_consumer_each_element_exactly_once():
    q = tf.FIFOQueue(8, [tf.int64, tf.int64], shapes=[[], []])
    worker = tf.placeholder(tf.int64, [])
    index = tf.placeholder(tf.int64, [])
    enq = q.enqueue([worker, index])
    many = q.dequeue_many(4)
    with tf.Session() as sess:
        def produce(w):
            for i in range(50):
                sess.run(enq, {worker: w, index: i})
        threads = [threading.Thread(target=produce, args=(w,)) for w in range(4)]
        for t in threads:
            t.start()
        got = [sess.run(many) for _ in range(50)]
        for t in threads:
            t.join(10)
    pairs = np.concatenate([np.stack(g, 1) for g in got]).tolist()
    assert sorted(map(tuple, pairs)) == [(w, i) for w in range(4) for i in range(50)]
    for w in range(4):  # one enqueue thread's elements stay in its order (FIFO)
        assert [i for ww, i in pairs if ww == w] == list(range(50))


def test_enqueue_shape_and_count_errors():
    q = tf.FIFOQueue(3, [tf.int32], shapes=[[2]])
    with pytest.raises(ValueError, match="incompatible"):
        q.enqueue([[1, 2, 3]])
    with pytest.raises(ValueError, match="All shapes must be fully defined"):
        tf.FIFOQueue(3, [tf.int32], shapes=[[None]])
    p = tf.placeholder(tf.int32, None)
    enq = q.enqueue([p])
    unknown = tf.FIFOQueue(3, [tf.int32])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Shape mismatch in tuple "
                           r"component 0. Expected \[2\], got \[3\]"):
            sess.run(enq, {p: [1, 2, 3]})
        sess.run(unknown.enqueue(1))
        with pytest.raises(tf.errors.InvalidArgumentError, match="require the components "
                           "to have specified shapes"):
            sess.run(unknown.dequeue_many(1))


def test_queue_aliases_and_properties():
    assert tf.queue.FIFOQueue is tf.FIFOQueue and tf.queue.RandomShuffleQueue is \
        tf.RandomShuffleQueue and tf.queue.PaddingFIFOQueue is tf.PaddingFIFOQueue
    q = tf.FIFOQueue(3, [tf.int32, tf.string], shapes=[[], [2]], names=["n", "s"],
                     name="my_queue")
    assert (q.name, q.dtypes, q.names) == ("my_queue", [tf.int32, tf.string], ["n", "s"])
    assert [s.as_list() for s in q.shapes] == [[], [2]]
    assert q.queue_ref.op.type == "FIFOQueueV2"
    with pytest.raises(ValueError, match="do not match"):
        q.enqueue({"n": 1})


def test_num_threads_run_one_enqueue_plan_concurrently_without_mixing_values():
    # four threads run the same enqueue op (the same compiled plan) at once: each element's
    # computed value must still belong to its own row (kernels with reused work buffers)
    n = 120
    images = np.random.RandomState(0).rand(n, 6, 6, 2).astype(np.float32)
    index, image = tf.train.slice_input_producer(
        [tf.constant(np.arange(n, dtype=np.int32)), tf.constant(images)], num_epochs=1,
        shuffle=True, seed=2)
    pooled = tf.nn.max_pool(tf.expand_dims(image, 0), [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    feature = tf.reduce_sum(pooled * 3.0 + 1.0)
    idx, feat = tf.train.batch([index, feature], batch_size=7, num_threads=4,
                               allow_smaller_final_batch=True)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        got = {}
        try:
            while True:
                i, f = sess.run([idx, feat])
                got.update(zip(i.tolist(), f.tolist()))
        except tf.errors.OutOfRangeError:
            pass
        coord.request_stop()
        coord.join(threads)
    assert sorted(got) == list(range(n))
    want = (images.reshape(n, 3, 2, 3, 2, 2).max(axis=(2, 4)) * 3.0 + 1.0).sum(axis=(1, 2, 3))
    np.testing.assert_allclose([got[i] for i in range(n)], want, rtol=1e-5)


def test_plans_that_wait_for_a_queue_are_not_timed_by_the_thread_governor():
    from estimator_npu.utils import blas_governor
    q = tf.FIFOQueue(4, [tf.float32], shapes=[[2, 2]])
    enq = q.enqueue([np.eye(2, dtype=np.float32)])
    waits = tf.matmul(q.dequeue(), tf.ones([2, 2]))
    plain = tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]))
    with tf.Session() as sess:
        sess.run(enq)
        sess.run([waits, plain])
        sess.run(plain)
        plans = {tuple(t.name for t in p.ops if t.type == "QueueDequeueV2"): p
                 for p, _, _ in [v for v in sess._plans.values() if isinstance(v, tuple)]}
    assert plans[("fifo_queue_Dequeue",)].governor is None
    if blas_governor.enabled():
        assert plans[()].governor is not None
