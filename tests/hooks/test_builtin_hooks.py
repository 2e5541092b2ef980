"""Built-in hooks against a fake step source: no model, no real session.

``StepSource`` drives hooks through their lifecycle the way a monitored session does,
with a chosen global step after each host call (``steps_run`` steps per call, some of
which may be "skipped", e.g. by a loss-scale overflow) and chosen fetched values.
"""
import json
import logging

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import hooks as H
from estimator_npu.utils import nest


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


class FakeSession:
    """Answers ``run`` with the current global step and preset values."""

    def __init__(self, step_tensor):
        self.step_tensor = step_tensor
        self.step = 0
        self.values = {}
        self.feeds = []

    def run(self, fetches, feed_dict=None, options=None):
        self.feeds.append(feed_dict)
        return nest.map_structure(
            lambda f: self.step if f is self.step_tensor else self.values[f], fetches)


class FakeCoord:
    def __init__(self):
        self.stop = False

    def request_stop(self):
        self.stop = True


class StepSource:
    def __init__(self, hooks, start=0):
        self.hooks = H.sort_hooks(hooks)
        for hook in self.hooks:
            hook.begin()
        self.session = FakeSession(tf.convert_to_tensor(tf.train.get_global_step()))
        self.session.step = start
        self.coord = FakeCoord()
        for hook in self.hooks:
            hook.after_create_session(self.session, self.coord)
        self.requests = []

    def call(self, steps=1, skipped=0, values=None, give_step=True):
        """One host call of ``steps`` iterations, ``skipped`` of which do not count."""
        self.session.values.update(values or {})
        context = H.SessionRunContext(H.SessionRunArgs(None), self.session, steps)
        requests = [hook.before_run(context) for hook in self.hooks]
        self.requests.append(requests)
        self.session.step += steps - skipped
        for hook, request in zip(self.hooks, requests):
            results = None if request is None or request.fetches is None else \
                self.session.run(request.fetches)
            hook.after_run(context, H.SessionRunValues(
                results, global_step=self.session.step if give_step else None,
                steps_run=steps - skipped))
        return context.stop_requested

    def end(self, error=None):
        """Closes as a monitored session does: ``end``, or only ``on_error`` (as TF, no
        ``end``) when closing because of ``error``."""
        for hook in self.hooks:
            if error is not None:
                hook.on_error(self.session, error)
            else:
                hook.end(self.session)


@pytest.fixture
def graph():
    with tf.Graph().as_default() as g:
        tf.train.get_or_create_global_step()
        yield g


class FakeSaver:
    def __init__(self):
        self.saves = []

    def save(self, sess, path, global_step):
        self.saves.append(global_step)
        return f"{path}-{global_step}"


class FakeWriter:
    def __init__(self):
        self.summaries = []
        self.session_logs = []
        self.flushes = 0

    def add_summary(self, summary, step):
        self.summaries.append((summary, step))

    def add_session_log(self, log, step):
        self.session_logs.append((log.status, step))

    def flush(self):
        self.flushes += 1


# ------------------------------------------------------------------ checkpoints
@pytest.mark.parametrize("every,loop,total,expected", [
    (10, 1, 25, [0, 10, 20, 25]),            # TF1: start, every 10, end
    (10, 3, 27, [0, 12, 24, 27]),            # k=3: first boundary >= last save + 10
    (10, 5, 30, [0, 10, 20, 30]),            # a multiple of the loop: exact; end saved
    (4, 10, 30, [0, 10, 20, 30]),            # interval below the loop: every boundary
])
def test_checkpoint_saver_timing(graph, tmp_path, every, loop, total, expected):
    saver = FakeSaver()
    hook = H.CheckpointSaverHook(str(tmp_path), save_steps=every, saver=saver)
    src = StepSource([hook])
    while src.session.step < total:
        src.call(min(loop, total - src.session.step))
    src.end()
    assert saver.saves == expected


