"""Exact resume with shuffled mini-batch input (issue 17, beyond TF1): kill -9 a training
process at 3 random moments, resume each time, and reach the weights of an uninterrupted
run; with ``RunConfig(exact_input_resume=False)`` (TF1: the input restarts) they differ."""
import logging
import os
import random
import re
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import estimator_npu as tf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_STEPS = 90

SCRIPT = textwrap.dedent(f"""
    import sys, time
    import numpy as np
    import estimator_npu as tf
    from estimator_npu import npu

    model_dir, sleep, exact, loop = sys.argv[1], float(sys.argv[2]), sys.argv[3] == "1", \\
        int(sys.argv[4])
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 5)).astype(np.float32)
    Y = (X @ rng.normal(size=(5, 2)) + 0.5).astype(np.float32)

    def input_fn():
        # unseeded shuffle: its order comes from fresh entropy, saved with the checkpoint
        ds = tf.data.Dataset.from_tensor_slices((X, Y)).shuffle(40).repeat()
        return ds.shuffle(7, seed=3).batch(6, drop_remainder=True)

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [5, 2])
        b = tf.get_variable("b", [2], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(features, w) + b - labels))
        train_op = tf.train.AdamOptimizer(0.05).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    class Slow(tf.estimator.SessionRunHook):
        def after_run(self, run_context, run_values):
            time.sleep(sleep)

    config = npu.NPURunConfig(tf_random_seed=42, save_checkpoints_steps=6,
                              iterations_per_loop=loop, keep_checkpoint_max=3,
                              save_summary_steps=0, log_step_count_steps=0,
                              exact_input_resume=exact)
    est = npu.NPUEstimator(model_fn, model_dir=model_dir, config=config)
    est.train(input_fn, max_steps={MAX_STEPS}, hooks=[Slow()])
""")


def _start(script, model_dir, sleep, exact, loop):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen([sys.executable, script, model_dir, str(sleep),
                             "1" if exact else "0", str(loop)], env=env, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _finish(proc):
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-3000:]


def _saved_step(model_dir):
    try:
        path = tf.train.latest_checkpoint(model_dir)
    except ValueError:
        return -1
    return -1 if path is None else int(path.rsplit("-", 1)[1])


def _weights(model_dir):
    return {n: tf.train.load_variable(model_dir, n) for n in ("w", "b", "global_step")}


def _killed_run(script, model_dir, exact, loop, rng):
    moments = []
    for _ in range(3):
        before = _saved_step(model_dir)
        proc = _start(script, model_dir, 0.03, exact, loop)
        # wait for a new checkpoint, then kill at a random moment after it
        end = time.time() + 120
        while _saved_step(model_dir) <= before and proc.poll() is None and time.time() < end:
            time.sleep(0.02)
        delay = rng.uniform(0.0, 0.4)
        time.sleep(delay)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.communicate()
        moments.append((_saved_step(model_dir), round(delay, 3)))
    print(f"kill moments (last saved step, delay after it in s): {moments}")
    assert any(s < MAX_STEPS for s, _ in moments), "every kill came after the end"
    _finish(_start(script, model_dir, 0.0, exact, loop))
    return _weights(model_dir)


@pytest.mark.parametrize("loop", [1, 3])
def test_kill_and_resume_with_shuffled_input_matches_uninterrupted(tmp_path, loop):
    script = str(tmp_path / "train.py")
    with open(script, "w") as f:
        f.write(SCRIPT)
    reference_dir = str(tmp_path / "reference")
    _finish(_start(script, reference_dir, 0.0, True, loop))
    reference = _weights(reference_dir)
    seed = random.SystemRandom().randrange(2**32)
    print(f"random seed of the kill moments: {seed}")
    resumed = _killed_run(script, str(tmp_path / "killed"), True, loop, random.Random(seed))
    assert int(resumed["global_step"]) == MAX_STEPS
    killed_dir = str(tmp_path / "killed")
    for name in os.listdir(killed_dir):        # no file of a rotated-out checkpoint is left
        m = re.match(r"^\.?(model\.ckpt-\d+)\.(index|meta|data-.*|input_state)$", name)
        if m:
            assert os.path.exists(os.path.join(killed_dir, m.group(1) + ".index")), name
    for name in ("w", "b"):
        err = np.max(np.abs(resumed[name] - reference[name])) / np.max(np.abs(reference[name]))
        assert err < 1e-6, (name, err)
    # TF1's behaviour (the input restarts on resume) does not reach the same weights
    tf1 = _killed_run(script, str(tmp_path / "tf1"), False, loop, random.Random(seed))
    assert int(tf1["global_step"]) == MAX_STEPS
    assert not np.allclose(tf1["w"], reference["w"], rtol=1e-6, atol=0)


