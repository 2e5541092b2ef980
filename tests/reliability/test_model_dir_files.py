"""One trainer per model_dir, and clean files (issue 17): the lock refuses a second trainer
at once and is taken over from a killed one; a kill -9 mid-save leaves no temp files after
the next start; rotation removes every file; disk-full and permission errors name the file
and say the previous checkpoint is intact."""
import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.train import model_dir_lock, recovery

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TRAINER = textwrap.dedent("""
    import json, logging, os, sys, time
    import numpy as np
    import estimator_npu as tf

    model_dir, max_steps, sleep, kill_at = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), \\
        int(sys.argv[4])
    X = np.ones((8, 3), np.float32)
    logging.basicConfig(level=logging.WARNING)

    def input_fn():
        return tf.data.Dataset.from_tensors((X, X[:, :1])).repeat()

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [3, 1])
        tf.get_variable("big", [256, 256], trainable=False)  # a save takes a moment
        loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - labels))
        train_op = tf.train.GradientDescentOptimizer(0.01).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    if kill_at >= 0:   # kill -9 in the middle of the save of step kill_at
        real_replace = os.replace
        def replace(src, dst):
            if dst.endswith("model.ckpt-%d.data-00000-of-00001" % kill_at):
                os.kill(os.getpid(), 9)
            return real_replace(src, dst)
        os.replace = replace

    class Slow(tf.train.SessionRunHook):
        def after_run(self, run_context, run_values):
            time.sleep(sleep)

    config = tf.estimator.RunConfig(save_checkpoints_steps=5, save_summary_steps=0,
                                    log_step_count_steps=0)
    est = tf.estimator.Estimator(model_fn, model_dir, config)
    t0 = time.time()
    try:
        est.train(input_fn, max_steps=max_steps, hooks=[Slow()])
    except RuntimeError as e:
        print(json.dumps({"error": type(e).__name__, "message": str(e),
                          "seconds": time.time() - t0}))
        sys.exit(3)
    print(json.dumps({"ok": True}))
""")