def test_checkpoint_saver_listeners_and_stop(graph, tmp_path):
    events = []

    class Listener(H.CheckpointSaverListener):
        def begin(self):
            events.append("begin")

        def before_save(self, session, step):
            events.append(("before", step))

        def after_save(self, session, step):
            events.append(("after", step))
            return step >= 4

        def end(self, session, step):
            events.append(("end", step))

    saver = FakeSaver()
    hook = H.CheckpointSaverHook(str(tmp_path), save_steps=2, saver=saver,
                                 listeners=[Listener()])
    src = StepSource([hook])
    stops = [src.call() for _ in range(4)]
    src.end()
    assert stops == [False, False, False, True]
    assert events == ["begin", ("before", 0), ("after", 0), ("before", 2), ("after", 2),
                      ("before", 4), ("after", 4), ("end", 4)]


def test_checkpoint_saver_does_not_save_after_an_error(graph, tmp_path):
    saver = FakeSaver()
    src = StepSource([H.CheckpointSaverHook(str(tmp_path), save_steps=100, saver=saver)])
    src.call()
    src.end(error=ValueError("boom"))
    assert saver.saves == [0]


def test_checkpoint_saver_seconds(graph, tmp_path):
    clock = FakeClock()
    saver = FakeSaver()
    timer = H.SecondOrStepTimer(every_secs=60, clock=clock)
    src = StepSource([H.CheckpointSaverHook(str(tmp_path), saver=saver, timer=timer)])
    src.call()
    clock.now += 59
    src.call()
    clock.now += 1
    src.call()
    src.end()
    assert saver.saves == [0, 3]


def test_checkpoint_saver_arguments(graph, tmp_path):
    with pytest.raises(ValueError, match="both saver and scaffold"):
        H.CheckpointSaverHook(str(tmp_path), save_steps=1, saver=FakeSaver(),
                              scaffold=H.Scaffold())
    with pytest.raises(ValueError, match="Exactly one of save_secs and save_steps"):
        H.CheckpointSaverHook(str(tmp_path))
    with pytest.raises(ValueError, match="Exactly one of save_secs and save_steps"):
        H.CheckpointSaverHook(str(tmp_path), save_secs=1, save_steps=1)
    with pytest.raises(TypeError, match="checkpoint_dir"):
        H.CheckpointSaverHook(None, save_steps=1)
    hook = H.CheckpointSaverHook(str(tmp_path), save_steps=1)
    with pytest.raises(RuntimeError, match="No items in collection"):
        StepSource([hook])


def test_hooks_need_a_global_step(tmp_path):
    with tf.Graph().as_default():
        for hook in (H.CheckpointSaverHook(str(tmp_path), save_steps=1),
                     H.StepCounterHook(), H.StopAtStepHook(1),
                     H.SummarySaverHook(save_steps=1, summary_op=tf.constant("x"))):
            with pytest.raises(RuntimeError, match="Global step should be created to use "
                                                   + type(hook).__name__):
                hook.begin()


# ------------------------------------------------------------------ summaries
def test_summary_saver_asks_only_when_the_call_will_be_due(graph):
    summary = tf.placeholder(tf.string, [], name="summary")
    writer = FakeWriter()
    hook = H.SummarySaverHook(save_steps=10, summary_writer=writer, summary_op=summary)
    src = StepSource([hook])
    for _ in range(8):
        src.call(3, values={summary: "s"})
    src.end()
    # TF's rule at the boundaries 3, 6, 9, ...: the first call, then >= last + 10
    assert [step for _, step in writer.summaries] == [3, 15]
    asked = [reqs[0] is not None for reqs in src.requests]
    assert asked == [True, False, False, False, True, False, False, False]
    assert writer.session_logs == [(1, 3)]  # SessionLog.START at the first step
    assert writer.flushes == 1


def test_summary_saver_moves_the_event_when_steps_are_skipped(graph):
    summary = tf.placeholder(tf.string, [], name="summary")
    writer = FakeWriter()
    src = StepSource([H.SummarySaverHook(save_steps=5, summary_writer=writer,
                                         summary_op=[summary])])
    src.session.values[summary] = "s"
    src.call(5)             # 5: first event
    src.call(5, skipped=2)  # asked (5 + 5 = 10 is due) but only reached 8: written at 8
    src.call(5)             # 13 >= 8 + 5
    src.call(5)             # 18 >= 13 + 5
    assert [step for _, step in writer.summaries] == [5, 8, 13, 18]


