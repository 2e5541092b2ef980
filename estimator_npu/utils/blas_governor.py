"""Thread counts that follow how busy the machine is.

numpy's BLAS (OpenBLAS) cuts each matrix product into one piece per thread and waits for
all of them. When other processes keep the cores busy, the piece of a thread that is not
scheduled holds up every product for a scheduler time slice: measured on a 2-core machine
at load 2.5-3, the MLP workload of ``bench/vs_tf.py`` ran at 12-28 steps/s with two BLAS
threads and at 159-174 with one (290 with two on the quiet machine).

So a plan that takes long enough for threads to matter (``MIN_SECONDS`` a call) gets a
``Governor``: it times the plan's calls and now and then runs a few of them (``PROBE``; one
is enough when it is clearly slower) with the other BLAS setting, one thread or all. This
package's own pool keeps its threads: it hands out small pieces in turn, so a busy core
holds it up little. The faster setting wins by at least ``MARGIN``. Probes come at
intervals that double from ``FIRST_PERIOD`` to ``MAX_PERIOD`` seconds while the choice
holds, and at once when all threads get ``SLOWER`` than their best, which is how load
shows. Measured with ``bench/busy_machine.py`` (2 spinning processes on 2 cores, load
3-7): MLP 11 -> 68 steps/s, LeNet 5.8 -> 17 steps/s.

Products with one and two BLAS threads may differ in their last bits, so explicit thread
settings turn the governor off: ``ESTIMATOR_NPU_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``,
``OMP_NUM_THREADS``, ``MKL_NUM_THREADS``, ``TF_DETERMINISTIC_OPS=1``, or
``ESTIMATOR_NPU_ADAPTIVE_THREADS=0``. On a quiet machine the probes confirm the default
and it stays (they cost a few slower calls at growing intervals). Without threadpoolctl
(which finds numpy's BLAS) there is nothing to govern.
"""
import os
import time

from estimator_npu.utils.logging import logger

MIN_SECONDS = 5e-4
PROBE = 3
MARGIN = 1.15
SLOWER = 1.6
FIRST_PERIOD = 0.5
MAX_PERIOD = 16.0
WARMUP = 3
EXPLICIT = ("ESTIMATOR_NPU_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
            "MKL_NUM_THREADS")

_state = {"blas": None, "full": None, "mode": 0, "enabled": None}


def _median3(xs):
    a, b, c = xs[-3:]
    return max(min(a, b), min(max(a, b), c))


class Governor:
    """The thread setting of one plan: mode 0 uses every thread, mode 1 one thread."""

    __slots__ = ("mode", "times", "best", "probing", "next_probe", "period", "calls",
                 "clock", "retired")

    def __init__(self, clock=time.perf_counter):
        self.mode = 0
        self.times = ([], [])     # recent call durations in each mode
        self.best = [None, None]  # the best median seen in each mode
        self.probing = 0          # calls left in the probe (run in the other mode)
        self.period = FIRST_PERIOD
        self.clock = clock
        self.next_probe = None
        self.calls = 0
        self.retired = False      # calls too short for threads to matter: stop timing

    def current(self):
        """The mode the next call runs in."""
        return self.mode ^ 1 if self.probing else self.mode

    def record(self, seconds):
        """Takes the duration of a call made in ``current()``'s mode; may change it."""
        self.calls += 1
        if self.calls <= WARMUP:
            return
        now = self.clock()
        if self.next_probe is None:
            self.next_probe = now + self.period
        m = self.current()
        ts = self.times[m]
        ts.append(seconds)
        del ts[:-PROBE]
        if self.probing:
            self.probing -= 1
            here = self.times[self.mode]
            if len(here) >= 3 and seconds > SLOWER * _median3(here):
                self.probing = 0  # clearly slower: one call of it is enough
            if not self.probing:
                self._decide(now)
            return
        if len(ts) < 3:
            return
        med = _median3(ts)
        if m == 0 and self.best[0] is None and self.best[1] is None and med < MIN_SECONDS:
            self.retired = True
            return
        best = self.best[m]
        if best is None or med < best:
            self.best[m] = best = med
        # load shows as mode 0 (all threads) getting slower: probe at once then; one
        # thread only gets probed on schedule (its times vary with the load anyway)
        if now >= self.next_probe or (m == 0 and med > SLOWER * best):
            self.probing = PROBE
            self.times[m ^ 1].clear()

    def _decide(self, now):
        here, there = self.times[self.mode], self.times[self.mode ^ 1]
        if len(here) >= 3 and len(there) >= 3 and \
                _median3(there) * MARGIN < _median3(here):
            self.mode ^= 1
            logger.debug("thread governor: %s (%.2f ms a call with %s)",
                         "one BLAS thread" if self.mode else "all BLAS threads",
                         _median3(there) * 1e3, "one" if self.mode else "all")
            self.period = FIRST_PERIOD
            self.best = [None, None]  # load changed: the old bests no longer hold
        else:
            self.period = min(self.period * 2, MAX_PERIOD)
            self.best[self.mode] = None if not here else _median3(here)
        self.times[self.mode ^ 1].clear()
        self.next_probe = now + self.period


def enabled():
    """Whether plans get governors (decided once per process)."""
    on = _state["enabled"]
    if on is None:
        on = _state["enabled"] = _decide_enabled()
    return on


def _decide_enabled():
    if os.environ.get("ESTIMATOR_NPU_ADAPTIVE_THREADS", "").strip() in ("0", "false", "no"):
        return False
    if os.environ.get("TF_DETERMINISTIC_OPS", "").strip() in ("1", "true"):
        return False
    if any(os.environ.get(k, "").strip() for k in EXPLICIT):
        return False
    try:
        if len(os.sched_getaffinity(0)) <= 1:
            return False
    except AttributeError:  # pragma: no cover - platforms without sched_getaffinity
        pass
    try:
        from threadpoolctl import ThreadpoolController
        blas = list(ThreadpoolController().select(user_api="blas").lib_controllers)
    except Exception:  # noqa: BLE001 - no threadpoolctl, or a BLAS it cannot drive
        return False
    if not blas:
        return False
    _state["blas"] = blas
    _state["full"] = [c.num_threads for c in blas]
    return max(_state["full"]) > 1


def for_plan():
    """A new ``Governor`` for a plan, or ``None`` when governing is off."""
    return Governor() if enabled() else None


def apply(mode):
    """Sets BLAS's thread counts for ``mode`` (only when it changes)."""
    if mode == _state["mode"]:
        return
    _state["mode"] = mode
    for c, n in zip(_state["blas"], _state["full"]):
        c.set_num_threads(1 if mode else n)


def reset():
    """Back to the full thread counts and a fresh decision (tests)."""
    if _state["blas"] is not None:
        apply(0)
    _state.update(blas=None, full=None, mode=0, enabled=None)
