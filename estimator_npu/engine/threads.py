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
more than it saves. After doing its own piece the caller takes back any piece no worker
has started yet, so a busy machine costs little more than one thread.

    threads.split(n, lambda start, stop: ..., min_size=1 << 16)
"""
import os
import threading
from concurrent.futures import ThreadPoolExecutor

ENV = "ESTIMATOR_NPU_NUM_THREADS"
MIN_SIZE = 1 << 18   # elements per piece below which a split does not pay

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
    """``[(start, stop), ...]`` splitting ``range(n)`` into at most ``num_threads()``
    contiguous pieces of at least ``min_size`` (starts aligned to ``align``)."""
    k = min(num_threads(), n // max(MIN_SIZE if min_size is None else min_size, 1))
    if k <= 1:
        return [(0, n)]
    step = -(-n // k)
    step += -step % align
    return [(s, min(n, s + step)) for s in range(0, n, step)]


def run(calls):
    """Runs the zero-argument ``calls``: the first on this thread, the rest on the pool;
    returns when all are done (re-raising the first exception)."""
    if len(calls) == 1 or threading.current_thread().name.startswith(_PREFIX):
        for c in calls:  # a piece that splits again runs its pieces itself (no deadlock)
            c()
        return
    pool = _pool(num_threads() - 1)
    futures = [pool.submit(c) for c in calls[1:]]
    err = None
    try:
        calls[0]()
    except BaseException as e:  # noqa: BLE001 - re-raised after the others finished
        err = e
    for f, c in zip(futures, calls[1:]):
        try:
            if f.cancel():  # not started (its core is busy elsewhere): do it here
                c()
            else:
                f.result()
        except BaseException as e:  # noqa: BLE001
            err = err or e
    if err is not None:
        raise err


def split(n, fn, min_size=None):
    """Calls ``fn(start, stop)`` over contiguous pieces of ``range(n)``, in parallel when
    ``n`` is large enough."""
    parts = pieces(n, min_size)
    if len(parts) == 1:
        fn(0, n)
        return
    run([lambda a=a, b=b: fn(a, b) for a, b in parts])