def test_summary_saver_arguments():
    with pytest.raises(ValueError, match="Exactly one of scaffold or summary_op"):
        H.SummarySaverHook(save_steps=1)
    with pytest.raises(ValueError, match="Exactly one of scaffold or summary_op"):
        H.SummarySaverHook(save_steps=1, scaffold=H.Scaffold(), summary_op="x")


# ------------------------------------------------------------------ step counter
def test_step_counter_reports_the_true_rate(graph, caplog):
    clock = FakeClock()
    writer = FakeWriter()
    hook = H.StepCounterHook(summary_writer=writer,
                             timer=H.SecondOrStepTimer(every_steps=10, clock=clock))
    src = StepSource([hook])
    with caplog.at_level(logging.INFO, logger="estimator_npu"):
        for _ in range(6):
            clock.now += 0.5       # each host call runs 5 steps in 0.5 s: 10 steps/sec
            src.call(5)
    lines = [r.getMessage() for r in caplog.records if "global_step/sec" in r.getMessage()]
    # the first call (step 5) sets the baseline; then >= last + 10: 15, 25
    assert lines == ["global_step/sec: 10"] * 2
    assert [step for _, step in writer.summaries] == [15, 25]
    value = writer.summaries[0][0].value[0]
    assert (value.tag, value.simple_value) == ("global_step/sec", 10.0)


def test_step_counter_arguments():
    with pytest.raises(ValueError, match="every_n_secs and every_n_steps"):
        H.StepCounterHook(every_n_steps=None)
    with pytest.raises(ValueError, match="every_n_secs and every_n_steps"):
        H.StepCounterHook(every_n_steps=10, every_n_secs=5)


# ------------------------------------------------------------------ logging
def test_logging_tensor_hook_steps(graph, caplog):
    loss = tf.placeholder(tf.float32, [], name="loss")
    hook = H.LoggingTensorHook({"loss": loss, "step": tf.train.get_global_step()},
                               every_n_iter=10)
    src = StepSource([hook])
    with caplog.at_level(logging.INFO, logger="estimator_npu"):
        for i in range(10):
            src.call(4, values={loss: np.float32(i)})
    msgs = [r.getMessage().split(" (")[0] for r in caplog.records]
    # its own iteration count before each call: 0, 4, 8, ...; fires at 0, 12, 24, 36
    assert msgs == ["loss = 0.0, step = 4", "loss = 3.0, step = 16", "loss = 6.0, step = 28",
                    "loss = 9.0, step = 40"]
    asked = [reqs[0] is not None for reqs in src.requests]
    assert asked == [True, False, False, True, False, False, True, False, False, True]


def test_logging_tensor_hook_formatter_at_end_and_list(graph, caplog):
    a = tf.placeholder(tf.float32, [], name="a")
    b = tf.placeholder(tf.float32, [], name="b")
    only_end = H.LoggingTensorHook([b, a], at_end=True)
    fmt = H.LoggingTensorHook({"a": a}, every_n_iter=2,
                              formatter=lambda v: "A is %.1f" % v["a"])
    src = StepSource([only_end, fmt])
    with caplog.at_level(logging.INFO, logger="estimator_npu"):
        for i in range(3):
            src.call(values={a: float(i), b: 10.0 + i})
        src.end()
    msgs = [r.getMessage() for r in caplog.records]
    assert msgs == ["A is 0.0", "A is 2.0", "b:0 = 12.0, a:0 = 2.0"]


def test_logging_tensor_hook_without_global_step_counts_steps(caplog):
    with tf.Graph().as_default():
        x = tf.constant(3.0, name="x")
        hook = H.LoggingTensorHook([x], every_n_iter=4)
        with caplog.at_level(logging.INFO, logger="estimator_npu"):
            with H.MonitoredSession(hooks=[hook]) as sess:
                for _ in range(9):
                    sess.run(x)
    assert len([r for r in caplog.records if r.getMessage().startswith("x:0 = 3.0")]) == 3