def _pipeline(kind="same"):
    ds = tf.data.Dataset.range(20).shuffle(20).repeat()     # unseeded: fresh entropy
    if kind == "changed":
        ds = ds.map(lambda x: x * 2)
    return ds.batch(3)


def _session(model_dir, kind="same"):
    step = tf.train.get_or_create_global_step()
    it = _pipeline(kind).make_initializable_iterator()
    batch = it.get_next()
    scaffold = tf.train.Scaffold(local_init_op=tf.group(it.initializer,
                                                        tf.local_variables_initializer()))
    sess = tf.train.MonitoredTrainingSession(checkpoint_dir=model_dir, scaffold=scaffold,
                                             save_checkpoint_secs=None,
                                             save_summaries_steps=None)
    return sess, batch, step, scaffold


def _die(sess):
    """Ends a monitored session as a crash would (no final save, state kept)."""
    sess._close_internal(RuntimeError("killed"))


def test_unseeded_shuffle_resumes_from_saved_entropy_and_position(tmp_path):
    model_dir = str(tmp_path)
    with tf.Graph().as_default():
        sess, batch, step, scaffold = _session(model_dir)
        before = [sess.run(batch).tolist() for _ in range(12)]   # into the 2nd epoch
        scaffold.saver.save(sess._sess, os.path.join(model_dir, "model.ckpt"), global_step=5)
        after = [sess.run(batch).tolist() for _ in range(5)]     # lost by the "crash"
        _die(sess)
    path = os.path.join(model_dir, ".model.ckpt-5.input_state")
    assert os.path.exists(path)
    with tf.Graph().as_default():
        sess, batch, step, _ = _session(model_dir)
        resumed = [sess.run(batch).tolist() for _ in range(5)]
        _die(sess)
    assert resumed == after                   # the same stream, from the saved position
    with tf.Graph().as_default():             # a normal end: the next run starts afresh
        sess, batch, step, _ = _session(model_dir)
        with sess:
            sess.run(batch)
    assert not os.path.exists(path)


def test_changed_pipeline_restarts_with_a_warning(tmp_path, caplog):
    model_dir = str(tmp_path)
    with tf.Graph().as_default():
        sess, batch, step, scaffold = _session(model_dir)
        sess.run(batch)
        scaffold.saver.save(sess._sess, os.path.join(model_dir, "model.ckpt"), global_step=1)
        _die(sess)
    with tf.Graph().as_default():
        with caplog.at_level(logging.WARNING, logger="estimator_npu"):
            sess, batch, step, _ = _session(model_dir, "changed")
            sess.run(batch)
            _die(sess)
    assert "differs from the one saved with the checkpoint" in caplog.text
    assert "restarts from its beginning" in caplog.text


def test_completed_train_call_restarts_its_input_as_tf1(tmp_path):
    X = np.arange(16, dtype=np.float32).reshape(8, 2)

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [2, 1])
        loss = tf.reduce_mean(tf.matmul(features, w))
        train_op = tf.train.GradientDescentOptimizer(0.01).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    est = tf.estimator.Estimator(model_fn, str(tmp_path), tf.estimator.RunConfig(
        save_checkpoints_steps=2, save_summary_steps=0, log_step_count_steps=0))
    est.train(lambda: tf.data.Dataset.from_tensor_slices(X).batch(2))     # 4 batches
    est.train(lambda: tf.data.Dataset.from_tensor_slices(X).batch(2))     # 4 more
    assert int(est.get_variable_value("global_step")) == 8
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".input_state") and
                "-8." in n]
