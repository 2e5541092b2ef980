"""Vectorized transformations of index streams (see ``base.IndexStream``).

Each function maps an iterator of 1-D int64 index chunks to another one, doing its work
with a few numpy calls per chunk rather than Python work per element.

Buffered shuffle, vectorized. TF's shuffle keeps a buffer of ``B`` elements; each step
outputs the element in a uniformly drawn slot ``j_t`` and puts the next input element
there. So the output at step ``t`` is the element that most recently entered slot
``j_t``: input ``s`` for the latest ``s < t`` with ``j_s == j_t``, else the slot's content
when the chunk began. A stable argsort of ``j`` groups equal slots in time order, which
gives each step its predecessor in one pass::

    order = argsort(j, stable); same = j[order][1:] == j[order][:-1]
    out = buffer[j];  out[order[1:][same]] = incoming[order[:-1][same]]
    buffer[j of each group's last step] = incoming[that step]

At the end of input the buffer is emitted in a random permutation (the same distribution
as drawing slots one by one from the shrinking buffer).
"""
import numpy as np

CHUNK = 1 << 16


def arange_chunks(n, chunk=CHUNK):
    """``0..n-1`` in chunks of at most ``chunk`` indices."""
    for s in range(0, n, chunk):
        yield np.arange(s, min(n, s + chunk), dtype=np.int64)


def shuffle_chunks(chunks, buffer_size, rng):
    """A buffered shuffle of the index stream ``chunks`` drawing from ``rng``."""
    buf = np.empty(buffer_size, np.int64)
    n = 0
    for c in chunks:
        if n < buffer_size:
            k = min(buffer_size - n, len(c))
            buf[n:n + k] = c[:k]
            n += k
            c = c[k:]
            if not len(c):
                continue
        yield _stream_step(buf, c, rng)
    if n:
        yield buf[:n][rng.permutation(n)]


def _stream_step(buf, incoming, rng):
    t = len(incoming)
    j = rng.integers(0, len(buf), size=t)
    # Unique keys (slot, time) sort like a stable argsort of j, and much faster.
    order = np.argsort(j * t + np.arange(t))
    sj = j[order]
    same = sj[1:] == sj[:-1]
    out = buf[j]
    out[order[1:][same]] = incoming[order[:-1][same]]
    last = np.ones(len(sj), bool)
    last[:-1] = ~same
    buf[sj[last]] = incoming[order[last]]
    return out


def rebatch(chunks, size, drop_remainder):
    """Regroups ``chunks`` into index vectors of exactly ``size`` (the last may be short
    unless ``drop_remainder``)."""
    pending = None
    for c in chunks:
        if pending is not None:
            need = size - len(pending)
            if len(c) < need:
                pending = np.concatenate([pending, c])
                continue
            yield np.concatenate([pending, c[:need]])
            c = c[need:]
            pending = None
        full = len(c) - len(c) % size
        for s in range(0, full, size):
            yield c[s:s + size]
        if full < len(c):
            pending = c[full:]
    if pending is not None and len(pending) and not drop_remainder:
        yield pending


def take_chunks(chunks, count):
    """The first ``count`` indices (all when ``count`` is -1)."""
    if count < 0:
        yield from chunks
        return
    if count == 0:
        return
    for c in chunks:
        if len(c) >= count:
            yield c[:count]
            return
        yield c
        count -= len(c)


def skip_chunks(chunks, count):
    """All but the first ``count`` indices (none when ``count`` is -1)."""
    if count < 0:
        return
    for c in chunks:
        if count >= len(c):
            count -= len(c)
            continue
        yield c[count:] if count else c
        count = 0


def shard_chunks(chunks, num_shards, index):
    """Indices at positions ``index, index + num_shards, ...`` of the stream."""
    pos = 0
    for c in chunks:
        first = (index - pos) % num_shards
        pos += len(c)
        part = c[first::num_shards]
        if len(part):
            yield part


def repeat_passes(passes, count):
    """``count`` passes of ``passes()`` (forever when ``count`` is -1); an infinite repeat
    of an empty pass ends instead of spinning."""
    epoch = 0
    while count < 0 or epoch < count:
        epoch += 1
        got = False
        for c in passes():
            got = got or len(c) > 0
            yield c
        if not got:
            return