def test_logging_tensor_hook_arguments():
    with pytest.raises(ValueError, match="exactly one of every_n_iter and every_n_secs"):
        H.LoggingTensorHook(["x"])
    with pytest.raises(ValueError, match="exactly one of every_n_iter and every_n_secs"):
        H.LoggingTensorHook(["x"], every_n_iter=1, every_n_secs=1)
    with pytest.raises(ValueError, match="every_n_iter"):
        H.LoggingTensorHook(["x"], every_n_iter=0)


# ------------------------------------------------------------------ stop at step
def test_stop_at_step_relative_and_absolute(graph):
    src = StepSource([H.StopAtStepHook(num_steps=10)], start=5)
    assert src.hooks[0].last_step == 15
    stops = [src.call(4) for _ in range(3)]
    assert stops == [False, False, True]     # 9, 13, 17 >= 15
    src = StepSource([H.StopAtStepHook(last_step=6)])
    assert [src.call(2) for _ in range(3)] == [False, False, True]


def test_stop_at_step_already_reached_stops_before_running(graph):
    src = StepSource([H.StopAtStepHook(last_step=5)], start=5)
    assert src.coord.stop


def test_stop_at_step_reads_the_step_when_not_given(graph):
    src = StepSource([H.StopAtStepHook(last_step=2)])
    assert [src.call(give_step=False) for _ in range(2)] == [False, True]


def test_stop_at_step_arguments():
    with pytest.raises(ValueError, match="One of num_steps or last_step"):
        H.StopAtStepHook()
    with pytest.raises(ValueError, match="Only one of num_steps or last_step"):
        H.StopAtStepHook(num_steps=1, last_step=2)
    with pytest.raises(ValueError, match="num_steps"):
        H.StopAtStepHook(num_steps=-1)


# ------------------------------------------------------------------ NaN, final ops, feeds
def test_nan_tensor_hook(graph, caplog):
    loss = tf.placeholder(tf.float32, [], name="loss")
    src = StepSource([H.NanTensorHook(loss)])
    assert not src.call(values={loss: 1.0})
    with pytest.raises(H.NanLossDuringTrainingError, match="NaN loss during training."):
        src.call(values={loss: float("nan")})
    src = StepSource([H.NanTensorHook(loss, fail_on_nan_loss=False)])
    with caplog.at_level(logging.ERROR, logger="estimator_npu"):
        assert src.call(values={loss: float("nan")})
    assert "Model diverged with loss = NaN." in caplog.text
    assert tf.estimator.NanLossDuringTrainingError is H.NanLossDuringTrainingError


def test_final_ops_hook(graph):
    x = tf.placeholder(tf.float32, [], name="x")
    hook = H.FinalOpsHook({"x": x})
    src = StepSource([hook])
    src.session.values[x] = 7.0
    src.call()
    assert hook.final_ops_values is None
    src.end()
    assert hook.final_ops_values == {"x": 7.0}
    hook = H.FinalOpsHook([x])
    src = StepSource([hook])
    src.session.values[x] = 1.0
    src.end(error=RuntimeError("x"))
    assert hook.final_ops_values is None


def test_feed_fn_hook(graph):
    x = tf.placeholder(tf.float32, [], name="x")
    counter = iter(range(10))
    src = StepSource([H.FeedFnHook(lambda: {x: next(counter)})])
    src.call()
    src.call()
    assert [r[0].feed_dict for r in src.requests] == [{x: 0}, {x: 1}]
    with pytest.raises(TypeError, match="feed_fn"):
        H.FeedFnHook(None)


def test_profiler_hook_writes_timelines(graph, tmp_path):
    hook = H.ProfilerHook(save_steps=4, output_dir=str(tmp_path))
    src = StepSource([hook])
    for _ in range(5):
        src.call(2)
    files = sorted(p.name for p in tmp_path.iterdir())
    # as TF's: not on the first call, then the rule: 4, then >= 4 + 4
    assert files == ["timeline-4.json", "timeline-8.json"]
    events = json.loads((tmp_path / "timeline-8.json").read_text())["traceEvents"]
    assert [e["args"] for e in events] == [{"global_step": 6, "steps_run": 2},
                                           {"global_step": 8, "steps_run": 2}]
    assert all(e["ph"] == "X" and e["dur"] >= 0 for e in events)
    assert tf.train.ProfilerHook is H.ProfilerHook
