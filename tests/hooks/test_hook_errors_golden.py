"""When a monitored session or ``Estimator.train`` ends with an exception, hooks get no
``end()`` (only our ``on_error``), so there is no final checkpoint; end of input and
``close()`` end normally; the events written so far reach the disk when the writers close
or the process exits. As TF 2.15 does; goldens: tools/record_hook_error_goldens.py
(scenarios in hook_error_cases.py)."""
import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import estimator_npu as tf

HERE = pathlib.Path(__file__).resolve().parent
GOLDEN = json.loads((HERE / "golden" / "hook_errors_tf215.json").read_text())["cases"]
_spec = importlib.util.spec_from_file_location("hook_error_cases", HERE / "hook_error_cases.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)


@pytest.fixture(scope="module")
def ours(tmp_path_factory):
    return cases.run_all(tf, str(tmp_path_factory.mktemp("hook_errors")))


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_scenario_matches_tf(ours, name):
    assert ours[name] == GOLDEN[name], name


def test_golden_covers_the_scenarios(ours):
    assert set(ours) == set(GOLDEN) == {fn.__name__ for fn in cases.SCENARIOS}
    # the golden itself says what TF does: no end() and no final checkpoint on an error
    assert not any(call[1] == "end" for call in GOLDEN["estimator_hook_raises"]["calls"])
    assert GOLDEN["estimator_hook_raises"]["files"]["checkpoints"] == ["model.ckpt-0"]
    assert GOLDEN["estimator_normal_end"]["files"]["checkpoints"] == ["model.ckpt-0",
                                                                      "model.ckpt-3"]


def test_on_error_replaces_end():
    calls = []

    class Hook(tf.train.SessionRunHook):
        def on_error(self, session, error):
            calls.append(("on_error", type(error).__name__, session is not None))

        def end(self, session):
            calls.append(("end",))

    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        y = x * 2.0
        with pytest.raises(ValueError, match="boom"):
            with tf.train.MonitoredSession(hooks=[Hook()]) as sess:
                assert sess.run(y, {x: 1.0}) == 2.0
                raise ValueError("boom")
    assert calls == [("on_error", "ValueError", True)]


def test_events_of_a_failed_script_reach_the_disk_at_exit(tmp_path):
    # no end() flushes the summary writer after the error: the exit does, as in TF
    script = tmp_path / "fails.py"
    script.write_text(textwrap.dedent(f"""
        import estimator_npu as tf
        step = tf.train.get_or_create_global_step()
        w = tf.Variable(1.0)
        tf.summary.scalar("loss", tf.square(w))
        op = tf.train.GradientDescentOptimizer(0.1).minimize(tf.square(w), global_step=step)
        with tf.train.MonitoredTrainingSession(
                checkpoint_dir={str(tmp_path / "run")!r}, save_checkpoint_steps=100,
                save_summaries_steps=1, log_step_count_steps=1000) as sess:
            for _ in range(3):
                sess.run(op)
            raise SystemExit(3)
    """))
    root = str(HERE.parents[1])
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 3, proc.stderr
    files = cases._dir_contents(tf, str(tmp_path / "run"))
    assert files == GOLDEN["training_session_files"]["files"]
