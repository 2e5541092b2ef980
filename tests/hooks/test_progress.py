"""ProgressHook: a tqdm bar on a terminal with a known total, log lines otherwise."""
import logging
import sys

import pytest

import estimator_npu as tf
from estimator_npu import hooks as H
from estimator_npu.hooks import progress


class FakeBar:
    instances = []

    def __init__(self, total, desc, unit, file, dynamic_ncols):
        self.total, self.desc, self.n, self.closed = total, desc, 0, False
        FakeBar.instances.append(self)

    def update(self, n):
        self.n += n

    def close(self):
        self.closed = True


@pytest.fixture
def fake_tqdm(monkeypatch):
    FakeBar.instances = []
    monkeypatch.setattr(progress.tqdm, "tqdm", FakeBar)
    return FakeBar


def run_counter(hook, calls, per_call=1):
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        step = tf.assign_add(gs, per_call)
        with H.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(calls):
                sess.run(step)


def test_bar_on_a_terminal_with_a_known_total(monkeypatch, fake_tqdm, caplog):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    hook = H.ProgressHook(total=20, desc="Training")
    with caplog.at_level(logging.INFO, logger="estimator_npu"):
        run_counter(hook, calls=5, per_call=4)
    bar, = fake_tqdm.instances
    assert (bar.total, bar.desc, bar.n, bar.closed) == (20, "Training", 20, True)
    assert "Training [" not in caplog.text


def test_log_lines_when_not_a_terminal(monkeypatch, fake_tqdm, caplog):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    with caplog.at_level(logging.DEBUG, logger="estimator_npu"):
        run_counter(H.ProgressHook(total=20, desc="Training"), calls=20)
    assert fake_tqdm.instances == []
    records = [r for r in caplog.records if r.getMessage().startswith("Training")]
    assert [r.getMessage() for r in records] == [f"Training [{n}/20]" for n in range(2, 21, 2)]
    # DEBUG: TF's INFO log has no progress lines
    assert {r.levelno for r in records} == {logging.DEBUG}


def test_log_lines_when_the_total_is_unknown(monkeypatch, fake_tqdm, caplog):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    with caplog.at_level(logging.DEBUG, logger="estimator_npu"):
        run_counter(H.ProgressHook(None, desc="Prediction", use_global_step=False,
                                   log_every_n=3), calls=7)
    assert fake_tqdm.instances == []
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Predict")]
    assert lines == ["Prediction [3]", "Prediction [6]"]


def test_real_tqdm_writes_to_stderr(monkeypatch, capsys):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    run_counter(H.ProgressHook(total=3, desc="Evaluation", use_global_step=False), calls=3)
    err = capsys.readouterr().err
    assert "Evaluation" in err and "3/3" in err


def test_progress_arguments():
    with pytest.raises(ValueError, match="total"):
        H.ProgressHook(total=-1)
    with pytest.raises(ValueError, match="log_every_n"):
        H.ProgressHook(log_every_n=0)
