"""Element structures: nests of components with static dtypes and shapes.

An element of a dataset is a *structure*: a tuple, namedtuple or dict of structures, or a
single component. Lists are *not* structure, as in TF1: ``from_tensor_slices([1, 2, 3])``
has one int32 component. Inside the pipeline every element travels as a flat tuple of
numpy arrays in ``nest.flatten`` order; ``Spec`` remembers how to rebuild it::

    structure, comps = components({"y": y, "x": x}, "example")  # x: float32, y: int64
    structure     # {"y": None, "x": None}
    comps         # [x, y]                     (sorted keys, as nest flattens)
    Spec(structure, [tf.float32, tf.int64], [[784], []]).pack([t0, t1])  # {"y": t1, "x": t0}
"""
import collections.abc

import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import Tensor
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.engine.shape import TensorShape, as_shape
from estimator_npu.utils import nest, validation


def normalize(value, leaf_fn):
    """Rebuilds ``value`` with every component replaced by ``leaf_fn(component)``.

    Tuples (namedtuples included) and mappings are structure; anything else, lists
    included, is one component.
    """
    if isinstance(value, collections.abc.Mapping):
        items = [(k, normalize(v, leaf_fn)) for k, v in value.items()]
        return dict(items) if type(value) is dict or isinstance(
            value, collections.defaultdict) else type(value)(items)
    if isinstance(value, tuple):
        children = [normalize(v, leaf_fn) for v in value]
        return type(value)(*children) if hasattr(value, "_fields") else tuple(children)
    return leaf_fn(value)


def is_tensor_like(value):
    return isinstance(value, Tensor) or hasattr(value, "_as_tensor")


def to_array(value):
    """Converts a Python/numpy value to an array with TF1's default dtypes.

    numpy arrays keep their dtype (strings become object arrays); Python floats become
    float32 and Python ints int32, as ``tf.constant`` does.
    """
    if isinstance(value, np.ndarray):
        arr = np.array(value)  # a snapshot, as TF copies the value into the graph
    elif isinstance(value, np.generic):
        arr = np.asarray(value)
    else:
        arr = np.asarray(value)
        if arr.dtype == np.float64:
            with np.errstate(over="ignore"):   # beyond float32: inf, as TF
                arr = arr.astype(np.float32)
        elif arr.dtype == np.int64:
            arr = arr.astype(np.int32)
    if arr.dtype.kind in "SU":
        arr = arr.astype(object)
    if arr.dtype.kind == "O":
        found, leaf = validation.unconvertible_leaf(value)
        if found:
            raise TypeError(f"a value of type {type(leaf).__name__} ({leaf!r:.60}) cannot be "
                            f"part of a tensor (numbers, booleans or strings)")
        if not all(isinstance(x, (str, bytes)) for x in arr.flat):
            raise ValueError("mixes strings and numbers, or holds an integer too large for "
                             "int64")
    dtypes.as_dtype(arr.dtype)  # raises TypeError for unsupported element types
    arr.setflags(write=False)   # elements are handed out as views of it
    return arr


def castable(src, dst):
    """Whether values of numpy dtype ``src`` may be converted to ``dst`` without changing
    kind (float to int is refused, int to float is accepted)."""
    src, dst = np.dtype(src), np.dtype(dst)
    if src.kind in "OSU" or dst.kind == "O":
        return src.kind in "OSU" and dst.kind == "O"
    return src.kind == "b" or bool(np.can_cast(src, dst, "same_kind"))


class Spec:
    """The static structure, dtypes and shapes of a dataset's elements.

    Attributes:
        structure: the element nest with ``None`` at every component.
        types: list of ``DType``, one per component in flattening order.
        shapes: list of ``TensorShape``, one per component.
    """

    __slots__ = ("structure", "types", "shapes", "_pack")

    def __init__(self, structure, types, shapes):
        self.structure = structure
        self.types = [dtypes.as_dtype(t) for t in types]
        self.shapes = [as_shape(s) for s in shapes]
        n = len(nest.flatten(structure))
        if n != len(self.types) or n != len(self.shapes):
            raise ValueError(f"element structure has {n} components but {len(self.types)} "
                             f"types and {len(self.shapes)} shapes were given")
        self._pack = nest.flatten_with_packer(structure)[1]

    @classmethod
    def from_nests(cls, types, shapes=None):
        """A spec from a nest of dtypes and an optional nest of shapes read up to it.

        Lists in ``types`` are tuples (``[tf.int32, tf.float32]`` is a pair); ``shapes``
        is read up to the structure of ``types``, so each shape may be a list.
        """
        types = normalize(_lists_to_tuples(types), dtypes.as_dtype)
        structure = normalize(types, lambda _: None)
        flat_types = nest.flatten(types)
        if shapes is None:
            flat_shapes = [TensorShape(None)] * len(flat_types)
        else:
            flat_shapes = []
            shapes_up_to(structure, shapes, "", flat_shapes)
        return cls(structure, flat_types, flat_shapes)

    def pack(self, flat):
        """Rebuilds an element (of tensors, arrays, dtypes...) from its flat components."""
        return self._pack(list(flat))

    @property
    def num_components(self):
        return len(self.types)

    def output_types(self):
        return self.pack(self.types)

    def output_shapes(self):
        return self.pack(self.shapes)

    def output_classes(self):
        return self.pack([Tensor] * len(self.types))

    def is_compatible_with(self, other):
        """Same structure and dtypes, and pairwise compatible shapes."""
        try:
            nest.assert_same_structure(self.structure, other.structure, check_types=False)
        except (TypeError, ValueError):
            return False
        return (self.types == other.types and
                all(a.is_compatible_with(b) for a, b in zip(self.shapes, other.shapes)))

    def __repr__(self):
        return f"Spec(types={self.output_types()}, shapes={self.output_shapes()})"


