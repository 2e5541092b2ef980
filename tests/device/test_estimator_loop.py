"""The Estimator with ``NPURunConfig(iterations_per_loop=N)``: host calls, clamping,
identical results for any N, hook alignment, the getNext rule and the warnings."""
import glob
import logging
import math
import os
import re

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.estimator import NPURunConfig
from estimator_npu.train import summary_writer

LOGGER = "estimator_npu"
RNG = np.random.default_rng(0)
X = RNG.random((64, 3)).astype(np.float32)
Y = X @ np.array([[1.0], [2.0], [3.0]], np.float32)


def input_fn():
    return tf.data.Dataset.from_tensor_slices((X, Y)).batch(4).repeat()


def model_fn(features, labels, mode):
    w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - labels))
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


class CallRecorder(tf.train.SessionRunHook):
    """Records, per host call, the loop size and the global step after the call."""

    def __init__(self):
        self.sizes, self.steps = [], []

    def before_run(self, run_context):
        self.sizes.append(run_context.iterations_per_loop)

    def after_run(self, run_context, run_values):
        self.steps.append(run_values.global_step)


class SaveRecorder(tf.train.CheckpointSaverListener):
    def __init__(self):
        self.steps = []

    def after_save(self, session, global_step_value):
        self.steps.append(int(global_step_value))


def _train(tmp_path, k, steps, **config):
    est = tf.estimator.Estimator(model_fn, config=NPURunConfig(
        model_dir=str(tmp_path), iterations_per_loop=k, **config))
    calls, saves = CallRecorder(), SaveRecorder()
    est.train(input_fn, steps=steps, hooks=[calls], saving_listeners=[saves])
    return est, calls, saves


