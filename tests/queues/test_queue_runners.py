"""QueueRunner threads, start_queue_runners, the Coordinator, and the sessions that start
the runners themselves (MonitoredSession / MonitoredTrainingSession, Supervisor)."""
import os

import numpy as np
import pytest

import estimator_npu as tf


def _counter_pipeline(n=10, epochs=1, batch=4, smaller=True):
    rows = tf.train.slice_input_producer([tf.constant(np.arange(n, dtype=np.int32))],
                                        num_epochs=epochs, shuffle=False)[0]
    return tf.train.batch([rows], batch_size=batch, allow_smaller_final_batch=smaller)


def test_start_queue_runners_needs_a_session():
    _counter_pipeline()
    with pytest.raises(ValueError, match="No default session"):
        tf.train.start_queue_runners()


def test_threads_are_daemons_registered_with_the_coordinator_and_started_once():
    _counter_pipeline(epochs=None)   # runners that never run out
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        # two runners (indices, batch), each one enqueue thread + one close_on_stop thread
        assert len(threads) == 4 and all(t.daemon for t in threads)
        assert tf.train.start_queue_runners(sess, coord) == []
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=5)
        assert not any(t.is_alive() for t in threads)


def test_coordinator_loop_ends_at_epoch_end():
    batch = _counter_pipeline(n=10, epochs=2, batch=4, smaller=True)
    seen = []
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        try:
            while not coord.should_stop():
                seen.append(sess.run(batch).tolist())
        except tf.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
        coord.join(threads)
    assert [len(b) for b in seen] == [4, 4, 4, 4, 4]
    assert sum(seen, []) == list(range(10)) * 2


def test_enqueue_error_reaches_join_and_the_consumer_stops():
    filenames = tf.train.string_input_producer(["missing_file.tfrecord"])
    _, value = tf.TFRecordReader().read(filenames)
    batch = tf.train.batch([value], batch_size=2)
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(batch)   # the failing runner's queue was cancelled on the stop
        assert coord.should_stop()
        with pytest.raises(tf.errors.NotFoundError, match="missing_file.tfrecord"):
            coord.join(threads)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_runner_without_coordinator_records_the_exception():
    # as in TF, the thread also re-raises it (uncaught in the thread, so only logged)
    q = tf.FIFOQueue(2, [tf.float32], shapes=[[]])
    p = tf.placeholder(tf.float32, [])
    qr = tf.train.QueueRunner(q, [q.enqueue(p)])
    with tf.Session() as sess:
        threads = qr.create_threads(sess, start=True)
        for t in threads:
            t.join(5)
    assert len(qr.exceptions_raised) == 1
    assert isinstance(qr.exceptions_raised[0], tf.errors.InvalidArgumentError)


def test_last_enqueue_thread_closes_the_queue():
    src = tf.FIFOQueue(10, [tf.int32], shapes=[[]])
    fill = src.enqueue_many([list(range(6))])
    dst = tf.FIFOQueue(10, [tf.int32], shapes=[[]])
    move = dst.enqueue(src.dequeue())
    qr = tf.train.QueueRunner(dst, [move] * 3)
    tf.train.add_queue_runner(qr)
    assert tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS) == [qr]
    out = dst.dequeue()
    with tf.Session() as sess:
        sess.run(fill)
        sess.run(src.close())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        got = []
        with pytest.raises(tf.errors.OutOfRangeError):
            while True:
                got.append(int(sess.run(out)))
        coord.request_stop()
        coord.join(threads)
    assert sorted(got) == list(range(6))


def test_coordinator_keeps_the_exception_that_caused_the_stop_only():
    coord = tf.train.Coordinator()
    coord.request_stop(ValueError("first"))
    coord.request_stop(tf.errors.CancelledError(None, None, "after the stop"))
    with pytest.raises(ValueError, match="first"):
        coord.join([])
    with pytest.raises(KeyError):   # after join nobody would see it: raised at once
        coord.request_stop(KeyError("late"))


