"""``batch`` of elements that hold ``SparseTensor``s (e.g. ``VarLenFeature``s parsed per
record): each sparse component gets a leading batch index, as TF batches them::

    element k:  indices [[0], [1]], values [a, b], dense_shape [2]
    batch:      indices [[k, 0], [k, 1], ...], values [..., a, b, ...],
                dense_shape [batch, longest]

A dataset element travels as flat components; a ``SparseTensor`` in its structure is
three consecutive ones (indices, values, dense_shape). Dense components are stacked as
``BatchNode`` does.
"""
import collections.abc
import itertools

import numpy as np

from estimator_npu.data.base import Node, resolve
from estimator_npu.data.sparse import SparseTensor
from estimator_npu.data.structure import Spec, batched_shape
from estimator_npu.data.transforms import stack_rows
from estimator_npu.engine.shape import TensorShape
from estimator_npu.utils import nest


class _Mark:
    __slots__ = ("sparse", "field")

    def __init__(self, sparse, field):
        self.sparse = sparse
        self.field = field


def sparse_positions(structure):
    """``[(i_indices, i_values, i_shape), ...]`` flat positions of the SparseTensors of
    ``structure`` (an element structure), or ``[]``."""
    count = itertools.count()

    def walk(s):
        if isinstance(s, SparseTensor):
            k = next(count)
            return SparseTensor(_Mark(k, 0), _Mark(k, 1), _Mark(k, 2))
        if isinstance(s, collections.abc.Mapping):
            return type(s)((key, walk(v)) for key, v in s.items()) if type(s) is not dict \
                else {key: walk(v) for key, v in s.items()}
        if isinstance(s, tuple):
            children = [walk(v) for v in s]
            return type(s)(*children) if hasattr(s, "_fields") else tuple(children)
        return _Mark(None, None)
    flat = nest.flatten(walk(structure))
    groups = {}
    for i, m in enumerate(flat):
        if m.sparse is not None:
            groups.setdefault(m.sparse, [None] * 3)[m.field] = i
    return [tuple(g) for _, g in sorted(groups.items())]


class SparseBatchNode(Node):
    def __init__(self, node, batch_size, drop_remainder, groups):
        self.inputs = (node,)
        self._size = batch_size
        self._drop = drop_remainder
        self._groups = groups
        self.scalar_args = (("batch_size", batch_size, 1, ()),)
        static = batch_size if (drop_remainder and isinstance(batch_size, int)) else None
        spec = node.spec
        shapes = [batched_shape(s, static) for s in spec.shapes]
        in_sparse = set()
        for gi, gv, gs in groups:
            in_sparse.update((gi, gv, gs))
            rank = spec.shapes[gs].values[0] if spec.shapes[gs].values else None
            r = None if rank is None else rank + 1
            shapes[gi] = TensorShape([None, r])
            shapes[gv] = TensorShape([None])
            shapes[gs] = TensorShape([r])
        self._dense = [i for i in range(spec.num_components) if i not in in_sparse]
        self.spec = Spec(spec.structure, spec.types, shapes)

    def iterate(self, env):
        size = resolve(env, "batch_size", self._size)
        it = self.inputs[0].elements(env)
        n = self.spec.num_components
        while True:
            rows = list(itertools.islice(it, size))
            if not rows or (self._drop and len(rows) < size):
                return
            out = [None] * n
            dense = stack_rows([tuple(r[i] for i in self._dense) for r in rows],
                               len(self._dense))
            for i, v in zip(self._dense, dense):
                out[i] = v
            for gi, gv, gs in self._groups:
                out[gi], out[gv], out[gs] = _batch_sparse(
                    [r[gi] for r in rows], [r[gv] for r in rows], [r[gs] for r in rows])
            yield tuple(out)


def _batch_sparse(indices, values, shapes):
    shapes = [np.asarray(s, np.int64).reshape(-1) for s in shapes]
    rank = len(shapes[0])
    parts = []
    for k, idx in enumerate(indices):
        idx = np.asarray(idx, np.int64).reshape(-1, rank)
        parts.append(np.hstack([np.full((len(idx), 1), k, np.int64), idx]))
    dense_shape = np.concatenate([[len(shapes)], np.max(np.stack(shapes), axis=0)])
    return (np.concatenate(parts).astype(np.int64), np.concatenate(
        [np.asarray(v).reshape(-1) for v in values]), dense_shape.astype(np.int64))
