"""The vectorized index-stream operations against element-by-element references."""
import numpy as np
import pytest

from estimator_npu.data import index_ops


class RecordingRng:
    """Wraps a Generator and records the slot draws, so a reference can replay them."""

    def __init__(self, seed):
        self._rng = np.random.default_rng(seed)
        self.draws = []
        self.perms = []

    def integers(self, low, high, size):
        j = self._rng.integers(low, high, size=size)
        self.draws.extend(j.tolist())
        return j

    def permutation(self, n):
        p = self._rng.permutation(n)
        self.perms.append(p.tolist())
        return p


def reference_shuffle(items, buffer_size, draws, perms):
    """TF's buffer algorithm, one element at a time, with the recorded random choices."""
    buf, out, draws = [], [], iter(draws)
    for x in items:
        if len(buf) < buffer_size:
            buf.append(x)
            continue
        j = next(draws)
        out.append(buf[j])
        buf[j] = x
    if buf:
        out.extend(buf[i] for i in perms[-1])
    return out


def flat(chunks):
    return np.concatenate(list(chunks) or [np.zeros(0, np.int64)]).tolist()


def chunked(values, sizes):
    values = np.asarray(values, np.int64)
    out, pos = [], 0
    for s in sizes:
        out.append(values[pos:pos + s])
        pos += s
    assert pos == len(values)
    return out


@pytest.mark.parametrize("n,buffer_size,sizes", [
    (100, 10, [100]), (100, 10, [3, 40, 57]), (50, 50, [50]), (50, 80, [20, 30]),
    (1000, 1, [500, 500]), (300, 7, [7, 1, 292])])
def test_vectorized_shuffle_equals_the_element_by_element_algorithm(n, buffer_size, sizes):
    values = np.random.default_rng(n).permutation(n) + 1000
    rng = RecordingRng(buffer_size)
    got = np.concatenate(list(index_ops.shuffle_chunks(chunked(values, sizes), buffer_size,
                                                       rng))).tolist()
    want = reference_shuffle(values.tolist(), buffer_size, rng.draws, rng.perms)
    assert got == want
    assert sorted(got) == sorted(values.tolist())


def test_rebatch_take_skip_shard_repeat():
    chunks = chunked(np.arange(10), [3, 3, 4])
    assert [c.tolist() for c in index_ops.rebatch(chunks, 4, False)] == [
        [0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert [c.tolist() for c in index_ops.rebatch(chunks, 4, True)] == [
        [0, 1, 2, 3], [4, 5, 6, 7]]
    assert flat(index_ops.take_chunks(iter(chunks), 5)) == [0, 1, 2, 3, 4]
    assert flat(index_ops.skip_chunks(iter(chunks), 5)) == [5, 6, 7, 8, 9]
    assert flat(index_ops.shard_chunks(iter(chunks), 3, 1)) == [1, 4, 7]
    assert flat(index_ops.repeat_passes(lambda: iter(chunks[:1]), 2)) == [0, 1, 2, 0, 1, 2]
    assert flat(index_ops.repeat_passes(lambda: iter(()), -1)) == []
    assert flat(index_ops.arange_chunks(5, chunk=2)) == [0, 1, 2, 3, 4]
