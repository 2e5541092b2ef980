"""``prefetch``: elements produced ahead of use by one background thread.

One producer thread runs the upstream pipeline in order and hands elements over through
a bounded queue, so the order (and every seeded shuffle) is exactly that of a synchronous
pipeline; an upstream error arrives in its place in the sequence. numpy releases the GIL
while it copies, so gathering the next batch overlaps with the training step::

    producer:  for elem in upstream: queue.put(elem)      (blocks when the buffer is full)
    consumer:  next() -> queue.get()

``close()`` (called on re-initialization and by ``Session.close``) stops the producer;
the producer also stops when the consumer is garbage-collected.

When the upstream is the index fast path (``batch`` gathering rows, possibly repeated or
taken), producing an element is a single copy and the thread handoff costs more than it
saves under the GIL (measured: +45 µs per step on a 90 µs softmax-regression step, and
1.5x instead of 1.1x numpy in ``bench/input_pipeline.py``), so prefetch is synchronous
there. A batch that a row-wise ``map`` computes after the gather (``IndexStream.post``)
is produced on the thread.
"""
import queue
import threading

from estimator_npu.data.base import AUTOTUNE, Node, resolve

_END = object()
# How prefetch runs: "auto" (no thread over a cheap upstream, see above), "thread" or
# "sync"; read when an iterator starts. ``bench/mlp_pipeline.py`` compares them.
MODE = "auto"


class _Failure:
    __slots__ = ("exc",)

    def __init__(self, exc):
        self.exc = exc


def _put(q, stop, item):
    while not stop.is_set():
        try:
            q.put(item, timeout=0.05)
            return True
        except queue.Full:
            continue
    return False


def _produce(it, q, stop):
    try:
        for item in it:
            if not _put(q, stop, item):
                return
        _put(q, stop, _END)
    except BaseException as exc:  # noqa: BLE001 - handed to the consumer, in order
        _put(q, stop, _Failure(exc))
    finally:
        close = getattr(it, "close", None)
        if close is not None:
            close()


class Prefetcher:
    """An iterator over ``it`` whose elements a background thread produces ahead."""

    def __init__(self, it, buffer_size):
        self._q = queue.Queue(maxsize=buffer_size)
        self._stop = threading.Event()
        self._done = False
        self._thread = threading.Thread(target=_produce, args=(it, self._q, self._stop),
                                        name="data-prefetch", daemon=True)
        self._thread.start()

    def __iter__(self):
        return self

    def __next__(self):
        if self._done:
            raise StopIteration
        item = self._q.get()
        if item is _END:
            self._done = True
            raise StopIteration
        if type(item) is _Failure:
            self._done = True
            raise item.exc
        return item

    def close(self):
        """Stops the producer thread and waits for it briefly."""
        self._done = True
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=1.0)

    def __del__(self):
        stop = getattr(self, "_stop", None)
        if stop is not None:
            stop.set()


class PrefetchNode(Node):
    def __init__(self, node, buffer_size):
        self.inputs = (node,)
        self.spec = node.spec
        self._size = buffer_size
        self.scalar_args = (("buffer_size", buffer_size, 1, (AUTOTUNE,)),)

    def indexed(self, env):
        # Unbatched rows are cheap to gather; a following batch uses the fast path. Rows
        # that a map computes are produced on the thread instead.
        ix = self.inputs[0].indexed(env)
        return ix if ix is not None and ix.post is None else None

    def cheap(self, env):
        return self.inputs[0].cheap(env)

    def iterate(self, env):
        size = resolve(env, "buffer_size", self._size, 1, (AUTOTUNE,))
        upstream = self.inputs[0]
        if MODE == "sync" or (MODE == "auto" and upstream.cheap(env)):
            return upstream.elements(env)
        return Prefetcher(upstream.elements(env), 2 if size == AUTOTUNE else size)
