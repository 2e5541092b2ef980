"""Interval timers: when a periodic hook fires. Hook timing lives here and nowhere else.

TF's ``SecondOrStepTimer`` rule, for every built-in hook::

    fires(step) = last is None                       # the first time it is asked
                  or step >= last + every_steps      # (step timer), or
                  or now >= last_time + every_secs   # (time timer)
    (never twice at the same step)

where ``last`` is the step of the previous event. With one step per host call that is
TF 1.x exactly: ``every_steps=10`` from step 1 fires at 1, 11, 21, ... With a device loop
of ``k`` steps per call the same rule is evaluated at the loop boundaries with the true
global step: ``every_steps=10``, ``k=3`` from step 0 fires at 3, 15, 27, ... (the first
boundary at least 10 after the previous event). A timer is exactly one of the two.

``fire_steps`` answers "at which steps will it fire?" by running this very timer over
the loop boundaries (the device loop names those steps in its warnings).
"""
import time

from estimator_npu.utils import validation


class SecondOrStepTimer:
    """Fires on the first call, then every ``every_secs`` seconds or ``every_steps`` steps
    after the previous event (TF's rule, see the module docstring).

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
            return step >= self._last_step + self.every_steps
        return self._clock() >= self._last_time + self.every_secs

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


def fire_steps(timer, boundaries, last=None):
    """The steps among ``boundaries`` at which ``timer``'s rule fires, computed by a fresh
    copy of the timer (``timer`` itself is left alone).

    Args:
        timer: a step ``SecondOrStepTimer`` (or a positive int: ``every_steps``).
        boundaries: increasing global steps at which the hook is asked (host calls end).
        last: the step of an event before the first boundary (e.g. the checkpoint saved
            at session creation), or ``None`` when the first boundary is the first ask.
    """
    every = timer if isinstance(timer, int) else timer.every_steps
    probe = SecondOrStepTimer(every_steps=every)
    if last is not None:
        probe.update_last_triggered_step(last)
    fired = []
    for step in boundaries:
        if probe.should_trigger_for_step(step):
            probe.update_last_triggered_step(step)
            fired.append(step)
    return fired
