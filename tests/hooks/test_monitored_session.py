"""Monitored sessions with real sessions, checkpoints and summaries (sess.run style)."""
import glob
import logging
import os

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import hooks as H


def linear_model(lr=0.1):
    """y = 2x full-batch regression; returns (train_op, loss, w)."""
    gs = tf.train.get_or_create_global_step()
    x = tf.constant(np.arange(1.0, 5.0, dtype=np.float32).reshape(4, 1))
    w = tf.get_variable("w", [1, 1], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 2.0 * x))
    train_op = tf.train.GradientDescentOptimizer(lr).minimize(loss, global_step=gs)
    return train_op, loss, w


def checkpoint_steps(model_dir):
    return sorted(int(p.rsplit("-", 1)[1].split(".")[0])
                  for p in glob.glob(os.path.join(model_dir, "model.ckpt-*.index")))


def scalar_events(logdir, tag):
    tf.summary.FileWriterCache.clear()  # close the writers: every event on disk
    out = []
    for path in glob.glob(os.path.join(logdir, "events.out.tfevents.*")):
        for event in tf.train.summary_iterator(path):
            for value in event.summary.value:
                if value.tag == tag:
                    out.append((event.step, value.simple_value))
    return sorted(out)


def test_monitored_training_session_saves_restores_and_writes(tmp_path, caplog):
    model_dir = str(tmp_path)
    with tf.Graph().as_default():
        train_op, loss, w = linear_model()
        tf.summary.scalar("loss", loss)
        with caplog.at_level(logging.INFO, logger="estimator_npu"):
            with H.MonitoredTrainingSession(
                    checkpoint_dir=model_dir, save_checkpoint_steps=4, save_summaries_steps=3,
                    log_step_count_steps=5,
                    hooks=[H.StopAtStepHook(last_step=10)]) as sess:
                while not sess.should_stop():
                    sess.run(train_op)
        w_trained = None
    assert checkpoint_steps(model_dir) == [0, 4, 8, 10]
    assert [s for s, _ in scalar_events(model_dir, "loss")] == [1, 4, 7, 10]
    assert [s for s, _ in scalar_events(model_dir, "global_step/sec")] == [6]
    assert "global_step/sec" in caplog.text
    w_trained = tf.train.load_variable(model_dir, "w")
    caplog.clear()
    # a new graph resumes from step 10 and, as TF, saves the restored step again
    with tf.Graph().as_default():
        train_op, loss, w = linear_model()
        with caplog.at_level(logging.INFO, logger="estimator_npu"):
            with H.MonitoredTrainingSession(
                    checkpoint_dir=model_dir, save_checkpoint_steps=4,
                    hooks=[H.StopAtStepHook(num_steps=3)]) as sess:
                assert sess.current_global_step == 10
                raw = sess.run(w)
                np.testing.assert_array_equal(raw, w_trained)
                while not sess.should_stop():
                    sess.run(train_op)
    assert "Restoring parameters from" in caplog.text
    assert "Saving checkpoints for 10 " in caplog.text
    assert checkpoint_steps(model_dir) == [0, 4, 8, 10, 13]  # 10 re-saved; max_to_keep=5


def test_keep_checkpoint_max_counts_checkpoints_of_earlier_runs(tmp_path):
    model_dir = str(tmp_path)
    for _ in range(2):
        with tf.Graph().as_default():
            train_op, _, _ = linear_model()
            scaffold = H.Scaffold(saver=tf.train.Saver(max_to_keep=3))
            with H.MonitoredTrainingSession(
                    checkpoint_dir=model_dir, scaffold=scaffold, save_checkpoint_steps=1,
                    save_summaries_steps=0, log_step_count_steps=0,
                    hooks=[H.StopAtStepHook(num_steps=3)]) as sess:
                while not sess.should_stop():
                    sess.run(train_op)
    assert checkpoint_steps(model_dir) == [4, 5, 6]


def test_defaults_of_monitored_training_session(tmp_path):
    with tf.Graph().as_default():
        linear_model()
        sess = H.MonitoredTrainingSession(checkpoint_dir=str(tmp_path))
        kinds = {type(h).__name__: h for h in sess.hooks}
        assert set(kinds) == {"StepCounterHook", "SummarySaverHook", "CheckpointSaverHook"}
        assert kinds["CheckpointSaverHook"].timer.every_secs == 600
        assert kinds["SummarySaverHook"].timer.every_steps == 100
        sess.close()
    with tf.Graph().as_default():
        linear_model()
        sess = H.MonitoredTrainingSession(checkpoint_dir=str(tmp_path), is_chief=False,
                                                 chief_only_hooks=[H.StopAtStepHook(1)])
        assert sess.hooks == []
        sess.close()
    with tf.Graph().as_default():
        linear_model()
        sess = H.MonitoredTrainingSession()  # nothing to save to: no hooks
        assert sess.hooks == []
        sess.close()


def test_scaffold_init_fn_only_on_a_fresh_start(tmp_path):
    calls = []
    for _ in range(2):
        with tf.Graph().as_default():
            train_op, _, w = linear_model()

            def init_fn(scaffold, session, w=w):
                calls.append(scaffold)
                w.load(np.array([[5.0]], np.float32), session)

            scaffold = H.Scaffold(init_fn=init_fn)
            with H.SingularMonitoredSession(
                    scaffold=scaffold, checkpoint_dir=str(tmp_path),
                    hooks=[H.CheckpointSaverHook(str(tmp_path), save_steps=100,
                                                 scaffold=scaffold)]) as sess:
                assert isinstance(sess.raw_session(), tf.Session)
                value = sess.run(w).item()
        assert value == 5.0
    assert len(calls) == 1 and isinstance(calls[0], H.Scaffold)


def test_not_ready_model_names_the_variables():
    with tf.Graph().as_default():
        a = tf.Variable(1.0, name="a")
        tf.Variable(2.0, name="b")
        scaffold = H.Scaffold(init_op=a.initializer)
        with pytest.raises(RuntimeError, match="still uninitialized: b"):
            H.MonitoredSession(H.ChiefSessionCreator(scaffold=scaffold))


def test_graph_is_finalized_and_local_variables_initialized():
    with tf.Graph().as_default() as g:
        counter = tf.Variable(0.0, name="counter", trainable=False,
                              collections=[tf.GraphKeys.LOCAL_VARIABLES])
        bump = tf.assign_add(counter, 1.0)
        with H.MonitoredSession() as sess:
            assert g.finalized
            assert sess.run(bump) == 1.0
            with pytest.raises(RuntimeError, match="finalized"):
                tf.constant(1.0)
