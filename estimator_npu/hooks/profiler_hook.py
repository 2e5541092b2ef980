"""``ProfilerHook``: host-call timelines in Chrome trace format (``chrome://tracing``).

Every host call is timed (``before_run`` to ``after_run``); when the timer fires (as
TF's, never on the first call, then TF's rule from the second call on), the calls
since the previous file are written to ``<output_dir>/timeline-<global_step>.json`` as
complete events (``"ph": "X"``) with the global step and the steps each call ran. Unlike
TF1's hook there is no per-op device trace: a call is the unit the host sees.
"""
import json
import os
import time

from estimator_npu.engine.graph import get_default_graph
from estimator_npu.hooks.basic_hooks import _make_timer, step_after_run
from estimator_npu.hooks.session_run_hook import SessionRunHook, as_step_tensor
from estimator_npu.train.checkpoint_io import atomic_write


class ProfilerHook(SessionRunHook):
    """Writes a timeline of the host calls every ``save_steps`` steps or ``save_secs``.

    Args:
        save_steps, save_secs: exactly one of them (unless ``timer`` is given).
        output_dir: where the ``timeline-<step>.json`` files go.
        show_dataflow, show_memory: accepted for TF1 compatibility.
    """

    def __init__(self, save_steps=None, save_secs=None, output_dir="", show_dataflow=True,
                 show_memory=False, *, timer=None):
        self._timer = _make_timer(timer, save_secs, save_steps, "save_secs and save_steps")
        self._output_dir = output_dir
        self._events = []

    @property
    def timer(self):
        return self._timer

    def begin(self):
        self._step_tensor = as_step_tensor(get_default_graph(), "ProfilerHook")
        self._timer.reset()
        self._calls = 0
        os.makedirs(self._output_dir or ".", exist_ok=True)

    def before_run(self, run_context):
        self._start = time.perf_counter()

    def after_run(self, run_context, run_values):
        end = time.perf_counter()
        step = step_after_run(run_context, run_values, self._step_tensor)
        self._events.append({"name": "host call", "ph": "X", "pid": 0, "tid": 0,
                             "ts": self._start * 1e6, "dur": (end - self._start) * 1e6,
                             "args": {"global_step": step, "steps_run": run_values.steps_run}})
        self._calls += 1
        if self._calls > 1 and self._timer.should_trigger_for_step(step):
            self._timer.update_last_triggered_step(step)
            path = os.path.join(self._output_dir, f"timeline-{step}.json")
            atomic_write(path, [json.dumps({"traceEvents": self._events}).encode()])
            self._events = []
