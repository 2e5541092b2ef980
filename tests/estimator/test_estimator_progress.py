"""Progress of train/evaluate/predict: a tqdm bar on a terminal when the step count is
known, plain log lines otherwise."""
import logging
import sys

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.hooks import progress

X = np.linspace(-1, 1, 24, dtype=np.float32).reshape(12, 2)
Y = X.sum(axis=1, keepdims=True)


def input_fn():
    return tf.data.Dataset.from_tensor_slices((X, Y)).repeat().batch(4)


def model_fn(features, labels, mode):
    w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
    pred = tf.matmul(features, w)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=pred)
    loss = tf.reduce_mean(tf.square(pred - labels))
    op = tf.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=op)


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
def bars(monkeypatch):
    FakeBar.instances = []
    monkeypatch.setattr(progress.tqdm, "tqdm", FakeBar)
    return FakeBar.instances


def test_bars_on_a_terminal(tmp_path, monkeypatch, bars, caplog):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    est = tf.estimator.Estimator(model_fn, str(tmp_path))
    est.train(input_fn, steps=10)
    est.train(input_fn, max_steps=15)
    est.train(input_fn, max_steps=15)         # already there: no bar
    est.evaluate(input_fn, steps=3)
    with caplog.at_level(logging.INFO, logger="estimator_npu"):
        preds = list(est.predict(lambda: tf.data.Dataset.from_tensor_slices(X).batch(4)))
    assert len(preds) == 12
    summary = [(b.desc, b.total, b.n, b.closed) for b in bars]
    assert summary == [("Training", 10, 10, True), ("Training", 5, 5, True),
                       ("Evaluation", 3, 3, True)]   # predict: total unknown, no bar
    assert "Training [" not in caplog.text


def test_log_lines_without_a_terminal(tmp_path, monkeypatch, bars, caplog):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    est = tf.estimator.Estimator(model_fn, str(tmp_path))
    with caplog.at_level(logging.DEBUG, logger="estimator_npu"):
        est.train(input_fn, steps=20)
        est.evaluate(input_fn, steps=10)
    assert bars == []
    msgs = [r.getMessage() for r in caplog.records]
    assert not [r for r in caplog.records
                if r.levelno >= logging.INFO and r.getMessage().startswith("Training [")]
    assert [m for m in msgs if m.startswith("Training [")] == [
        f"Training [{n}/20]" for n in range(2, 21, 2)]
    # evaluation's progress lines are TF's own (INFO, from the steps hook), once each
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.INFO
            and r.getMessage().startswith("Evaluation [")] == [
        f"Evaluation [{n}/10]" for n in range(1, 11)]
    assert [m for m in msgs if m.startswith("Evaluation [")] == [
        f"Evaluation [{n}/10]" for n in range(1, 11)]