def _train_graph():
    global_step = tf.train.get_or_create_global_step()
    rows = tf.train.slice_input_producer(
        [tf.constant(np.arange(12, dtype=np.float32).reshape(6, 2))], num_epochs=3,
        shuffle=False)[0]
    batch = tf.train.batch([rows], batch_size=4)
    w = tf.Variable(tf.zeros([2]))
    loss = tf.reduce_sum(tf.square(batch * w - 1.0))
    train = tf.train.GradientDescentOptimizer(0.001).minimize(loss, global_step=global_step)
    return global_step, train


def test_monitored_training_session_starts_runners_and_stops_at_end_of_input(tmp_path):
    global_step, train = _train_graph()
    steps = 0
    with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path),
                                           save_summaries_steps=None,
                                           log_step_count_steps=None) as sess:
        while not sess.should_stop():
            sess.run(train)
            steps += 1
    # 18 rows in batches of 4: 4 full batches, then OutOfRangeError ends the loop
    assert steps == 4
    assert tf.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-4")


def test_monitored_session_raises_a_runner_failure(tmp_path):
    filenames = tf.train.string_input_producer([str(tmp_path / "nope.bin")])
    _, value = tf.FixedLengthRecordReader(4).read(filenames)
    batch = tf.train.batch([value], batch_size=2)
    with pytest.raises(tf.errors.NotFoundError, match="nope.bin"):
        with tf.train.MonitoredSession() as sess:
            while not sess.should_stop():
                sess.run(batch)


def test_supervisor_managed_session_runs_the_queue_runners(tmp_path):
    global_step, train = _train_graph()
    sv = tf.train.Supervisor(logdir=str(tmp_path), save_model_secs=0,
                             local_init_op=tf.local_variables_initializer())
    steps = 0
    with sv.managed_session() as sess:
        while not sv.should_stop():
            sess.run(train)
            steps += 1
    assert steps == 4
    assert os.path.exists(str(tmp_path / "checkpoint"))


def test_moving_average_of_a_dequeued_loss_does_not_dequeue_at_init(tmp_path):
    # the CIFAR-10 tutorial averages its losses: the average of a tensor starts at zeros
    # (as TF), so the initializer must not wait for input no queue runner fills yet
    global_step, train = _train_graph()
    batch = tf.get_default_graph().get_tensor_by_name("batch:0")
    loss = tf.reduce_mean(batch)
    ema = tf.train.ExponentialMovingAverage(0.9)
    with tf.control_dependencies([train]):
        train = ema.apply([loss])
    assert tf.get_collection(tf.GraphKeys.MOVING_AVERAGE_VARIABLES) == []
    with tf.train.MonitoredTrainingSession(save_summaries_steps=None,
                                           log_step_count_steps=None) as sess:
        sess.run(train)
        first = sess.run(ema.average(loss))
    assert first == pytest.approx(0.1 * 3.5)   # zeros + 0.1 * (mean of rows 0..3: 0..7)


def test_looper_threads_run_until_the_stop_and_report_their_failure():
    coord = tf.train.Coordinator()
    calls = []
    looper = coord.loop(0.01, calls.append, args=(1,))
    assert isinstance(looper, tf.train.LooperThread) and looper.daemon
    while len(calls) < 3:
        coord.wait_for_stop(0.01)
    coord.request_stop()
    coord.join()   # the looper was registered
    assert not looper.is_alive()
    coord2 = tf.train.Coordinator()

    def fail():
        raise ValueError("looper failed")
    tf.train.LooperThread.loop(coord2, None, fail)
    coord2.wait_for_stop(5)
    with pytest.raises(ValueError, match="looper failed"):
        coord2.join()


def test_supervisor_loop_runs_under_its_coordinator(tmp_path):
    tf.train.get_or_create_global_step()
    sv = tf.train.Supervisor(logdir=str(tmp_path), save_model_secs=0)
    calls = []
    with sv.managed_session():
        sv.loop(0.01, lambda: calls.append(1))
        while not calls:
            sv.coord.wait_for_stop(0.01)
    assert calls
