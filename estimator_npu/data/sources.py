"""Source nodes: tensors, tensor slices, ranges, Python generators; zip and concatenate."""
import itertools

import numpy as np

from estimator_npu import errors
from estimator_npu.data import index_ops
from estimator_npu.data.base import IndexStream, Node, row_copy
from estimator_npu.data.structure import (Spec, castable, component_spec, components,
                                          most_specific_compatible, shape_matches,
                                          unbatched_shape)
from estimator_npu.engine.graph import Tensor
from estimator_npu.engine.shape import TensorShape


def _resolved(comps, env):
    return tuple(env.value(c) if isinstance(c, Tensor) else c for c in comps)


class TensorsNode(Node):
    """``from_tensors``: a single element."""

    def __init__(self, value):
        structure, self._comps = components(value, "from_tensors")
        specs = [component_spec(c) for c in self._comps]
        self.spec = Spec(structure, [s[0] for s in specs], [s[1] for s in specs])

    def captures(self):
        return [c for c in self._comps if isinstance(c, Tensor)]

    def iterate(self, env):
        yield tuple(np.array(a) for a in _resolved(self._comps, env))


class SlicesNode(Node):
    """``from_tensor_slices``: the rows of every component (same first dimension)."""

    def __init__(self, value):
        structure, self._comps = components(value, "from_tensor_slices")
        if not self._comps:
            raise ValueError("from_tensor_slices needs at least one component")
        specs = [component_spec(c) for c in self._comps]
        for i, (_, shape) in enumerate(specs):
            if shape.values is not None and len(shape.values) == 0:
                raise ValueError(f"from_tensor_slices: component {i} is a scalar; every "
                                 "component needs a first dimension to slice")
        self._check_lengths([s[1][0] for s in specs], ValueError)
        self.spec = Spec(structure, [s[0] for s in specs],
                         [unbatched_shape(s[1]) for s in specs])

    @staticmethod
    def _check_lengths(lengths, exc):
        known = [(i, n) for i, n in enumerate(lengths) if n is not None]
        for i, n in known[1:]:
            if n != known[0][1]:
                msg = (f"from_tensor_slices: all components must have the same size in "
                       f"their first dimension, but component {known[0][0]} has "
                       f"{known[0][1]} and component {i} has {n}")
                raise exc(msg) if exc is ValueError else exc(None, None, msg)

    def captures(self):
        return [c for c in self._comps if isinstance(c, Tensor)]

    def validate(self, env):
        self._arrays(env)

    def _arrays(self, env):
        arrays = _resolved(self._comps, env)
        for i, a in enumerate(arrays):
            if np.ndim(a) == 0:
                raise errors.InvalidArgumentError(
                    None, None, f"from_tensor_slices: component {i} is a scalar")
        self._check_lengths([len(a) for a in arrays], errors.InvalidArgumentError)
        return arrays

    def indexed(self, env):
        arrays = self._arrays(env)
        n = len(arrays[0])
        return IndexStream(arrays, lambda: index_ops.arange_chunks(n))

    def iterate(self, env):
        arrays = self._arrays(env)
        for i in range(len(arrays[0])):
            yield tuple(row_copy(a, i) for a in arrays)


class RangeNode(Node):
    """``range(start, stop, step)`` of int64 scalars; ``stop=None`` counts forever."""

    MAX_INDEXED = 1 << 24

    def __init__(self, start, stop, step, dtype):
        if step == 0:
            raise ValueError("range: step must not be 0, got 0")
        self._args = (start, stop, step)
        self._np = dtype.np
        self.spec = Spec(None, [dtype], [TensorShape([])])

    def indexed(self, env):
        start, stop, step = self._args
        if stop is None or len(range(start, stop, step)) > self.MAX_INDEXED:
            return None
        values = np.arange(start, stop, step, dtype=self._np)
        return IndexStream((values,), lambda: index_ops.arange_chunks(len(values)))

    def iterate(self, env):
        start, stop, step = self._args
        seq = itertools.count(start, step) if stop is None else range(start, stop, step)
        npt = self._np.type
        for v in seq:
            yield (np.asarray(npt(v)),)


