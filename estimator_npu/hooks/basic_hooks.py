"""The built-in hooks of TF1's ``basic_session_run_hooks``, with loop-aware timing.

Every periodic hook takes its interval from a ``SecondOrStepTimer`` (``timer.py``) and
applies TF's rule: fire on the first call, then at the first step at least N after the
previous event (or N seconds). Hooks evaluate it once per host call, with the true global
step after the call (``run_values.global_step``; the variable is read only when a driver
does not provide it), so a call that runs ``k`` steps is seen as exactly that.

A hook that needs values of the run (``SummarySaverHook``) decides before the call
whether to ask for them, from the call's expected end step ``step +
run_context.iterations_per_loop``, and then records them at the true step (a loop whose
steps were skipped by a loss-scale overflow ends earlier). ``LoggingTensorHook`` counts
its own iterations as TF's does (the steps its calls ran).

They all keep the default priority, so they run in the order they are given, as in TF
(``MonitoredTrainingSession`` and ``Estimator.train`` give them in TF's order: the
checkpoint saver, step counter and summary saver before the caller's hooks, so a
``global_step/sec`` line comes before the ``loss = ...`` line of the same step).
"""
import numpy as np

from estimator_npu import errors
from estimator_npu.engine.graph import get_default_graph
from estimator_npu.hooks import summary_io
from estimator_npu.hooks.session_run_hook import SessionRunArgs, SessionRunHook, as_step_tensor
from estimator_npu.hooks.timer import NeverTriggerTimer, SecondOrStepTimer
from estimator_npu.utils import logging, validation


class NanLossDuringTrainingError(RuntimeError):
    """Raised by ``NanTensorHook`` when the loss becomes NaN."""

    def __str__(self):
        return "NaN loss during training."


def step_after_run(run_context, run_values, step_tensor):
    """The authoritative global step after a call (read from the session if not given)."""
    if run_values.global_step is not None:
        return run_values.global_step
    return int(run_context.session.run(step_tensor))


def _read_step(session, step_tensor):
    return int(session.run(step_tensor))


def _make_timer(timer, every_secs, every_steps, what):
    if timer is not None:
        return validation.check_type("timer", timer, SecondOrStepTimer)
    if (every_secs is None) == (every_steps is None):
        raise ValueError(f"Exactly one of {what} must be provided, got "
                         f"{every_secs!r} and {every_steps!r}")
    return SecondOrStepTimer(every_secs=every_secs, every_steps=every_steps)


class StepCounterHook(SessionRunHook):
    """Logs (and writes as a summary) the training speed ``global_step/sec``.

    The rate is the true one: global steps advanced divided by the seconds elapsed between
    two events, however many steps each host call ran. The first event sets the baseline.
    """

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None,
                 summary_writer=None, *, timer=None):
        self._timer = _make_timer(timer, every_n_secs, every_n_steps,
                                  "every_n_secs and every_n_steps")
        self._output_dir = output_dir
        self._summary_writer = summary_writer

    @property
    def timer(self):
        return self._timer

    def begin(self):
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = summary_io.writer_for(self._output_dir)
        self._step_tensor = as_step_tensor(get_default_graph(), "StepCounterHook")
        self._summary_tag = self._step_tensor.op.name + "/sec"
        self._timer.reset()

    def after_run(self, run_context, run_values):
        step = step_after_run(run_context, run_values, self._step_tensor)
        if not self._timer.should_trigger_for_step(step):
            return
        elapsed_secs, elapsed_steps = self._timer.update_last_triggered_step(step)
        if elapsed_secs is not None and elapsed_secs > 0:
            rate = elapsed_steps / elapsed_secs
            logging.info("%s: %g", self._summary_tag, rate)
            if self._summary_writer is not None:
                summary_io.write_scalars(self._summary_writer, {self._summary_tag: rate}, step)

    def end(self, session):
        if self._summary_writer is not None:
            self._summary_writer.flush()


