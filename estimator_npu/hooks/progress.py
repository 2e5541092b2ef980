"""Progress of long runs: a tqdm bar on a terminal, plain log lines otherwise.

``ProgressHook(total, desc)`` shows a bar when ``sys.stderr.isatty()`` and ``total`` is
known. Otherwise it logs ``<desc> [done/total]`` at DEBUG level each time a tenth of the
total is crossed (or ``<desc> [done]`` every ``log_every_n`` steps when the total is
unknown), so a log file shows progress without a bar's control characters. DEBUG, not
INFO: TF's INFO log of a run has no such lines, and ours reads line for line as TF's.
"""
import sys

import tqdm

from estimator_npu.engine.graph import get_default_graph
from estimator_npu.hooks.session_run_hook import SessionRunHook, as_step_tensor
from estimator_npu.utils import logging, validation


def stderr_is_terminal():
    """Whether ``sys.stderr`` is attached to a terminal."""
    isatty = getattr(sys.stderr, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (ValueError, OSError):  # a closed or detached stream
        return False


class ProgressHook(SessionRunHook):
    """Reports how many steps of ``total`` have run.

    Args:
        total: the number of steps (``None`` if unknown).
        desc: the label ("Training", "Evaluation", "Prediction").
        unit: what one step is called on the bar.
        use_global_step: count global steps (training); otherwise count the steps run.
        log_every_n: without a known total, log every this many steps (``None``: never).
        log_lines: log the DEBUG lines when there is no bar (off where TF itself logs
            the progress, as evaluation's ``Evaluation [i/n]``).
    """

    def __init__(self, total=None, desc="Training", unit="step", use_global_step=True,
                 log_every_n=None, log_lines=True):
        if total is not None:
            total = validation.check_non_negative_int("total", total)
        if log_every_n is not None:
            log_every_n = validation.check_positive_int("log_every_n", log_every_n)
        self.total = total
        self.desc = desc
        self.unit = unit
        self.use_global_step = use_global_step
        self.log_every_n = log_every_n
        self.log_lines = log_lines
        self.bar = None
        self.done = 0

    def begin(self):
        self._step_tensor = (as_step_tensor(get_default_graph(), "ProgressHook")
                             if self.use_global_step else None)
        self._use_bar = self.total is not None and stderr_is_terminal()
        if self.total is not None:
            self._every = max(1, self.total // 10)
        else:
            self._every = self.log_every_n

    def after_create_session(self, session, coord):
        self._start = int(session.run(self._step_tensor)) if self._step_tensor is not None else 0
        self.done = 0
        if self._use_bar:
            self.bar = tqdm.tqdm(total=self.total, desc=self.desc, unit=self.unit,
                                 file=sys.stderr, dynamic_ncols=True)

    def after_run(self, run_context, run_values):
        before = self.done
        if self._step_tensor is not None and run_values.global_step is not None:
            self.done = run_values.global_step - self._start
        else:
            self.done += run_values.steps_run
        if self.bar is not None:
            self.bar.update(self.done - before)
        elif self.log_lines and self._every is not None and \
                before // self._every != self.done // self._every:
            self._log()

    def _log(self):
        if self.total is None:
            logging.debug("%s [%d]", self.desc, self.done)
        else:
            logging.debug("%s [%d/%d]", self.desc, self.done, self.total)

    def end(self, session):
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def on_error(self, session, error):
        self.end(session)  # the session calls no end() after an error: close the bar anyway