@pytest.mark.parametrize("k,steps", [(1, 12), (3, 12), (5, 12), (10, 25), (4, 4)])
def test_host_calls_are_ceil_of_steps_over_n_and_the_last_loop_is_clamped(tmp_path, k, steps):
    est, calls, _ = _train(tmp_path, k, steps)
    assert len(calls.sizes) == math.ceil(steps / k)
    assert calls.sizes == [k] * (steps // k) + ([steps % k] if steps % k else [])
    assert calls.steps == [min(k * (i + 1), steps) for i in range(len(calls.steps))]
    assert est.get_variable_value("global_step") == steps


def test_same_data_and_steps_give_the_same_weights_for_any_n(tmp_path):
    weights = {}
    for k in (1, 3, 10):
        est, _, _ = _train(tmp_path / str(k), k, 25)
        weights[k] = est.get_variable_value("w")
    assert not np.allclose(weights[1], 0)
    np.testing.assert_array_equal(weights[1], weights[3])
    np.testing.assert_array_equal(weights[1], weights[10])


def test_resume_continues_with_loops_up_to_max_steps(tmp_path):
    _train(tmp_path, 4, 6)
    est, calls, _ = _train(tmp_path, 4, 5)
    assert calls.steps == [10, 11]
    est2 = tf.estimator.Estimator(model_fn, config=NPURunConfig(
        model_dir=str(tmp_path), iterations_per_loop=4))
    rec = CallRecorder()
    est2.train(input_fn, max_steps=11, hooks=[rec])   # already reached: nothing runs
    assert rec.sizes == []


def _boundaries(k, total):
    return list(range(k, total, k)) + [total]


def _tf_rule(every, boundaries, last=None):
    """TF's SecondOrStepTimer, written out independently of the library's: fire on the
    first ask (``last is None``), then at the first boundary >= last event + every."""
    fired = []
    for b in boundaries:
        if last is None or b >= last + every:
            fired.append(b)
            last = b
    return fired


def _events(model_dir):
    summary_writer.FileWriterCache.clear()
    tags = {}
    for f in glob.glob(os.path.join(model_dir, "events*")):
        for ev in summary_writer.summary_iterator(f):
            summary = getattr(ev, "summary", None)
            for v in getattr(summary, "value", []):
                tags.setdefault(v.tag, []).append(int(ev.step))
    return {t: sorted(s) for t, s in tags.items()}


GRID = [(k, intervals, total)
        for k in (1, 2, 5, 10)
        for intervals in ((10, 10, 5), (7, 3, 4))      # (ckpt, summary, log): multiples or not
        for total in (20, 23)]


@pytest.mark.parametrize("k,intervals,total", GRID)
def test_hook_alignment_grid(tmp_path, caplog, k, intervals, total):
    ckpt, summ, log = intervals
    with caplog.at_level(logging.INFO, logger=LOGGER):
        _, calls, saves = _train(tmp_path, k, total, save_checkpoints_steps=ckpt,
                                 save_summary_steps=summ, log_step_count_steps=log)
    b = _boundaries(k, total)
    assert calls.steps == b
    # the checkpoint saver: at session creation, then >= last save + ckpt, and at the end
    expected_ckpt = [0] + _tf_rule(ckpt, b, last=0)
    if expected_ckpt[-1] != total:
        expected_ckpt.append(total)
    assert saves.steps == expected_ckpt
    tags = _events(str(tmp_path))
    # summaries: the first call, then the first boundary >= last + summ
    assert tags["loss"] == _tf_rule(summ, b)
    # the step counter's first trigger only starts the clock (TF), then it reports
    assert tags["global_step/sec"] == _tf_rule(log, b)[1:]
    # loss logging counts its own iterations (steps run before each call: 0, k, 2k, ...)
    # and logs the call's end step
    counts = [0] + b[:-1]
    logged = [int(s) for s in re.findall(r"loss = [^,]+, step = (\d+)", caplog.text)]
    fired_counts = set(_tf_rule(log, counts))
    assert logged == [end for c, end in zip(counts, b) if c in fired_counts]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    for name, every, first in (("save_checkpoints_steps", ckpt, 0),
                               ("save_summary_steps", summ, None),
                               ("log_step_count_steps", log, None)):
        matching = [w for w in warnings if w.startswith(f"{name}={every} ")]
        if k > 1 and every % k:
            assert len(matching) == 1, warnings
            assert f"iterations_per_loop={k}" in matching[0]
            fired = _tf_rule(every, b, last=first)
            assert "steps " + ", ".join(str(s) for s in fired[:8]) in matching[0]
        else:
            assert not matching, warnings
    total_warning = [w for w in warnings if "not a multiple of iterations_per_loop" in w
                     and w.startswith("The number of training steps")]
    assert len(total_warning) == (1 if total % k else 0)


def test_one_shot_iterator_runs_one_step_per_call_with_a_warning(tmp_path, caplog):
    def one_shot_input_fn():
        ds = tf.data.Dataset.from_tensor_slices((X, Y)).batch(4).repeat()
        return ds.make_one_shot_iterator().get_next()
    est = tf.estimator.Estimator(model_fn, config=NPURunConfig(
        model_dir=str(tmp_path), iterations_per_loop=5))
    calls = CallRecorder()
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        est.train(one_shot_input_fn, steps=6, hooks=[calls])
    assert calls.sizes == [1] * 6
    assert any("does not take effect" in r.getMessage() and "one-shot" in r.getMessage()
               for r in caplog.records)


def test_enable_data_pre_proc_false_runs_one_step_per_call(tmp_path, caplog):
    est = tf.estimator.Estimator(model_fn, config=NPURunConfig(
        model_dir=str(tmp_path), iterations_per_loop=5, enable_data_pre_proc=False))
    calls = CallRecorder()
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        est.train(input_fn, steps=4, hooks=[calls])
    assert calls.sizes == [1] * 4
    assert any("enable_data_pre_proc" in r.getMessage() for r in caplog.records)


def test_input_ending_inside_a_loop_ends_training_after_the_last_full_step(tmp_path):
    def short_input_fn():
        return tf.data.Dataset.from_tensor_slices((X[:26], Y[:26])).batch(
            4, drop_remainder=True)          # 6 full batches
    est = tf.estimator.Estimator(model_fn, config=NPURunConfig(
        model_dir=str(tmp_path), iterations_per_loop=4))
    est.train(short_input_fn, steps=100)
    assert est.get_variable_value("global_step") == 6
    assert est.latest_checkpoint().endswith("model.ckpt-6")


def test_insert_op_log_lines_only_with_a_loop(tmp_path, caplog):
    with caplog.at_level(logging.INFO, logger=LOGGER):
        _train(tmp_path / "a", 1, 3)
    assert "Insert op success" not in caplog.text
    caplog.clear()
    with caplog.at_level(logging.INFO, logger=LOGGER):
        _train(tmp_path / "b", 3, 3)
    assert re.search(r"Insert op success, name:\S+, type:\S+\.", caplog.text)


def test_npu_run_config_defaults_validation_and_session_config():
    from estimator_npu.engine.config_pb import npu_settings
    c = NPURunConfig()
    assert (c.iterations_per_loop, c.save_summary_steps, c.save_checkpoints_steps,
            c.save_checkpoints_secs, c.log_step_count_steps, c.keep_checkpoint_max) == \
        (1, 0, 100, None, 100, 5)
    c = NPURunConfig(iterations_per_loop=10, precision_mode="allow_mix_precision",
                     save_checkpoints_secs=30)
    assert (c.save_checkpoints_steps, c.save_checkpoints_secs) == (None, 30)
    s = npu_settings(c.session_config)
    assert s["iterations_per_loop"] == 10 and s["precision_mode"] == "allow_mix_precision"
    assert s["mix_compile_mode"] is False and s["enable_data_pre_proc"] is True
    with pytest.raises(TypeError, match="iterations_per_loop"):
        NPURunConfig(iterations_per_loop=2.0)
    with pytest.raises(ValueError, match="iterations_per_loop"):
        NPURunConfig(iterations_per_loop=0)
    with pytest.raises(TypeError, match="mix_compile_mode"):
        NPURunConfig(mix_compile_mode="yes")
    with pytest.raises(ValueError, match="mix_compile_mode.*iterations_per_loop|"
                                         "iterations_per_loop.*mix_compile_mode"):
        NPURunConfig(mix_compile_mode=True, iterations_per_loop=10)
    with pytest.raises(ValueError, match="save_checkpoints_steps.*save_checkpoints_secs"):
        NPURunConfig(save_checkpoints_steps=10, save_checkpoints_secs=10)
    with pytest.raises(ValueError, match="precision_mode"):
        NPURunConfig(precision_mode="fp8")


def test_npu_optimizer_tailing_must_match_the_run_config(tmp_path):
    from estimator_npu.npu import NPUOptimizer

    def tailing_model_fn(features, labels, mode):
        w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - labels))
        opt = NPUOptimizer(tf.train.GradientDescentOptimizer(0.1), is_distributed=True,
                           is_tailing_optimization=True)
        train_op = opt.minimize(loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    est = tf.estimator.Estimator(tailing_model_fn, config=NPURunConfig(
        model_dir=str(tmp_path / "off"), is_tailing_optimization=False))
    with pytest.raises(ValueError, match="is_tailing_optimization"):
        est.train(input_fn, steps=1)
    est = tf.estimator.Estimator(tailing_model_fn, config=NPURunConfig(
        model_dir=str(tmp_path / "on"), is_tailing_optimization=True))
    est.train(input_fn, steps=2)
    assert est.get_variable_value("global_step") == 2


# ------------------------------------------------------------------ overflow-skipped steps
OVERFLOW_BATCHES = {2, 3, 11}          # batch indices (of 16, repeated) whose gradients overflow
X_OF = X.copy()
Y_OF = Y.copy()
for _b in OVERFLOW_BATCHES:
    X_OF[4 * _b:4 * _b + 4] *= 1e9
    Y_OF[4 * _b:4 * _b + 4] *= 1e9


def overflow_input_fn():
    return tf.data.Dataset.from_tensor_slices((X_OF, Y_OF)).batch(4).repeat()


def loss_scaled_model_fn(features, labels, mode):
    from estimator_npu.npu import FixedLossScaleManager, NPULossScaleOptimizer
    w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - labels))
    # scaled gradients of the 1e9 batches overflow float32 (the loss itself stays finite)
    opt = NPULossScaleOptimizer(tf.train.GradientDescentOptimizer(0.01),
                                FixedLossScaleManager(1e30))
    train_op = opt.minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _boundaries_with_skips(k, total):
    """Global steps after each host call when some iterations are skipped."""
    out, step, i = [], 0, 0
    while step < total:
        for _ in range(min(k, total - step)):
            if i % 16 not in OVERFLOW_BATCHES:
                step += 1
            i += 1
        out.append(step)
    return out


