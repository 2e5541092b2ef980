"""utils.blas_governor: BLAS thread counts that follow the machine's load."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.utils import blas_governor as governor


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def drive(gov, clock, seconds_of_mode, calls):
    """Makes ``calls`` calls, each taking ``seconds_of_mode(mode)``; returns the modes."""
    modes = []
    for _ in range(calls):
        m = gov.current()
        modes.append(m)
        dt = seconds_of_mode(m)
        clock.now += dt
        gov.record(dt)
    return modes


def test_switches_to_one_thread_when_it_is_faster_and_back_when_load_goes():
    clock = Clock()
    gov = governor.Governor(clock)
    busy = {0: 0.050, 1: 0.010}   # all threads collapse under load
    modes = drive(gov, clock, busy.get, 60)
    assert gov.mode == 1 and modes[-10:] == [1] * 10
    quiet = {0: 0.004, 1: 0.006}
    drive(gov, clock, quiet.get, 400)
    assert gov.mode == 0


def test_quiet_machine_keeps_all_threads_and_probes_ever_less_often():
    clock = Clock()
    gov = governor.Governor(clock)
    quiet = {0: 0.004, 1: 0.006}
    modes = drive(gov, clock, quiet.get, 20000)   # 80 s of calls
    assert gov.mode == 0
    assert gov.period == governor.MAX_PERIOD
    # a probe stops after one call when that call is clearly slower, else after PROBE
    probe_calls = sum(modes)
    assert 0 < probe_calls <= governor.PROBE * 12
    assert probe_calls / len(modes) < 0.01


def test_a_clearly_slower_probe_call_ends_the_probe():
    clock = Clock()
    gov = governor.Governor(clock)
    modes = drive(gov, clock, {0: 0.004, 1: 0.040}.get, 2000)
    runs = "".join(map(str, modes)).split("0")
    assert max(len(r) for r in runs) == 1   # every probe was a single call


def test_load_arriving_triggers_a_probe_at_once():
    clock = Clock()
    gov = governor.Governor(clock)
    drive(gov, clock, {0: 0.004, 1: 0.006}.get, 3000)   # period grown to MAX_PERIOD
    assert gov.mode == 0
    t0 = clock.now
    drive(gov, clock, {0: 0.040, 1: 0.010}.get, 10)
    assert gov.mode == 1
    assert clock.now - t0 < 1.0 < governor.MAX_PERIOD


def test_short_plans_retire():
    clock = Clock()
    gov = governor.Governor(clock)
    drive(gov, clock, lambda m: 1e-5, governor.WARMUP + 3)
    assert gov.retired


@pytest.mark.parametrize("env", [("ESTIMATOR_NPU_ADAPTIVE_THREADS", "0"),
                                 ("ESTIMATOR_NPU_NUM_THREADS", "2"),
                                 ("OPENBLAS_NUM_THREADS", "2"),
                                 ("OMP_NUM_THREADS", "1"),
                                 ("TF_DETERMINISTIC_OPS", "1")])
def test_explicit_thread_settings_turn_it_off(monkeypatch, env):
    governor.reset()
    monkeypatch.setenv(*env)
    try:
        assert governor.enabled() is False
        assert governor.for_plan() is None
    finally:
        monkeypatch.delenv(env[0])
        governor.reset()


class FakeBlas:
    def __init__(self):
        self.num_threads = 2
        self.calls = []

    def set_num_threads(self, n):
        self.calls.append(n)
        self.num_threads = n


class FakeGovernor:
    def __init__(self, mode):
        self.mode, self.seen, self.retired = mode, [], False

    def current(self):
        return self.mode

    def record(self, seconds):
        self.seen.append(seconds)
        self.retired = len(self.seen) >= 2


def test_session_runs_governed_plans_in_their_mode(monkeypatch):
    blas = FakeBlas()
    governor.reset()
    monkeypatch.setitem(governor._state, "enabled", True)
    monkeypatch.setitem(governor._state, "blas", [blas])
    monkeypatch.setitem(governor._state, "full", [2])
    fake = FakeGovernor(1)
    monkeypatch.setattr(governor, "for_plan", lambda: fake)
    try:
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [None, 3])
            y = tf.matmul(x, tf.ones([3, 2]))
            with tf.Session() as sess:
                v = np.arange(6, dtype=np.float32).reshape(2, 3)
                first = sess.run(y, {x: v})
                assert blas.calls == [1]      # the plan ran with one BLAS thread
                sess.run(y, {x: v})           # the governor retires after this call
                assert blas.calls == [1, 2]   # and all threads are back
                sess.run(y, {x: v})
                assert len(fake.seen) == 2 and all(s > 0 for s in fake.seen)
        np.testing.assert_array_equal(first, v @ np.ones((3, 2), np.float32))
    finally:
        governor.reset()