class GeneratorNode(Node):
    """``from_generator``: elements yielded by a Python generator, checked against the
    declared types and shapes."""

    def __init__(self, generator, spec, args):
        if not callable(generator):
            raise TypeError(f"generator must be callable, got {type(generator).__name__}: "
                            f"{generator!r}")
        self._gen = generator
        self.spec = spec
        self._args = []
        for a in args or ():
            _, comps = components(a, "from_generator args")
            self._args.append(comps[0] if len(comps) == 1 else a)

    def captures(self):
        return [a for a in self._args if isinstance(a, Tensor)]

    def iterate(self, env):
        args = [_generator_arg(env.value(a) if isinstance(a, Tensor) else a)
                for a in self._args]
        spec = self.spec
        npts = [t.np for t in spec.types]
        for value in self._gen(*args):
            flat = _flatten_like(spec.structure, value)
            out = []
            for i, (v, npt, shape) in enumerate(zip(flat, npts, spec.shapes)):
                a = np.asarray(v)
                if a.dtype != npt:
                    if not castable(a.dtype, npt):
                        raise errors.InvalidArgumentError(
                            None, None, f"`generator` yielded an element that could not be "
                            f"converted to the expected type. The expected type was "
                            f"{spec.types[i].name}, but the yielded element was {v!r}.")
                    a = a.astype(npt)
                elif a is v:
                    a = a.copy()
                if not shape_matches(shape, a.shape):
                    raise errors.InvalidArgumentError(
                        None, None, f"`generator` yielded an element of shape {a.shape} "
                        f"where an element of shape {shape} was expected.")
                out.append(a)
            yield tuple(out)


def _generator_arg(value):
    """One ``args`` value as TF hands it to the generator: a numpy array, a numpy scalar
    when 0-d, strings as ``bytes`` (``open(path)`` and ``.decode()`` work on them)."""
    a = np.asarray(value)
    if a.dtype.kind in "OUS":
        a = np.array([v.encode() if isinstance(v, str) else v for v in a.ravel().tolist()],
                     dtype=object).reshape(a.shape)
    return a[()] if a.ndim == 0 else a


def _flatten_like(structure, value):
    """Flattens a generator's value up to ``structure`` (lists accepted for tuples)."""
    if structure is None:
        return [value]
    if isinstance(structure, dict) or hasattr(structure, "keys"):
        if not hasattr(value, "keys") or set(value.keys()) != set(structure.keys()):
            raise errors.InvalidArgumentError(
                None, None, f"`generator` yielded {value!r}, which does not match the "
                f"expected structure with keys {sorted(structure)}")
        out = []
        for k in sorted(structure):
            out.extend(_flatten_like(structure[k], value[k]))
        return out
    if not isinstance(value, (tuple, list)) or len(value) != len(structure):
        raise errors.InvalidArgumentError(
            None, None, f"`generator` yielded an element {value!r} that does not match the "
            f"expected structure of {len(structure)} components")
    out = []
    for s, v in zip(structure, value):
        out.extend(_flatten_like(s, v))
    return out


class ZipNode(Node):
    """``zip``: elements of several datasets side by side; ends with the shortest."""

    def __init__(self, structure, nodes):
        from estimator_npu.utils import nest
        self.inputs = tuple(nodes)
        self.spec = Spec(nest.pack_sequence_as(structure, [n.spec.structure for n in nodes]),
                         [t for n in nodes for t in n.spec.types],
                         [s for n in nodes for s in n.spec.shapes])

    def iterate(self, env):
        its = [n.elements(env) for n in self.inputs]
        for parts in zip(*its):
            yield tuple(c for p in parts for c in p)


class ConcatenateNode(Node):
    """``concatenate``: the elements of one dataset, then those of another."""

    def __init__(self, first, second):
        a, b = first.spec, second.spec
        from estimator_npu.utils import nest
        try:
            nest.assert_same_structure(a.structure, b.structure, check_types=False)
        except (TypeError, ValueError) as e:
            raise TypeError(f"concatenate: the datasets have different structures: "
                            f"{e}") from None
        if a.types != b.types:
            raise TypeError(f"concatenate: the datasets have different types "
                            f"{a.output_types()} and {b.output_types()}")
        self.inputs = (first, second)
        self.spec = Spec(a.structure, a.types,
                         [most_specific_compatible(x, y) for x, y in zip(a.shapes, b.shapes)])

    def iterate(self, env):
        yield from self.inputs[0].elements(env)
        yield from self.inputs[1].elements(env)
