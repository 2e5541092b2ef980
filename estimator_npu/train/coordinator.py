"""``Coordinator``: a stop flag shared by a training loop and its helper threads (TF1).

    coord = tf.train.Coordinator()
    with coord.stop_on_exception():
        while not coord.should_stop():
            ...
    coord.join(threads)          # re-raises the first exception a thread reported

``errors.OutOfRangeError`` (end of input) requests a stop without being an error.
"""
import contextlib
import sys
import threading
import time

from estimator_npu import errors


class Coordinator:
    """Coordinates the termination of a set of threads."""

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._joined = False
        self._registered_threads = set()

    def request_stop(self, ex=None):
        """Requests a stop; ``ex`` (an exception or ``sys.exc_info()`` triple) is re-raised
        by ``join`` unless it is a clean-stop type."""
        exc = ex[1] if isinstance(ex, tuple) else ex
        if exc is not None and isinstance(exc, self._clean_stop_exception_types):
            exc = None
        if exc is not None and not isinstance(exc, BaseException):
            raise ValueError(f"ex must be an exception or sys.exc_info(), got {ex!r}")
        with self._lock:
            if self._joined and exc is not None:
                # as TF: after join nobody would see it, so it is raised here
                raise exc
            # as TF, only an exception that causes the stop is kept: those raised by
            # threads that end because of the stop (a cancelled enqueue) are not
            if not self._stop_event.is_set():
                if exc is not None and self._exc_info_to_raise is None:
                    self._exc_info_to_raise = (type(exc), exc, exc.__traceback__)
                self._stop_event.set()

    def clear_stop(self):
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            self._stop_event.clear()

    def should_stop(self):
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """Requests a stop if the body raises (the exception is recorded, not raised)."""
        try:
            yield
        except Exception:  # noqa: BLE001 - recorded for join()
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None):
        return self._stop_event.wait(timeout)

    def register_thread(self, thread):
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120,
             ignore_live_threads=False):
        """Waits for ``threads`` (and registered ones) after a stop was requested, then
        re-raises the recorded exception, if any.

        Raises:
            RuntimeError: threads still running after the grace period (unless ignored).
        """
        threads = set(threads or []) | self._registered_threads
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(0.05):
            pass
        deadline = time.time() + stop_grace_period_secs
        for t in threads:
            t.join(max(0.0, deadline - time.time()))
        alive = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            exc_info = self._exc_info_to_raise
        if exc_info:
            raise exc_info[1].with_traceback(exc_info[2])
        if alive and not ignore_live_threads:
            raise RuntimeError(f"Coordinator stopped with threads still running: "
                               f"{' '.join(alive)}")

    @property
    def joined(self):
        return self._joined

    def raise_requested_exception(self):
        with self._lock:
            if self._exc_info_to_raise:
                exc_info = self._exc_info_to_raise
                raise exc_info[1].with_traceback(exc_info[2])

    def loop(self, timer_interval_secs, target, args=None, kwargs=None):
        """Starts a ``LooperThread`` calling ``target`` every ``timer_interval_secs`` until
        the stop; returns it."""
        return LooperThread.loop(self, timer_interval_secs, target, args, kwargs)


class LooperThread(threading.Thread):
    """A daemon thread calling ``target(*args, **kwargs)`` (or ``run_loop``) every
    ``timer_interval_secs`` (``None``: back to back) until the coordinator stops; an
    exception it raises stops the coordinator (``join`` re-raises it)."""

    def __init__(self, coord, timer_interval_secs, target=None, args=None, kwargs=None):
        if not isinstance(coord, Coordinator):
            raise ValueError(f"'coord' argument must be a Coordinator: {coord!r}")
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        self._args = tuple(args or ())
        self._kwargs = dict(kwargs or {})
        coord.register_thread(self)

    @staticmethod
    def loop(coord, timer_interval_secs, target, args=None, kwargs=None):
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args,
                              kwargs=kwargs)
        looper.start()
        return looper

    def run(self):
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                next_time = time.time()
                while not self._coord.wait_for_stop(max(0.0, next_time - time.time())):
                    next_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self):
        """Called once before the loop (override)."""

    def stop_loop(self):
        """Called once after the loop (override)."""

    def run_loop(self):
        """One iteration: calls the target (override, or give ``target``)."""
        if self._target is not None:
            self._target(*self._args, **self._kwargs)


__all__ = ["Coordinator", "LooperThread"]