@pytest.fixture
def trainer(tmp_path):
    path = tmp_path / "trainer.py"
    path.write_text(TRAINER)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))

    def start(model_dir, max_steps, sleep=0.0, kill_at=-1):
        return subprocess.Popen([sys.executable, str(path), str(model_dir), str(max_steps),
                                 str(sleep), str(kill_at)], cwd=ROOT, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return start


def _wait_for(predicate, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_second_trainer_is_refused_at_once(trainer, tmp_path):
    model_dir = tmp_path / "m"
    lock = model_dir / model_dir_lock.LOCK_NAME
    first = trainer(model_dir, 10_000, sleep=0.05)
    try:
        assert _wait_for(lambda: lock.exists() and lock.read_text()), "first never locked"
        second = trainer(model_dir, 10_000)
        out, err = second.communicate(timeout=120)
        assert second.returncode == 3, err
        report = json.loads(out.strip().splitlines()[-1])
        assert report["error"] == "ModelDirLockedError"
        assert report["seconds"] < 1.0, report
        msg = report["message"]
        assert str(model_dir) in msg and f"pid {first.pid}" in msg
        assert "host" in msg and "started" in msg
        assert first.poll() is None, "the first trainer must keep running"
    finally:
        first.kill()
        first.communicate()


def test_stale_lock_of_killed_trainer_is_taken_over(trainer, tmp_path):
    model_dir = tmp_path / "m"
    lock = model_dir / model_dir_lock.LOCK_NAME
    first = trainer(model_dir, 10_000, sleep=0.05)
    assert _wait_for(lambda: lock.exists() and lock.read_text())
    first.send_signal(signal.SIGKILL)
    first.communicate()
    assert lock.exists()                       # left behind by the killed process
    second = trainer(model_dir, 12)
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    assert "Taking over the lock" in err and f"pid {first.pid}" in err
    assert not lock.exists()                   # released at the end of training


def test_kill_during_save_leaves_no_temp_files_after_restart(trainer, tmp_path):
    model_dir = tmp_path / "m"
    proc = trainer(model_dir, 40, kill_at=10)
    proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL
    left = recovery.temp_files(str(model_dir))
    assert left and all(".tmp" in os.path.basename(p) for p in left), os.listdir(model_dir)
    proc = trainer(model_dir, 12)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert recovery.temp_files(str(model_dir)) == []
    assert not any(".tmp" in name for name in os.listdir(model_dir)), os.listdir(model_dir)
    assert int(tf.train.load_variable(str(model_dir), "global_step")) == 12


HOLDER = textwrap.dedent("""
    import sys, time
    from estimator_npu.train import model_dir_lock
    model_dir_lock.acquire(sys.argv[1])
    print("locked", flush=True)
    time.sleep(120)
""")


def _linear_model_fn(features, labels, mode):
    w = tf.get_variable("w", [3, 1])
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"y": tf.matmul(features, w)})
    loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - labels))
    train_op = tf.train.GradientDescentOptimizer(0.01).minimize(
        loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def test_only_training_takes_the_lock(tmp_path):
    """While another process holds the lock, evaluate/predict and a non-chief session
    work; train and a chief MonitoredTrainingSession are refused."""
    model_dir = str(tmp_path / "m")
    X = np.ones((4, 3), np.float32)
    est = tf.estimator.Estimator(_linear_model_fn, model_dir)
    est.train(lambda: tf.data.Dataset.from_tensors((X, X[:, :1])), max_steps=2)
    script = tmp_path / "holder.py"
    script.write_text(HOLDER)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    holder = subprocess.Popen([sys.executable, str(script), model_dir], env=env,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        result = est.evaluate(lambda: tf.data.Dataset.from_tensors((X, X[:, :1])), steps=1)
        assert result["global_step"] == 1
        preds = list(est.predict(lambda: tf.data.Dataset.from_tensors((X, X[:, :1]))))
        assert len(preds) == 4
        with pytest.raises(model_dir_lock.ModelDirLockedError, match=f"pid {holder.pid}"):
            est.train(lambda: tf.data.Dataset.from_tensors((X, X[:, :1])), max_steps=4)
        with tf.Graph().as_default():
            tf.train.get_or_create_global_step()
            tf.get_variable("w", [3, 1])
            with tf.train.MonitoredTrainingSession(is_chief=False,
                                                   checkpoint_dir=model_dir) as sess:
                assert not sess.should_stop()
            with pytest.raises(model_dir_lock.ModelDirLockedError, match=model_dir):
                tf.train.MonitoredTrainingSession(checkpoint_dir=model_dir)
        assert int(tf.train.load_variable(model_dir, "global_step")) == 1
    finally:
        holder.kill()
        holder.communicate()


# ------------------------------------------------------------------ Saver-level files
def _session_with(shape=(4,)):
    graph = tf.Graph()
    with graph.as_default():
        v = tf.Variable(np.zeros(shape, np.float32), name="v")
        saver = tf.train.Saver(max_to_keep=2)
        sess = tf.Session(graph=graph)
        sess.run(v.initializer)
    return graph, sess, saver


def test_rotation_removes_every_file_of_a_checkpoint(tmp_path):
    graph, sess, saver = _session_with()
    prefix = str(tmp_path / "model.ckpt")
    first = saver.save(sess, prefix, global_step=1)
    # extra files of the same checkpoint: another data shard and a meta of an older format
    extra = [first + ".data-00001-of-00002", first + ".meta"]
    for p in extra:
        open(p, "ab").close()
    saver.save(sess, prefix, global_step=2)
    saver.save(sess, prefix, global_step=3)
    assert recovery.checkpoint_files(first) == []
    assert not any(n.startswith("model.ckpt-1.") for n in os.listdir(tmp_path))


def test_save_removes_temp_files_of_an_interrupted_save(tmp_path):
    graph, sess, saver = _session_with()
    stale = [tmp_path / "model.ckpt-5.data-00000-of-00001.tmpab12cd",
             tmp_path / "model.ckpt-5.index.tmpq9", tmp_path / "checkpoint.tmpzz"]
    for p in stale:
        p.write_bytes(b"x" * 100)
    keep = tmp_path / "notes.tmp.txt"
    keep.write_text("user file")
    saver.save(sess, str(tmp_path / "model.ckpt"), global_step=6)
    assert not any(p.exists() for p in stale)
    assert keep.exists()


def test_permission_error_names_file_and_previous_checkpoint(tmp_path, monkeypatch):
    graph, sess, saver = _session_with()
    prefix = str(tmp_path / "model.ckpt")
    good = saver.save(sess, prefix, global_step=1)
    real = os.replace

    def deny(src, dst):
        raise PermissionError(errno.EACCES, "Permission denied", dst)
    monkeypatch.setattr(os, "replace", deny)
    with pytest.raises(PermissionError) as info:
        saver.save(sess, prefix, global_step=2)
    monkeypatch.setattr(os, "replace", real)
    msg = str(info.value)
    assert "model.ckpt-2.data-00000-of-00001" in msg and "Permission denied" in msg
    assert f"previous checkpoint {good} is intact" in msg
    recovery.verify_checkpoint(good)
    assert tf.train.latest_checkpoint(str(tmp_path)) == good
    assert recovery.temp_files(str(tmp_path)) == []


def test_save_into_a_path_whose_parent_is_a_file(tmp_path):
    graph, sess, saver = _session_with()
    (tmp_path / "afile").write_text("x")
    with pytest.raises(ValueError, match="which is a file, not a directory"):
        saver.save(sess, str(tmp_path / "afile" / "model.ckpt"))


def _mount_tmpfs(size_kb):
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None, "not root: cannot mount a tmpfs"
    if shutil.which("mount") is None:
        return None, "no mount command"
    path = tempfile.mkdtemp(prefix="enpu_tmpfs_")
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kb}k", "tmpfs", path],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        os.rmdir(path)
        return None, f"mounting a tmpfs is not allowed here: {proc.stderr.strip()}"
    return path, None


def test_disk_full_names_file_and_previous_checkpoint():
    path, why = _mount_tmpfs(1024)
    if path is None:
        print(f"SKIP reason: {why}")
        pytest.skip(why)
    try:
        graph, sess, saver = _session_with((300, 256))    # ~300 KB per checkpoint
        saver = tf.train.Saver(var_list=graph.get_collection("variables"), max_to_keep=None)
        prefix = os.path.join(path, "model.ckpt")
        saved = []
        with pytest.raises(OSError) as info:
            for step in range(1, 20):
                saved.append(saver.save(sess, prefix, global_step=step))
        assert info.value.errno == errno.ENOSPC
        msg = str(info.value)
        assert "No space left on device" in msg
        assert f"model.ckpt-{len(saved) + 1}" in msg
        assert f"previous checkpoint {saved[-1]} is intact" in msg
        recovery.verify_checkpoint(saved[-1])
        assert tf.train.latest_checkpoint(path) == saved[-1]
        assert recovery.temp_files(path) == []
    finally:
        subprocess.run(["umount", path], check=False)
        os.rmdir(path)


def test_leftovers_of_an_interrupted_rotation_are_removed_at_start(tmp_path):
    """A kill inside a rotation (the index goes first) leaves data/meta/state files of a
    rotated-out checkpoint: the next training start removes them."""
    model_dir = str(tmp_path / "m")
    X = np.ones((4, 3), np.float32)
    config = tf.estimator.RunConfig(save_checkpoints_steps=2, keep_checkpoint_max=2,
                                    save_summary_steps=0, log_step_count_steps=0)
    est = tf.estimator.Estimator(_linear_model_fn, model_dir, config)
    est.train(lambda: tf.data.Dataset.from_tensors((X, X[:, :1])).repeat(), max_steps=6)
    # what a kill in the middle of rotating out step 2 would leave
    for name in ("model.ckpt-2.data-00000-of-00001", "model.ckpt-2.meta",
                 ".model.ckpt-2.input_state"):
        open(os.path.join(model_dir, name), "wb").close()
    est.train(lambda: tf.data.Dataset.from_tensors((X, X[:, :1])).repeat(), max_steps=8)
    assert not any(n.startswith(("model.ckpt-2.", ".model.ckpt-2.")) for n in
                   os.listdir(model_dir)), os.listdir(model_dir)
