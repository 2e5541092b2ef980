"""What hooks see, and what lands in model_dir, when a monitored session or
``Estimator.train`` ends with an exception; built by both frameworks (real TF through
``tools/record_hook_error_goldens.py``, ours in ``test_hook_errors_golden.py``).

Each scenario returns the hook calls (``begin``, ``after_create_session``, ``after_run``
with the step, ``end``), the exception that came out, the checkpoints in the directory and
the events written (summary tags and session-log statuses by step), read after closing
the cached summary writers."""
import glob
import os

import numpy as np


def _recorder(tf, log, name, fail_at=None):
    class Recorder(tf.train.SessionRunHook):
        def begin(self):
            log.append([name, "begin"])

        def after_create_session(self, session, coord):
            log.append([name, "after_create_session"])

        def before_run(self, run_context):
            return tf.train.SessionRunArgs(tf.train.get_global_step())

        def after_run(self, run_context, run_values):
            step = int(run_values.results)
            log.append([name, "after_run", step])
            if fail_at is not None and step >= fail_at:
                raise ValueError(f"hook {name} fails at step {step}")

        def end(self, session):
            log.append([name, "end"])
    return Recorder()


def _dir_contents(tf, model_dir):
    # the events as they are once the writers are closed (as at the end of the process:
    # TF's are buffered until then when no end() flushed them)
    tf.summary.FileWriterCache.clear()
    ckpts = sorted(os.path.basename(p)[:-len(".index")]
                   for p in glob.glob(os.path.join(model_dir, "*.index")))
    events = []
    for path in sorted(glob.glob(os.path.join(model_dir, "**", "events.out.tfevents.*"),
                                 recursive=True)):
        sub = os.path.relpath(os.path.dirname(path), model_dir)
        for ev in tf.train.summary_iterator(path):
            if ev.HasField("summary"):
                tags = sorted(v.tag for v in ev.summary.value
                              if not v.tag.startswith("enqueue_input"))
                if tags:
                    events.append([sub, int(ev.step), "summary"] + tags)
            elif ev.HasField("session_log"):
                events.append([sub, int(ev.step), "session_log", int(ev.session_log.status)])
    return {"checkpoints": ckpts, "events": sorted(events)}


def _train_graph(tf):
    step = tf.train.get_or_create_global_step()
    w = tf.Variable(1.0, name="w")
    loss = tf.square(w)
    tf.summary.scalar("loss", loss)
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    return train_op


def _catch(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception type is the record
        return type(e).__name__
    return None


def monitored_session_raise_in_block(tf, tmp):
    log = []
    with tf.Graph().as_default():
        train_op = _train_graph(tf)

        def body():
            with tf.train.MonitoredSession(hooks=[_recorder(tf, log, "a"),
                                                  _recorder(tf, log, "b")]) as sess:
                for _ in range(2):
                    sess.run(train_op)
                raise ValueError("user code fails")
        return {"calls": log, "error": _catch(body)}


def monitored_session_hook_raises(tf, tmp):
    log = []
    with tf.Graph().as_default():
        train_op = _train_graph(tf)

        def body():
            with tf.train.MonitoredSession(hooks=[_recorder(tf, log, "a", fail_at=2),
                                                  _recorder(tf, log, "b")]) as sess:
                while not sess.should_stop():
                    sess.run(train_op)
        return {"calls": log, "error": _catch(body)}


def monitored_session_op_fails(tf, tmp):
    log = []
    with tf.Graph().as_default():
        train_op = _train_graph(tf)
        flag = tf.placeholder(tf.float32, [])
        checked = tf.debugging.check_numerics(tf.log(flag), "bad value")

        def body():
            with tf.train.MonitoredSession(hooks=[_recorder(tf, log, "a")]) as sess:
                sess.run(train_op)
                sess.run([train_op, checked], {flag: 1.0})
                sess.run([train_op, checked], {flag: -1.0})
        return {"calls": log, "error": _catch(body)}


def monitored_session_end_of_input(tf, tmp):
    log = []
    with tf.Graph().as_default():
        train_op = _train_graph(tf)

        def body():
            with tf.train.MonitoredSession(hooks=[_recorder(tf, log, "a")]) as sess:
                sess.run(train_op)
                raise tf.errors.OutOfRangeError(None, None, "end of input")
        return {"calls": log, "error": _catch(body)}


def monitored_session_close_after_error(tf, tmp):
    log = []
    with tf.Graph().as_default():
        train_op = _train_graph(tf)
        flag = tf.placeholder(tf.float32, [])
        checked = tf.debugging.check_numerics(tf.log(flag), "bad value")
        sess = tf.train.MonitoredSession(hooks=[_recorder(tf, log, "a")])
        error = _catch(lambda: sess.run([train_op, checked], {flag: -1.0}))
        sess.close()
        return {"calls": log, "error": error}


def training_session_files(tf, tmp):
    log = []
    model_dir = os.path.join(tmp, "mts")
    with tf.Graph().as_default():
        train_op = _train_graph(tf)

        def body():
            with tf.train.MonitoredTrainingSession(
                    checkpoint_dir=model_dir, save_checkpoint_steps=100,
                    save_summaries_steps=1, log_step_count_steps=1000,
                    hooks=[_recorder(tf, log, "a")]) as sess:
                for _ in range(3):
                    sess.run(train_op)
                raise ValueError("user code fails")
        error = _catch(body)
    return {"calls": log, "error": error, "files": _dir_contents(tf, model_dir)}


def training_session_files_normal_end(tf, tmp):
    log = []
    model_dir = os.path.join(tmp, "mts_ok")
    with tf.Graph().as_default():
        train_op = _train_graph(tf)
        with tf.train.MonitoredTrainingSession(
                checkpoint_dir=model_dir, save_checkpoint_steps=100,
                save_summaries_steps=1, log_step_count_steps=1000,
                hooks=[_recorder(tf, log, "a")]) as sess:
            for _ in range(3):
                sess.run(train_op)
    return {"calls": log, "error": None, "files": _dir_contents(tf, model_dir)}


def _model_fn(tf, nan_at=None):
    def model_fn(features, labels, mode):
        step = tf.train.get_global_step()
        w = tf.get_variable("w", [1, 1], initializer=tf.ones_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - labels))
        if nan_at is not None:
            loss = tf.where(step >= nan_at, loss * np.nan, loss)
        train_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss, global_step=step)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    return model_fn


