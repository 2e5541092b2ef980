"""The per-session state of one TF1 queue: elements, capacity, blocking and closing.

A ``QueueState`` is a session resource created when a plan first uses the queue's handle
op. Every method is thread-safe: enqueue threads (``QueueRunner``) and the training
thread call ``Session.run`` concurrently, and a call blocks on one condition variable:

* ``enqueue`` / ``enqueue_many`` wait while the queue is full; on a closed queue they raise
  ``CancelledError`` (pending ones finish unless the queue was closed with
  ``cancel_pending_enqueues=True``);
* ``dequeue(n, up_to)`` takes elements as they arrive (so ``n`` may exceed the capacity),
  keeping ``min_after_dequeue`` of them while the queue is open (``RandomShuffleQueue``).
  Once the queue is closed and too few remain it raises ``OutOfRangeError`` (the elements
  it held go back to the front), except that ``up_to`` returns a non-empty partial batch;
* ``close`` (the session closing) wakes every waiter with ``CancelledError``.

Element order: FIFO (first in, first out) for ``FIFOQueue`` / ``PaddingFIFOQueue``; a
uniformly random element of those held for ``RandomShuffleQueue`` (seeded per op).
"""
import collections
import threading

import numpy as np

from estimator_npu import errors


class QueueState:
    """The elements (tuples of arrays) of one queue in one session."""

    def __init__(self, op, runtime_name, capacity, np_dtypes, shapes, min_after_dequeue=0,
                 rng=None, padded=False):
        self.op = op
        self.kind = op.type[:-2] if op.type.endswith("V2") else op.type
        self.name = runtime_name
        self.capacity = capacity
        self.np_dtypes = np_dtypes
        self.shapes = shapes  # a tuple of dims (None unknown) per component, or None each
        self.min_after_dequeue = min_after_dequeue
        self.rng = rng
        self.padded = padded
        self._items = collections.deque() if rng is None else []
        self._cond = threading.Condition()
        self.closed = False
        self._cancel_pending = 0   # bumped by close(cancel_pending_enqueues=True)
        self._session_closed = False

    # ------------------------------------------------------------------ helpers
    def _full(self):
        return 0 <= self.capacity <= len(self._items)

    def _check_live(self, op, what):
        if self._session_closed:
            raise errors.CancelledError(None, op, f"{what} operation was cancelled: the "
                                        "session was closed")

    def _check_element(self, op, components, many):
        if len(components) != len(self.np_dtypes):
            raise errors.InvalidArgumentError(
                None, op, f"{self.kind} '{self.name}' expects {len(self.np_dtypes)} "
                f"components, got {len(components)}")
        out = []
        for i, (c, dt, shape) in enumerate(zip(components, self.np_dtypes, self.shapes)):
            a = np.array(c, dtype=dt)  # a copy: later in-place updates do not reach it
            got = a.shape[1:] if many else a.shape
            if shape is not None and (len(got) != len(shape) or any(
                    d is not None and d != g for d, g in zip(shape, got))):
                want = "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"
                raise errors.InvalidArgumentError(
                    None, op, f"Shape mismatch in tuple component {i}. Expected {want}, got "
                    f"[{','.join(str(g) for g in got)}]")
            out.append(a)
        return out

    def _take(self):
        items = self._items
        if self.rng is None:
            return items.popleft()
        i = int(self.rng.integers(len(items)))
        items[i], items[-1] = items[-1], items[i]
        return items.pop()

    # ------------------------------------------------------------------ operations
    def enqueue(self, op, components, many=False):
        arrays = self._check_element(op, components, many)
        if many:
            sizes = {a.shape[0] if a.ndim else None for a in arrays}
            if None in sizes or len(sizes) > 1:
                raise errors.InvalidArgumentError(
                    None, op, "EnqueueMany: every component needs the same (first) batch "
                    f"dimension, got shapes {[a.shape for a in arrays]}")
            n = sizes.pop() if sizes else 0
            elements = [tuple(a[i, ...] for a in arrays) for i in range(n)]  # arrays, 0-d too
        else:
            elements = [tuple(arrays)]
        with self._cond:
            self._check_live(op, "Enqueue")
            if self.closed:
                raise errors.CancelledError(None, op, f"{self.kind} '{self.name}' is closed.")
            generation = self._cancel_pending
            for element in elements:
                while self._full():
                    self._cond.wait()
                    self._check_live(op, "Enqueue")
                    if self._cancel_pending != generation:
                        raise errors.CancelledError(None, op, "Enqueue operation was "
                                                    "cancelled")
                self._items.append(element)
                self._cond.notify_all()

    def dequeue(self, op, n=None, up_to=False):
        """One element (``n=None``) or a batch of ``n`` stacked on a new first axis."""
        want = 1 if n is None else int(n)
        if want < 0:
            raise errors.InvalidArgumentError(None, op, f"Dequeue count must be >= 0, got "
                                              f"{want}")
        got = []
        with self._cond:
            while len(got) < want:
                self._check_live(op, "Dequeue")
                keep = 0 if self.closed else self.min_after_dequeue
                while len(got) < want and len(self._items) > keep:
                    got.append(self._take())
                if len(got) == want:
                    break
                if got:
                    self._cond.notify_all()  # room for blocked enqueues
                if self.closed:
                    if up_to and got:
                        break
                    for element in reversed(got):  # back to the front, as they were
                        self._items.insert(0, element) if self.rng is not None else \
                            self._items.appendleft(element)
                    raise errors.OutOfRangeError(
                        None, op, f"{self.kind} '{self.name}' is closed and has insufficient "
                        f"elements (requested {want}, current size {len(self._items)})")
                self._cond.wait()
            self._cond.notify_all()
        if n is None:
            return got[0]
        return tuple(self._stack([e[i] for e in got], i) for i in range(len(self.np_dtypes)))

    def _stack(self, parts, i):
        if not parts:
            shape = self.shapes[i] or ()
            return np.zeros((0,) + tuple(d or 0 for d in shape), dtype=self.np_dtypes[i])
        if self.padded:
            rank = parts[0].ndim
            top = tuple(max(p.shape[k] for p in parts) for k in range(rank))
            fill = b"" if self.np_dtypes[i] == np.object_ else 0
            out = np.full((len(parts),) + top, fill, dtype=self.np_dtypes[i])
            for j, p in enumerate(parts):
                out[(j,) + tuple(slice(0, s) for s in p.shape)] = p
            return out
        return np.stack(parts)

    def close_queue(self, cancel_pending_enqueues=False):
        with self._cond:
            self.closed = True
            if cancel_pending_enqueues:
                self._cancel_pending += 1
            self._cond.notify_all()

    def size(self):
        with self._cond:
            return len(self._items)

    def close(self):
        """The session is closing (``Session.close`` closes its resources): every blocked
        call raises ``CancelledError``."""
        with self._cond:
            self._session_closed = True
            self._cond.notify_all()
