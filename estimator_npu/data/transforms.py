"""Structural transformations: batch, shuffle, repeat, take, skip, shard, cache.

Each node iterates its input generically (flat element tuples) and, where it can, also
propagates the index fast path (see ``base``). ``BatchNode`` is where the fast path pays
off: over an index stream, a batch is one fancy-indexing per component.
"""
import itertools
import os
import pickle

import numpy as np

from estimator_npu import errors
from estimator_npu.data import index_ops
from estimator_npu.data.base import Node, resolve
from estimator_npu.data.structure import Spec, batched_shape, unbatched_shape


class _Unary(Node):
    """A node with one input and (by default) the same element spec."""

    def __init__(self, node):
        self.inputs = (node,)
        self.spec = node.spec

    @property
    def input(self):
        return self.inputs[0]

    def cheap(self, env):
        return self.input.cheap(env)


class BatchNode(_Unary):
    def __init__(self, node, batch_size, drop_remainder):
        super().__init__(node)
        self._size = batch_size
        self._drop = drop_remainder
        self.scalar_args = (("batch_size", batch_size, 1, ()),)
        static = batch_size if (drop_remainder and isinstance(batch_size, int)) else None
        self.spec = Spec(node.spec.structure, node.spec.types,
                         [batched_shape(s, static) for s in node.spec.shapes])

    def cheap(self, env):
        # One gather per batch; a row-wise map's function (``post``) is worth a thread.
        ix = self.input.indexed(env)
        return ix is not None and ix.post is None

    def iterate(self, env):
        size = resolve(env, "batch_size", self._size)
        ix = self.input.indexed(env)
        if ix is not None:
            gather = ix.gather
            for idx in index_ops.rebatch(ix.passes(), size, self._drop):
                yield gather(idx)
            return
        it = self.input.iterate(env)
        while True:
            rows = list(itertools.islice(it, size))
            if not rows or (self._drop and len(rows) < size):
                return
            yield stack_rows(rows, self.spec.num_components)


def stack_rows(rows, ncomp):
    """Stacks elements (flat tuples) into one batched element; shapes must agree."""
    out = []
    for i in range(ncomp):
        parts = [r[i] for r in rows]
        try:
            out.append(np.stack(parts))
        except ValueError:
            first = np.shape(parts[0])
            k = next(j for j, p in enumerate(parts) if np.shape(p) != first)
            raise errors.InvalidArgumentError(
                None, None, f"Cannot batch tensors with different shapes in component {i}. "
                f"First element had shape {list(first)} and element {k} had shape "
                f"{list(np.shape(parts[k]))}.") from None
    return tuple(out)


class PaddedBatchNode(_Unary):
    """``padded_batch``: batches elements padded to ``padded_shapes`` (unknown dims pad to
    the longest in the batch)."""

    def __init__(self, node, batch_size, padded_shapes, padding_values, drop_remainder):
        super().__init__(node)
        self._size = batch_size
        self._drop = drop_remainder
        self._shapes = padded_shapes
        self._pads = padding_values
        for i, (want, have) in enumerate(zip(padded_shapes, node.spec.shapes)):
            if want.values is None or (have.values is not None and len(have.values) !=
                                     len(want.values)):
                raise ValueError(f"padded_batch: padded shape {want} of component {i} must "
                                 f"have the rank of the element shape {have}")
        static = batch_size if drop_remainder else None
        self.spec = Spec(node.spec.structure, node.spec.types,
                         [batched_shape(s, static) for s in padded_shapes])

    def cheap(self, env):
        return False

    def iterate(self, env):
        it = self.input.elements(env)
        while True:
            rows = list(itertools.islice(it, self._size))
            if not rows or (self._drop and len(rows) < self._size):
                return
            out = []
            for i, (want, pad, dt) in enumerate(zip(self._shapes, self._pads,
                                                    self.spec.types)):
                parts = [r[i] for r in rows]
                dims = []
                for d, w in enumerate(want.values):
                    longest = max(p.shape[d] for p in parts)
                    if w is not None and longest > w:
                        raise errors.InvalidArgumentError(
                            None, None, f"padded_batch: component {i} has size {longest} "
                            f"in dimension {d}, larger than the padded shape {want}")
                    dims.append(longest if w is None else w)
                batch = np.full([len(parts)] + dims, pad, dtype=dt.np)
                for j, p in enumerate(parts):
                    batch[(j,) + tuple(slice(0, s) for s in p.shape)] = p
                out.append(batch)
            yield tuple(out)


class UnbatchNode(_Unary):
    def __init__(self, node):
        super().__init__(node)
        self.spec = Spec(node.spec.structure, node.spec.types,
                         [unbatched_shape(s) for s in node.spec.shapes])

    def iterate(self, env):
        for elem in self.input.elements(env):
            n = {len(c) for c in elem}
            if len(n) != 1:
                raise errors.InvalidArgumentError(
                    None, None, f"unbatch: components have different batch sizes "
                    f"{[len(c) for c in elem]}")
            for i in range(n.pop()):
                yield tuple(c[i, ...].copy() for c in elem)


