"""Crash safety (SPEC §9): SIGKILL a training process at several moments, resume, and
reach the same final weights as an uninterrupted run (full-batch input, Adam)."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np

import estimator_npu as tf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_STEPS = 120

SCRIPT = textwrap.dedent(f"""
    import sys, time
    import numpy as np
    import estimator_npu as tf

    rng = np.random.default_rng(0)
    X = rng.normal(size=(32, 5)).astype(np.float32)
    Y = (X @ rng.normal(size=(5, 2)) + 0.5).astype(np.float32)

    def input_fn():
        return tf.data.Dataset.from_tensors((X, Y)).repeat()     # full batch

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [5, 2])
        b = tf.get_variable("b", [2], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(features, w) + b - labels))
        train_op = tf.train.AdamOptimizer(0.05).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    class Slow(tf.estimator.SessionRunHook):     # so that kills land mid-training
        def after_run(self, run_context, run_values):
            time.sleep(float(sys.argv[2]))

    config = tf.estimator.RunConfig(tf_random_seed=42, save_checkpoints_steps=4,
                                    keep_checkpoint_max=3, save_summary_steps=0,
                                    log_step_count_steps=0)
    est = tf.estimator.Estimator(model_fn, sys.argv[1], config)
    est.train(input_fn, max_steps={MAX_STEPS}, hooks=[Slow()])
""")


def start(script, model_dir, sleep):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    log = open(script + ".log", "w")
    try:
        return subprocess.Popen([sys.executable, script, model_dir, str(sleep)], env=env,
                                stdout=subprocess.DEVNULL, stderr=log)
    finally:
        log.close()   # the child has its own copy


def finish(proc, script, timeout=60):
    """Waits for a normal exit; fails with the child's stderr otherwise."""
    code = proc.wait(timeout=timeout)
    with open(script + ".log") as f:
        assert code == 0, f.read()


def saved_step(model_dir):
    path = tf.train.latest_checkpoint(model_dir)
    return -1 if path is None else int(path.rsplit("-", 1)[1])


def final_weights(model_dir):
    return {n: tf.train.load_variable(model_dir, n) for n in ("w", "b", "global_step")}


def test_sigkill_at_several_moments_then_resume(tmp_path):
    script = str(tmp_path / "train_script.py")
    with open(script, "w") as f:
        f.write(SCRIPT)
    reference = str(tmp_path / "reference")
    finish(start(script, reference, 0.0), script)

    rng = np.random.default_rng(2024)
    crashed = str(tmp_path / "crashed")
    kills = []
    for _ in range(4):
        before = saved_step(crashed)
        proc = start(script, crashed, 0.004)
        deadline = time.monotonic() + 60
        # wait until this run has written a checkpoint of its own, then kill it at a
        # random moment (mid-step, mid-save, between saves...)
        while saved_step(crashed) <= before and proc.poll() is None:
            assert time.monotonic() < deadline, "no checkpoint appeared"
            time.sleep(0.005)
        time.sleep(rng.uniform(0.0, 0.08))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
            kills.append(saved_step(crashed))
        else:
            finish(proc, script)
    print("killed after checkpoints", kills)
    assert len(kills) >= 2 and all(0 <= k < MAX_STEPS for k in kills), kills
    assert kills == sorted(kills) and len(set(kills)) == len(kills)   # progress each time

    finish(start(script, crashed, 0.0), script)   # resume to the end

    want, got = final_weights(reference), final_weights(crashed)
    assert int(got["global_step"]) == int(want["global_step"]) == MAX_STEPS
    for name in ("w", "b"):
        rel = np.linalg.norm(got[name] - want[name]) / np.linalg.norm(want[name])
        assert rel < 1e-5, (name, rel)
