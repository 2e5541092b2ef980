"""Timers: TF's SecondOrStepTimer rule (first call, then the first step >= last + N, or
N seconds), exactly one of the two."""
import pytest

from estimator_npu.hooks.timer import NeverTriggerTimer, SecondOrStepTimer, fire_steps


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def fired(timer, steps):
    out = []
    for step in steps:
        if timer.should_trigger_for_step(step):
            timer.update_last_triggered_step(step)
            out.append(step)
    return out


@pytest.mark.parametrize("kwargs", [{}, {"every_secs": 1, "every_steps": 2}])
def test_exactly_one_interval(kwargs):
    with pytest.raises(ValueError, match="Exactly one of every_secs and every_steps"):
        SecondOrStepTimer(**kwargs)


@pytest.mark.parametrize("kwargs,err", [({"every_steps": 0}, ValueError),
                                        ({"every_steps": -3}, ValueError),
                                        ({"every_steps": 2.5}, TypeError),
                                        ({"every_steps": True}, TypeError),
                                        ({"every_secs": 0}, ValueError),
                                        ({"every_secs": "1"}, TypeError)])
def test_bad_intervals_name_the_argument(kwargs, err):
    with pytest.raises(err, match=next(iter(kwargs))):
        SecondOrStepTimer(**kwargs)


def test_first_call_fires_then_every_n_after_the_last_event():
    timer = SecondOrStepTimer(every_steps=10)
    assert fired(timer, range(0, 35)) == [0, 10, 20, 30]
    timer = SecondOrStepTimer(every_steps=10)  # TF: from step 1, summaries at 1, 11, 21
    assert fired(timer, range(1, 26)) == [1, 11, 21]


def test_rule_at_loop_boundaries():
    # a device loop of 3 steps per host call: boundaries 3, 6, 9, ...
    timer = SecondOrStepTimer(every_steps=10)
    timer.update_last_triggered_step(0)
    assert fired(timer, range(3, 46, 3)) == [12, 24, 36]
    # interval a multiple of the loop size, first event on a boundary: stays on boundaries
    timer = SecondOrStepTimer(every_steps=10)
    timer.update_last_triggered_step(0)
    assert fired(timer, range(5, 51, 5)) == [10, 20, 30, 40, 50]
    # a jump over several intervals fires once, and counts from where it fired
    timer = SecondOrStepTimer(every_steps=10)
    timer.update_last_triggered_step(0)
    assert fired(timer, [35, 36, 44, 45]) == [35, 45]


def test_same_step_never_fires_twice():
    timer = SecondOrStepTimer(every_steps=1)
    assert fired(timer, [5, 5, 5, 6]) == [5, 6]


def test_elapsed_and_reset():
    clock = FakeClock()
    timer = SecondOrStepTimer(every_steps=4, clock=clock)
    assert timer.update_last_triggered_step(0) == (None, None)
    clock.now = 2.5
    assert timer.update_last_triggered_step(8) == (2.5, 8)
    assert timer.last_triggered_step() == 8
    timer.reset()
    assert timer.last_triggered_step() is None
    assert timer.should_trigger_for_step(9)


def test_seconds_timer_uses_the_clock():
    clock = FakeClock()
    timer = SecondOrStepTimer(every_secs=10, clock=clock)
    assert timer.should_trigger_for_step(1)
    timer.update_last_triggered_step(1)
    clock.now = 9.9
    assert not timer.should_trigger_for_step(50)
    clock.now = 10.0
    assert timer.should_trigger_for_step(51)
    assert not timer.should_trigger_for_step(1)  # the step it last fired at


def test_never_trigger_timer():
    timer = NeverTriggerTimer()
    assert not timer.should_trigger_for_step(0)
    assert not timer.should_trigger_for_step(10 ** 9)
    timer.update_last_triggered_step(5)
    assert timer.last_triggered_step() == 5


@pytest.mark.parametrize("every,loop,total", [(10, 1, 35), (10, 3, 45), (7, 5, 60),
                                              (4, 4, 20), (100, 30, 400)])
def test_fire_steps_is_the_timer_itself(every, loop, total):
    boundaries = list(range(loop, total + 1, loop))
    timer = SecondOrStepTimer(every_steps=every)
    timer.update_last_triggered_step(0)
    assert fire_steps(every, boundaries, last=0) == fired(timer, boundaries)
    assert fire_steps(SecondOrStepTimer(every_steps=every), boundaries) == fired(
        SecondOrStepTimer(every_steps=every), boundaries)
    # consecutive events are at least `every` apart and less than `every + loop`
    fires = fire_steps(every, boundaries, last=0)
    for a, b in zip([0] + fires, fires):
        assert every <= b - a < every + loop