class ShuffleNode(_Unary):
    def __init__(self, node, buffer_size, seed, reshuffle):
        super().__init__(node)
        self._buffer = buffer_size
        self._seed = seed
        self._reshuffle = reshuffle
        self.scalar_args = (("buffer_size", buffer_size, 1, ()),)

    def _rng(self, env):
        # One generator per iterator: each pass (epoch) continues it, so epochs differ
        # but the sequence of orders is fixed by the seed. Without reshuffling every pass
        # restarts from the seed.
        key = (id(self), "rng")
        rng = env.state.get(key) if self._reshuffle else None
        if rng is None:
            if self._seed is None:
                seed = env.state.setdefault((id(self), "entropy"),
                                            np.random.SeedSequence().entropy)
            else:
                seed = self._seed
            rng = env.state[key] = np.random.default_rng(seed)
        return rng

    def indexed(self, env):
        ix = self.input.indexed(env)
        if ix is None:
            return None
        size = resolve(env, "buffer_size", self._buffer)
        return ix.derive(lambda: index_ops.shuffle_chunks(
            ix.passes(), size, self._rng(env)))

    def iterate(self, env):
        size = resolve(env, "buffer_size", self._buffer)
        rng = self._rng(env)
        buf = []
        draws = iter(())
        for elem in self.input.elements(env):
            if len(buf) < size:
                buf.append(elem)
                continue
            j = next(draws, None)
            if j is None:
                draws = iter(rng.integers(0, size, 1024).tolist())
                j = next(draws)
            yield buf[j]
            buf[j] = elem
        for j in rng.permutation(len(buf)).tolist():
            yield buf[j]


class RepeatNode(_Unary):
    def __init__(self, node, count):
        super().__init__(node)
        self._count = count
        self.scalar_args = (("count", count, 0, (-1,)),)

    def indexed(self, env):
        ix = self.input.indexed(env)
        if ix is None:
            return None
        count = resolve(env, "count", self._count, 0, (-1,))
        return ix.derive(lambda: index_ops.repeat_passes(ix.passes, count))

    def iterate(self, env):
        count = resolve(env, "count", self._count, 0, (-1,))
        epoch = 0
        while count < 0 or epoch < count:
            epoch += 1
            got = False
            for elem in self.input.elements(env):
                got = True
                yield elem
            if not got:
                return


class _CountNode(_Unary):
    """``take``/``skip``: a count (-1 for "all") applied to the index stream when the
    input has one (``chunks_fn(passes, count)``), else to the element iterator."""

    chunks_fn = None

    def __init__(self, node, count):
        super().__init__(node)
        self._count = count
        self.scalar_args = (("count", count, 0, (-1,)),)

    def indexed(self, env):
        ix = self.input.indexed(env)
        if ix is None:
            return None
        count = resolve(env, "count", self._count, 0, (-1,))
        chunks = type(self).chunks_fn
        return ix.derive(lambda: chunks(ix.passes(), count))


class TakeNode(_CountNode):
    chunks_fn = staticmethod(index_ops.take_chunks)

    def iterate(self, env):
        count = resolve(env, "count", self._count, 0, (-1,))
        it = self.input.elements(env)
        return it if count < 0 else itertools.islice(it, count)


class SkipNode(_CountNode):
    chunks_fn = staticmethod(index_ops.skip_chunks)

    def iterate(self, env):
        count = resolve(env, "count", self._count, 0, (-1,))
        it = self.input.elements(env)
        if count < 0:
            return iter(())
        return itertools.islice(it, count, None)


class ShardNode(_Unary):
    def __init__(self, node, num_shards, index):
        super().__init__(node)
        self._n = num_shards
        self._i = index

    def indexed(self, env):
        ix = self.input.indexed(env)
        if ix is None:
            return None
        return ix.derive(lambda: index_ops.shard_chunks(ix.passes(), self._n, self._i))

    def iterate(self, env):
        return itertools.islice(self.input.elements(env), self._i, None, self._n)


class CacheNode(_Unary):
    """``cache(filename="")``: the first complete pass is recorded (in memory, or in
    ``filename`` when given) and later passes replay it."""

    def __init__(self, node, filename):
        super().__init__(node)
        self._file = filename

    def indexed(self, env):
        if self._file:
            return None
        ix = self.input.indexed(env)
        if ix is None:
            return None
        key = (id(self), "indices")

        def passes():
            done = env.state.get(key)
            if done is not None:
                yield done
                return
            seen = []
            for c in ix.passes():
                seen.append(c)
                yield c
            env.state[key] = np.concatenate(seen) if seen else np.zeros(0, np.int64)
        return ix.derive(passes)

    def iterate(self, env):
        key = (id(self), "elements")
        done = env.state.get(key)
        if done is None and self._file and os.path.exists(self._file):
            with open(self._file, "rb") as f:
                done = env.state[key] = pickle.load(f)
        if done is not None:
            for elem in done:  # copies: the consumer owns what it gets
                yield tuple(c.copy() for c in elem)
            return
        seen = []
        for elem in self.input.elements(env):
            seen.append(tuple(c.copy() for c in elem))
            yield elem
        env.state[key] = seen
        if self._file:
            tmp = f"{self._file}.tmp-{os.getpid()}"
            with open(tmp, "wb") as f:
                pickle.dump(seen, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, self._file)