def _lists_to_tuples(value):
    if isinstance(value, list):
        return tuple(_lists_to_tuples(v) for v in value)
    if isinstance(value, collections.abc.Mapping):
        return {k: _lists_to_tuples(v) for k, v in value.items()}
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(_lists_to_tuples(v) for v in value)
    return value


def shapes_up_to(structure, shapes, path, out):
    """Appends to ``out`` the shapes of ``shapes`` read up to ``structure``."""
    if isinstance(structure, collections.abc.Mapping):
        if not isinstance(shapes, collections.abc.Mapping) or set(shapes) != set(structure):
            raise TypeError(f"output_shapes{path} must be a dict with keys "
                            f"{sorted(structure)}, got {shapes!r}")
        for k in sorted(structure):
            shapes_up_to(structure[k], shapes[k], f"{path}[{k!r}]", out)
    elif isinstance(structure, tuple):
        if not isinstance(shapes, (list, tuple)) or len(shapes) != len(structure):
            raise TypeError(f"output_shapes{path} must be a sequence of {len(structure)} "
                            f"shapes, matching output_types, got {shapes!r}")
        for i, (s, v) in enumerate(zip(structure, shapes)):
            shapes_up_to(s, v, f"{path}[{i}]", out)
    else:
        if isinstance(shapes, (list, tuple)):
            shapes = [None if d is not None and d == -1 else d for d in shapes]
        out.append(as_shape(shapes))


def _leaf_paths(value, path=""):
    """The path of every component of ``value`` as ``normalize`` visits them (``[0]``,
    ``['x']``, ``[1][0]``...)."""
    if isinstance(value, collections.abc.Mapping):
        return [p for k, v in value.items() for p in _leaf_paths(v, f"{path}[{k!r}]")]
    if isinstance(value, tuple):
        return [p for i, v in enumerate(value) for p in _leaf_paths(v, f"{path}[{i}]")]
    return [path]


def components(value, name):
    """Flattens a user value into ``(structure, flat components)``; each component is a
    Tensor (for graph values) or a numpy array."""
    paths = _leaf_paths(value)
    count = iter(range(len(paths)))

    def leaf(v):
        path = paths[next(count)]
        where = f"component {path}" if path else "the element"
        if v is None:
            raise TypeError(f"{name}: None is not a valid component of a dataset element "
                            f"({where})")
        if is_tensor_like(v):
            return convert_to_tensor(v)
        if isinstance(v, (list,)) and any(is_tensor_like(x) for x in nest.flatten(v)):
            return convert_to_tensor(v)
        try:
            return to_array(v)
        except ValueError as e:
            ragged = validation.ragged_description(v)
            if ragged is None:
                raise ValueError(f"{name}: {where}: {e}") from None
            raise ValueError(f"{name}: {where} is ragged: {ragged}; every row of a component "
                             f"must have the same length.") from None
        except TypeError as e:
            raise TypeError(f"{name}: {where}: {e}") from None
    normalized = normalize(value, leaf)
    return normalize(normalized, lambda _: None), nest.flatten(normalized)


def component_spec(c):
    """``(DType, TensorShape)`` of a component (Tensor or array)."""
    if isinstance(c, Tensor):
        return c.dtype, c.shape
    return dtypes.as_dtype(c.dtype), TensorShape(c.shape)


def batched_shape(shape, size):
    """``shape`` with a leading batch dimension of ``size`` (``None`` when unknown)."""
    shape = as_shape(shape)
    return TensorShape(None) if shape.values is None else TensorShape((size,) + shape.values)


def unbatched_shape(shape):
    shape = as_shape(shape)
    return TensorShape(None) if shape.values is None else TensorShape(shape.values[1:])


def most_specific_compatible(a, b):
    """The most specific shape compatible with both (dims that differ become unknown)."""
    a, b = as_shape(a), as_shape(b)
    if a.values is None or b.values is None or len(a.values) != len(b.values):
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(a.values, b.values)])


def shape_matches(static, actual):
    """Whether a concrete shape tuple ``actual`` satisfies the static ``TensorShape``."""
    dims = static.values
    if dims is None:
        return True
    return len(dims) == len(actual) and all(d is None or d == s for d, s in zip(dims, actual))
