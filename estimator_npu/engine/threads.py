"""A small persistent thread pool for the numpy work BLAS does not thread.

numpy's elementwise kernels and copies run on one core but release the GIL, so a large
elementwise update (the optimizers' flat buffers), an im2col copy or an activation split
into contiguous pieces runs on every core the process may use. Each piece is computed
with exactly the float operations of the whole (elementwise math does not depend on where
a slice starts), so results are bit-identical to the single-threaded ones.

The pool's size is the number of cores in ``os.sched_getaffinity(0)``;
``ESTIMATOR_NPU_NUM_THREADS`` overrides it (``1``: no threads at all). Work smaller than
``min_size`` elements per piece stays on the calling thread, where a hand-off (~10-20 µs
on a quiet machine, far more when other processes keep the other cores busy) would cost
more than it saves. Work is cut into up to 4 pieces per thread that the caller and the
workers take in turn, so a worker whose core is busy elsewhere holds up one small piece
at most, and the caller cancels workers that never started.

    threads.split(n, lambda start, stop: ..., min_size=1 << 16)
"""
import os
import threading
from concurrent.futures import ThreadPoolExecutor

ENV = "ESTIMATOR_NPU_NUM_THREADS"
# Elements per piece below which a split does not pay: a hand-off to a sleeping worker
# costs 20-80 us on the 2-core VM (about 500k float32 element-ops); 1 << 17 made LeNet's
# step slower than no pool at all (its 300k-element ReLU, pool and im2col passes split).
MIN_SIZE = 1 << 18
PIECES_PER_THREAD = 4

_PREFIX = "estimator_npu_pool"
_lock = threading.Lock()
_state = {"pid": None, "pool": None, "n": None}


def _default_threads():
    value = os.environ.get(ENV, "").strip()
    if value:
        try:
            n = int(value)
        except ValueError:
            raise ValueError(f"{ENV} must be a positive integer, got {value!r}") from None
        if n < 1:
            raise ValueError(f"{ENV} must be a positive integer, got {value!r}")
        return n
    return usable_cores()


def usable_cores():
    """How many cores this process may run on (its CPU affinity where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - platforms without sched_getaffinity
        return max(1, os.cpu_count() or 1)


def num_threads():
    """How many threads split work uses (the calling thread included)."""
    n = _state["n"]
    if n is None:
        n = _state["n"] = _default_threads()
    return n


def set_num_threads(n):
    """Sets the pool size (``None``: back to the environment / affinity default)."""
    with _lock:
        pool = _state["pool"]
        _state.update(pool=None, pid=None, n=None if n is None else max(1, int(n)))
    if pool is not None:
        pool.shutdown(wait=False)


def _pool(workers):
    pool = _state["pool"]
    if pool is None or _state["pid"] != os.getpid():  # none yet, or inherited by fork
        with _lock:
            pool = _state["pool"]
            if pool is None or _state["pid"] != os.getpid():
                pool = ThreadPoolExecutor(max_workers=workers,
                                          thread_name_prefix=_PREFIX)
                _state.update(pool=pool, pid=os.getpid())
    return pool


def pieces(n, min_size=None, align=16):
    """``[(start, stop), ...]`` splitting ``range(n)`` into contiguous pieces of at least
    ``min_size`` (starts aligned to ``align``): up to ``PIECES_PER_THREAD`` per thread, so
    that a thread whose core is taken by another process holds up only a small piece."""
    k = num_threads()
    if k <= 1:
        return [(0, n)]
    count = min(k * PIECES_PER_THREAD, n // max(MIN_SIZE if min_size is None else min_size, 1))
    if count <= 1:
        return [(0, n)]
    step = -(-n // count)
    step += -step % align
    return [(s, min(n, s + step)) for s in range(0, n, step)]


def run(calls):
    """Runs the zero-argument ``calls`` on this thread and the pool's workers, each taking
    the next call not yet taken; returns when all are done (re-raising the first
    exception). When this thread runs out of calls, workers that never got to start are
    cancelled, so a busy machine costs little more than running the calls here."""
    if len(calls) == 1 or num_threads() <= 1 or \
            threading.current_thread().name.startswith(_PREFIX):
        for c in calls:  # a piece that splits again runs its pieces itself (no deadlock)
            c()
        return
    todo = iter(calls)   # next() on a list iterator is atomic under the GIL
    errors = []

    def drain():
        for c in todo:
            try:
                c()
            except BaseException as e:  # noqa: BLE001 - re-raised by the caller
                errors.append(e)
                return

    pool = _pool(num_threads() - 1)
    futures = [pool.submit(drain) for _ in range(min(num_threads() - 1, len(calls) - 1))]
    drain()
    for f in futures:
        if not f.cancel():
            f.result()
    if errors:
        raise errors[0]


def split(n, fn, min_size=None):
    """Calls ``fn(start, stop)`` over contiguous pieces of ``range(n)``, in parallel when
    ``n`` is large enough."""
    parts = pieces(n, min_size)
    if len(parts) == 1:
        fn(0, n)
        return
    run([lambda a=a, b=b: fn(a, b) for a, b in parts])
