"""Interval timers: when a periodic hook fires. Hook timing lives here and nowhere else.

A step timer fires when a multiple of ``every_steps`` is *crossed*, not hit::

    fires(last, step) = last is None or last // every_steps != step // every_steps

so a device loop that moves the global step by ``N`` per host call never skips an event:
with ``every_steps=10`` and ``N=3`` the boundaries 3, 6, 9, 12, ... fire at 12, 21, 30, ...
(the first boundary at or after each multiple). With ``N=1`` this is TF1's "every 10
steps"; when ``every_steps`` is a multiple of ``N`` it fires exactly at the multiples. A
time timer fires when ``every_secs`` have passed since it last fired. A timer is exactly
one of the two.

``crossing_steps`` answers "at which steps will it fire?" without running anything (the
device loop uses it to say so in its warnings).
"""
import time

from estimator_npu.utils import validation


class SecondOrStepTimer:
    """Fires every ``every_secs`` seconds or on crossing a multiple of ``every_steps``.

    Args:
        every_secs: seconds between events (a positive number), or ``None``.
        every_steps: steps between events (a positive int), or ``None``.
        clock: the time source (``time.monotonic``); tests pass a fake.

    Raises:
        ValueError: unless exactly one of ``every_secs`` and ``every_steps`` is given, or
            the one given is not positive.
    """

    def __init__(self, every_secs=None, every_steps=None, clock=time.monotonic):
        if (every_secs is None) == (every_steps is None):
            raise ValueError("Exactly one of every_secs and every_steps must be provided, got "
                             f"every_secs={every_secs!r}, every_steps={every_steps!r}")
        if every_steps is not None:
            every_steps = validation.check_positive_int("every_steps", every_steps)
        else:
            every_secs = validation.check_positive_number("every_secs", every_secs)
        self.every_secs = every_secs
        self.every_steps = every_steps
        self._clock = clock
        self._last_step = None
        self._last_time = None

    def reset(self):
        """Forgets the last event: the next ``should_trigger_for_step`` is True."""
        self._last_step = None
        self._last_time = None

    def should_trigger_for_step(self, step):
        """Whether an event is due at global step ``step``."""
        if self._last_step is None:
            return True
        if step == self._last_step:
            return False
        if self.every_steps is not None:
            return self._last_step // self.every_steps != step // self.every_steps
        return self._clock() - self._last_time >= self.every_secs

    def update_last_triggered_step(self, step):
        """Records an event at ``step``.

        Returns:
            ``(elapsed_secs, elapsed_steps)`` since the previous event, ``(None, None)``
            for the first one.
        """
        now = self._clock()
        if self._last_step is None:
            elapsed = (None, None)
        else:
            elapsed = (now - self._last_time, step - self._last_step)
        self._last_step = step
        self._last_time = now
        return elapsed

    def last_triggered_step(self):
        """The step of the last event, or ``None``."""
        return self._last_step

    def __repr__(self):
        if self.every_steps is not None:
            return f"SecondOrStepTimer(every_steps={self.every_steps})"
        return f"SecondOrStepTimer(every_secs={self.every_secs})"


class NeverTriggerTimer(SecondOrStepTimer):
    """A timer that never fires (hooks that only act at start and end)."""

    def __init__(self):
        self.every_secs = None
        self.every_steps = None
        self._clock = time.monotonic
        self._last_step = None
        self._last_time = None

    def should_trigger_for_step(self, step):
        return False

    def __repr__(self):
        return "NeverTriggerTimer()"


def crossing_steps(every_steps, boundaries, last=0):
    """The loop boundaries at which a step timer of ``every_steps`` fires.

    Args:
        every_steps: the interval (a positive int).
        boundaries: increasing global steps at which host calls end.
        last: the step of the previous event (the start step; 0 on a fresh run).

    Returns:
        The list of boundaries that cross a multiple of ``every_steps``.
    """
    every_steps = validation.check_positive_int("every_steps", every_steps)
    fired = []
    for step in boundaries:
        if last // every_steps != step // every_steps:
            fired.append(step)
            last = step
    return fired
