"""The ``SessionRunHook`` protocol: code that runs around every ``MonitoredSession.run``.

A monitored session drives its hooks through a small, fixed lifecycle::

    for hook in hooks: hook.begin()                      # the graph can still change
    session = create_session()                           # graph finalized, vars restored
    for hook in hooks: hook.after_create_session(session, coord)
    while not stop_requested:
        args = [hook.before_run(run_context) for hook in hooks]   # extra fetches/feeds
        results, steps_run = runner(session, fetches + args, feeds)  # one host call
        for hook in hooks: hook.after_run(run_context, run_values)  # skipped if it raised
    if closing because of an error:                      # not end of input
        for hook in hooks: hook.on_error(session, error)  # and no end(), as in TF
    else:
        for hook in hooks: hook.end(session)

Hooks run in a defined order: by ``priority`` (``PRIORITY_WRITER`` hooks, which change
feeds or model state, first; ``PRIORITY_EDITOR`` hooks, which judge a step and may stop or
fail it, next; ``PRIORITY_READER`` hooks, which only observe, last), and in the order they
were given within one priority.

One host call may run several training steps (the device loop, ``iterations_per_loop``).
Hooks therefore learn the loop size from ``run_context.iterations_per_loop`` and the
authoritative global step after the call from ``run_values.global_step``, with
``run_values.steps_run`` telling how many steps the call actually ran.
"""
import collections

from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.train.training_util import get_global_step

PRIORITY_WRITER = 300
PRIORITY_EDITOR = 200
PRIORITY_READER = 100


class SessionRunHook:
    """Base class of hooks; every method is optional (the defaults do nothing)."""

    priority = PRIORITY_READER

    def begin(self):
        """Called once before the session is created; the graph may still be changed."""

    def after_create_session(self, session, coord):
        """Called once the session exists (variables initialized or restored).

        Args:
            session: the raw ``Session``.
            coord: the monitored session's ``Coordinator``.
        """

    def before_run(self, run_context):
        """Called before each host call; may return ``SessionRunArgs`` to add fetches/feeds.

        Args:
            run_context: a ``SessionRunContext``.

        Returns:
            ``None`` or a ``SessionRunArgs``.
        """
        return None

    def after_run(self, run_context, run_values):
        """Called after each successful host call (not when the call raised).

        Args:
            run_context: the ``SessionRunContext`` given to ``before_run``.
            run_values: a ``SessionRunValues`` holding this hook's fetched results.
        """

    def on_error(self, session, error):
        """Called for every hook, instead of ``end``, when the monitored session closes
        because of ``error`` (TF skips ``end`` then and has no such call); for releasing
        what ``end`` would have released. End of input is not an error.
        """

    def end(self, session):
        """Called once when the monitored session closes normally (a stop request, end of
        input, ``close()``); not when it closes because of an error, as in TF."""


class SessionRunArgs(collections.namedtuple("SessionRunArgs",
                                            ["fetches", "feed_dict", "options"])):
    """What a hook adds to the next run: ``fetches`` (any nesting), ``feed_dict``."""

    __slots__ = ()

    def __new__(cls, fetches, feed_dict=None, options=None):
        return super().__new__(cls, fetches, feed_dict, options)


class SessionRunValues(collections.namedtuple(
        "SessionRunValues", ["results", "options", "run_metadata", "global_step",
                             "steps_run"])):
    """The outcome of one host call, as one hook sees it.

    Attributes:
        results: the values of this hook's ``SessionRunArgs.fetches`` (``None`` if none).
        options, run_metadata: as given to ``run``.
        global_step: the global step after the call (``None`` when the graph has none).
        steps_run: how many training steps the call ran (``1`` without a device loop).
    """

    __slots__ = ()

    def __new__(cls, results, options=None, run_metadata=None, global_step=None,
                steps_run=1):
        return super().__new__(cls, results, options, run_metadata, global_step, steps_run)


class StepAccount:
    """The one owner of step accounting of a monitored session (``session.steps``, and
    ``run_context.steps`` in hooks).

    Attributes:
        start_step: the global step when the session was created (``None`` without one).
        global_step: the global step after the last call.
        last_step: the step training stops at (``None``: until a stop or end of input);
            set once, by the driver, from the ``StopAtStepHook`` that decides it.
        iterations_per_loop: ``k``, the steps one host call is asked to run at most.
        call_steps: ``k_i``, the steps asked of the current (or last) call: ``k``, clamped
            to ``last_step - global_step`` so the last loop never overshoots.
        calls: how many host calls ran.
    """

    __slots__ = ("start_step", "global_step", "last_step", "iterations_per_loop",
                 "call_steps", "calls")

    def __init__(self, start_step=None, iterations_per_loop=1, last_step=None):
        self.start_step = start_step
        self.global_step = start_step
        self.last_step = last_step
        self.iterations_per_loop = iterations_per_loop
        self.call_steps = iterations_per_loop
        self.calls = 0

    def next_call_steps(self):
        """``k_i`` for the next call (and records it as ``call_steps``)."""
        k = self.iterations_per_loop
        if self.last_step is not None and self.global_step is not None:
            k = max(1, min(k, self.last_step - self.global_step))
        self.call_steps = k
        return k

    def record(self, global_step):
        """Notes the end of a call at ``global_step``."""
        self.calls += 1
        if global_step is not None:
            self.global_step = global_step

    def __repr__(self):
        return (f"StepAccount(start_step={self.start_step}, global_step={self.global_step}, "
                f"last_step={self.last_step}, iterations_per_loop={self.iterations_per_loop},"
                f" call_steps={self.call_steps}, calls={self.calls})")


class SessionRunContext:
    """The context of one ``MonitoredSession.run`` call.

    Attributes:
        original_args: the caller's ``SessionRunArgs``.
        session: the raw session the call runs in.
        iterations_per_loop: how many training steps the call is asked to run (the device
            loop's count for this call, after clamping to the steps left).
        steps: the monitored session's ``StepAccount`` (start, last and current step,
            ``k`` and this call's ``k_i``), or ``None`` outside a monitored session.
    """

    __slots__ = ("original_args", "session", "iterations_per_loop", "steps",
                 "_stop_requested")

    def __init__(self, original_args, session, iterations_per_loop=1, steps=None):
        self.original_args = original_args
        self.session = session
        self.iterations_per_loop = iterations_per_loop
        self.steps = steps
        self._stop_requested = False

    @property
    def stop_requested(self):
        """Whether a hook called ``request_stop`` during this call."""
        return self._stop_requested

    def request_stop(self):
        """Asks the monitored session to stop after this call."""
        self._stop_requested = True


def as_step_tensor(graph, required_by=None):
    """The global step of ``graph`` as a fetchable ``Tensor``.

    Raises:
        RuntimeError: when ``required_by`` names a hook and the graph has no global step.
    """
    step = get_global_step(graph)
    if step is None:
        if required_by is not None:
            raise RuntimeError(f"Global step should be created to use {required_by}.")
        return None
    return convert_to_tensor(step)