@pytest.mark.parametrize("k", [1, 2, 5, 10])
@pytest.mark.parametrize("intervals", [(10, 10, 5), (7, 3, 4)])
def test_hook_alignment_grid_with_overflow_skipped_steps(tmp_path, caplog, k, intervals):
    ckpt, summ, log = intervals
    total = 20
    est = tf.estimator.Estimator(loss_scaled_model_fn, config=NPURunConfig(
        model_dir=str(tmp_path), iterations_per_loop=k, save_checkpoints_steps=ckpt,
        save_summary_steps=summ, log_step_count_steps=log))
    calls, saves = CallRecorder(), SaveRecorder()
    with caplog.at_level(logging.INFO, logger=LOGGER):
        est.train(overflow_input_fn, steps=total, hooks=[calls], saving_listeners=[saves])
    b = _boundaries_with_skips(k, total)
    assert calls.steps == b                          # skipped iterations do not count
    assert est.get_variable_value("global_step") == total
    expected_ckpt = [0] + _tf_rule(ckpt, b, last=0)
    if expected_ckpt[-1] != total:
        expected_ckpt.append(total)
    assert saves.steps == expected_ckpt
    tags = _events(str(tmp_path))
    # each call asks for k_i = min(k, steps left) steps; the summary hook decides before
    # the call from the expected end step and writes at the true (skip-shortened) step
    starts = [0] + b[:-1]
    asked = [min(k, total - p) for p in starts]
    expected_summ, last = [], None
    for p, k_i, end in zip(starts, asked, b):
        if last is None or p + k_i >= last + summ:
            expected_summ.append(end)
            last = end
    assert tags["loss"] == expected_summ
    assert tags["global_step/sec"] == _tf_rule(log, b)[1:]
    # loss logging counts the iterations its calls ran (skipped ones included)
    counts = [sum(asked[:i]) for i in range(len(asked))]
    fired_counts = set(_tf_rule(log, counts))
    logged = [int(s) for s in re.findall(r"loss = [^,]+, step = (\d+)", caplog.text)]
    assert logged == [end for c, end in zip(counts, b) if c in fired_counts]


class AccountRecorder(tf.train.SessionRunHook):
    """Reads the session's StepAccount through run_context.steps."""

    def __init__(self):
        self.seen = []

    def after_run(self, run_context, run_values):
        a = run_context.steps
        self.seen.append((a.start_step, a.last_step, a.iterations_per_loop, a.call_steps,
                          a.global_step, a.calls, run_context.iterations_per_loop))


def test_one_step_account_owns_start_last_k_and_each_calls_k_i(tmp_path):
    est = tf.estimator.Estimator(model_fn, config=NPURunConfig(
        model_dir=str(tmp_path), iterations_per_loop=4))
    est.train(input_fn, steps=3)                      # resume from 3 below
    rec = AccountRecorder()
    est.train(input_fn, max_steps=13, hooks=[rec])
    # after_run sees the account with this call recorded; the last call's k_i is clamped
    # to the steps left (13 - 11 = 2)
    assert rec.seen == [(3, 13, 4, 4, 7, 1, 4), (3, 13, 4, 4, 11, 2, 4),
                        (3, 13, 4, 2, 13, 3, 2)]