def _input_fn(tf):
    def input_fn():
        x = np.ones((4, 1), np.float32)
        return tf.data.Dataset.from_tensor_slices((x, 2 * x)).repeat().batch(2)
    return input_fn


def estimator_hook_raises(tf, tmp):
    log = []
    model_dir = os.path.join(tmp, "est_hook")
    config = tf.estimator.RunConfig(save_checkpoints_steps=100, save_summary_steps=1,
                                    log_step_count_steps=1000)
    est = tf.estimator.Estimator(_model_fn(tf), model_dir=model_dir, config=config)
    error = _catch(lambda: est.train(_input_fn(tf), steps=10,
                                     hooks=[_recorder(tf, log, "a", fail_at=3)]))
    return {"calls": log, "error": error, "files": _dir_contents(tf, model_dir)}


def estimator_nan_loss(tf, tmp):
    log = []
    model_dir = os.path.join(tmp, "est_nan")
    config = tf.estimator.RunConfig(save_checkpoints_steps=100, save_summary_steps=1,
                                    log_step_count_steps=1000)
    est = tf.estimator.Estimator(_model_fn(tf, nan_at=4), model_dir=model_dir,
                                 config=config)
    error = _catch(lambda: est.train(_input_fn(tf), steps=10,
                                     hooks=[_recorder(tf, log, "a")]))
    return {"calls": log, "error": error, "files": _dir_contents(tf, model_dir)}


def estimator_normal_end(tf, tmp):
    log = []
    model_dir = os.path.join(tmp, "est_ok")
    config = tf.estimator.RunConfig(save_checkpoints_steps=100, save_summary_steps=1,
                                    log_step_count_steps=1000)
    est = tf.estimator.Estimator(_model_fn(tf), model_dir=model_dir, config=config)
    est.train(_input_fn(tf), steps=3, hooks=[_recorder(tf, log, "a")])
    return {"calls": log, "error": None, "files": _dir_contents(tf, model_dir)}


SCENARIOS = [monitored_session_raise_in_block, monitored_session_hook_raises,
             monitored_session_op_fails, monitored_session_end_of_input,
             monitored_session_close_after_error, training_session_files,
             training_session_files_normal_end, estimator_hook_raises, estimator_nan_loss,
             estimator_normal_end]


def run_all(tf, tmp):
    """Returns ``{scenario: record}``; ``tmp`` is an empty directory."""
    return {fn.__name__: fn(tf, tmp) for fn in SCENARIOS}