class LoggingTensorHook(SessionRunHook):
    """Logs the values of ``tensors`` every ``every_n_iter`` steps or ``every_n_secs``.

    Args:
        tensors: a dict ``{tag: tensor or name}`` (logged in sorted tag order) or a list
            of tensors/names (logged in that order, tagged with their names).
        every_n_iter: an interval in this hook's own iterations (the steps its calls ran:
            one per call without a device loop), as TF's.
        every_n_secs: a time interval.
        at_end: also log at the end (alone: only at the end).
        formatter: ``f(dict of tag -> value) -> str``.
    """

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False,
                 formatter=None, *, timer=None):
        only_at_end = at_end and every_n_iter is None and every_n_secs is None
        if timer is None and not only_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError("either at_end and/or exactly one of every_n_iter and "
                             f"every_n_secs must be provided, got every_n_iter={every_n_iter!r}"
                             f", every_n_secs={every_n_secs!r}, at_end={at_end!r}")
        if every_n_iter is not None:
            validation.check_positive_int("every_n_iter", every_n_iter)
        if not isinstance(tensors, dict):
            tensors = {getattr(item, "name", item): item for item in tensors}
            self._tag_order = list(tensors)
        else:
            self._tag_order = sorted(tensors)
        self._tensors = tensors
        self._timer = timer or (NeverTriggerTimer() if only_at_end else SecondOrStepTimer(
            every_secs=every_n_secs, every_steps=every_n_iter))
        self._log_at_end = at_end
        self._formatter = formatter

    @property
    def timer(self):
        return self._timer

    def begin(self):
        graph = get_default_graph()
        self._timer.reset()
        self._current = {tag: tensor_element(graph, t) for tag, t in self._tensors.items()}
        self._args = SessionRunArgs(self._current)
        self._iter_count = 0

    def before_run(self, run_context):
        # TF: the timer runs on this hook's own iteration count, not on the global step.
        self._requested = self._timer.should_trigger_for_step(self._iter_count)
        return self._args if self._requested else None

    def after_run(self, run_context, run_values):
        if self._requested:
            self._log(run_values.results)
        self._iter_count += run_values.steps_run

    def _log(self, values):
        elapsed_secs, _ = self._timer.update_last_triggered_step(self._iter_count)
        if self._formatter is not None:
            logging.info("%s", self._formatter(values))
            return
        with np.printoptions(suppress=True):
            stats = ", ".join("%s = %s" % (tag, values[tag]) for tag in self._tag_order)
        if elapsed_secs is None:
            logging.info("%s", stats)
        else:
            logging.info("%s (%.3f sec)", stats, elapsed_secs)

    def end(self, session):
        if self._log_at_end and session is not None:
            self._log(session.run(self._current))


def tensor_element(graph, obj):
    """``obj`` as the graph element a hook fetches, as TF's hooks resolve it: a name
    without ``:`` means the op's only output (``"global_step"`` is ``global_step:0``).

    Raises:
        ValueError: the named op has more than one output.
    """
    if not isinstance(obj, str):
        return graph.as_graph_element(obj)
    if ":" in obj:
        return graph.as_graph_element(obj)
    element = graph.as_graph_element(obj + ":0")
    try:
        graph.as_graph_element(obj + ":1")
    except (KeyError, ValueError):
        return element
    raise ValueError(f"Name {obj} is ambiguous, as this `Operation` has multiple outputs "
                     "(at least 2).")


class StopAtStepHook(SessionRunHook):
    """Requests a stop when the global step reaches ``last_step`` (or start + ``num_steps``).

    ``last_step`` is public after the session is created, so a driver can clamp the steps
    of its last host call to ``last_step - step``.
    """

    def __init__(self, num_steps=None, last_step=None):
        if num_steps is None and last_step is None:
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and last_step is not None:
            raise ValueError(f"Only one of num_steps or last_step can be specified, got "
                             f"num_steps={num_steps!r}, last_step={last_step!r}")
        if num_steps is not None:
            num_steps = validation.check_non_negative_int("num_steps", num_steps)
        if last_step is not None:
            last_step = validation.check_non_negative_int("last_step", last_step)
        self._num_steps = num_steps
        self.last_step = last_step

    def begin(self):
        self._step_tensor = as_step_tensor(get_default_graph(), "StopAtStepHook")

    def after_create_session(self, session, coord):
        step = _read_step(session, self._step_tensor)
        if self._num_steps is not None:
            self.last_step = step + self._num_steps
        if step >= self.last_step and coord is not None:
            coord.request_stop()

    def after_run(self, run_context, run_values):
        if step_after_run(run_context, run_values, self._step_tensor) >= self.last_step:
            run_context.request_stop()


class NanTensorHook(SessionRunHook):
    """Fails (``NanLossDuringTrainingError``) or stops when ``loss_tensor`` is NaN."""

    def __init__(self, loss_tensor, fail_on_nan_loss=True):
        self._loss_tensor = loss_tensor
        self._fail_on_nan_loss = validation.check_bool("fail_on_nan_loss", fail_on_nan_loss)
        self._args = SessionRunArgs(loss_tensor)

    def before_run(self, run_context):
        return self._args

    def after_run(self, run_context, run_values):
        if np.isnan(run_values.results):
            logging.error("Model diverged with loss = NaN.")
            if self._fail_on_nan_loss:
                raise NanLossDuringTrainingError
            run_context.request_stop()


class FeedFnHook(SessionRunHook):
    """Adds ``feed_fn()`` (a feed dict) to every run."""

    def __init__(self, feed_fn):
        self.feed_fn = validation.check_callable("feed_fn", feed_fn)

    def before_run(self, run_context):
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


class FinalOpsHook(SessionRunHook):
    """Runs ``final_ops`` when the session ends; their values are in ``final_ops_values``."""

    def __init__(self, final_ops, final_ops_feed_dict=None):
        self._final_ops = final_ops
        self._final_ops_feed_dict = final_ops_feed_dict
        self._final_ops_values = None

    @property
    def final_ops_values(self):
        return self._final_ops_values

    def end(self, session):
        if self._final_ops is None or session is None:
            return
        try:
            self._final_ops_values = session.run(self._final_ops, self._final_ops_feed_dict)
        except (errors.OutOfRangeError, StopIteration) as e:
            logging.warning("An OutOfRangeError or StopIteration was raised by the final ops "
                            "of FinalOpsHook (%s); if they read an input pipeline, make the "
                            "final ops independent of it.", e)
            raise
