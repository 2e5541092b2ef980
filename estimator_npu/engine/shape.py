"""Static tensor shapes whose dimensions may be unknown (``None``).

``TensorShape.dims`` is TF1's: a list of ``Dimension`` objects (``shape.dims[-1].value``),
or None for an unknown rank. Code that wants plain values reads ``TensorShape.values``: a
tuple of ints and None (None for an unknown rank). ``shape[i]`` is, as in TF1, an
int-like ``KnownDimension`` or ``Dimension(None)`` (``.value`` None; also for any index of
an unknown rank); ``as_list()`` gives ints and None.
"""


class Dimension:
    """TF1's ``tensor_shape.Dimension``: ``Dimension(3)`` is a ``KnownDimension`` (an int
    with ``.value``), ``Dimension(None)`` the unknown dimension (``.value`` None)."""

    __slots__ = ()

    def __new__(cls, value=None):
        if cls is not Dimension:
            return object.__new__(cls)
        if isinstance(value, Dimension):
            return value
        if value is None:
            return UNKNOWN_DIMENSION
        try:
            v = int(value.__index__() if hasattr(value, "__index__") else value)
        except (TypeError, ValueError):
            raise TypeError(f"Dimension value must be an integer or None, got "
                            f"{type(value).__name__}: {value!r}") from None
        if v != value:
            raise TypeError(f"Dimension value must be an integer or None, got {value!r}")
        if v < 0:
            raise ValueError(f"Dimension {v} must be >= 0")
        return KnownDimension(v)

    def is_compatible_with(self, other):
        a, b = self.value, as_dimension(other).value
        return a is None or b is None or a == b

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {other} are not compatible")

    def merge_with(self, other):
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return other if self.value is None else self


class _UnknownDimension(Dimension):
    """``Dimension(None)``: compares (``==``) to None, as TF1's, and is not an int."""

    __slots__ = ()

    @property
    def value(self):
        return None

    def __eq__(self, other):
        return None

    def __ne__(self, other):
        return None

    def __hash__(self):
        return hash(None)

    def __bool__(self):
        return False

    def __repr__(self):
        return "Dimension(None)"

    def __str__(self):
        return "?"

    def _unknown(self, other=None):
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _unknown
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _unknown


UNKNOWN_DIMENSION = _UnknownDimension()


class KnownDimension(int, Dimension):
    """A known dimension from ``shape[i]`` or ``shape.dims``: an int that also answers
    TF1's ``.value`` (``x.shape[3].value``); unknown dimensions are ``None`` there and
    ``Dimension(None)`` in ``dims``."""

    __slots__ = ()

    __new__ = int.__new__

    @property
    def value(self):
        return int(self)

    def __repr__(self):
        return repr(int(self))


def as_dimension(value):
    """``value`` as a ``Dimension`` (ints, None and Dimensions)."""
    return Dimension(value)


def dimension_value(dimension):
    """The int (or None) of a ``Dimension``, an int or None (TF1's helper)."""
    return dimension.value if isinstance(dimension, Dimension) else dimension


def dimension_at_index(shape, index):
    """``as_shape(shape).dims[index]``, or ``Dimension(None)`` for an unknown rank."""
    shape = as_shape(shape)
    if shape.values is None:
        return UNKNOWN_DIMENSION
    return Dimension(shape.values[index])


class TensorShape:
    """A possibly partially known shape: ``values`` is a tuple of ints/None, or None if the
    rank is unknown; ``dims`` the same as TF1's list of ``Dimension`` objects.

    Compares equal to lists and tuples with the same dims (``shape == [None, 10]``).
    """

    __slots__ = ("values",)

    def __init__(self, dims):
        if isinstance(dims, TensorShape):
            dims = dims.values
        elif dims is not None:
            if isinstance(dims, (int,)):
                dims = (dims,)
            if isinstance(dims, (str, bytes)) or not hasattr(dims, "__iter__"):
                raise TypeError(f"A shape must be a list or tuple of ints/None, a TensorShape "
                                f"or None, got {type(dims).__name__}: {dims!r}")
            try:
                dims = tuple(None if d is None or (hasattr(d, "value") and d.value is None)
                             else int(getattr(d, "value", d)) for d in dims)
            except (TypeError, ValueError):
                raise TypeError(f"A shape must be a list or tuple of ints/None, got "
                                f"{dims!r}") from None
            for d in dims:
                if d is not None and d < 0:
                    raise ValueError(f"Shape dimensions must be >= 0 or None, got {dims}")
        self.values = dims

    @property
    def dims(self):
        """TF1's ``dims``: a list of ``Dimension`` objects, or None for an unknown rank."""
        if self.values is None:
            return None
        return [UNKNOWN_DIMENSION if d is None else KnownDimension(d) for d in self.values]

    @property
    def ndims(self):
        return None if self.values is None else len(self.values)

    rank = ndims

    def as_list(self):
        if self.values is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self.values)

    def is_fully_defined(self):
        return self.values is not None and all(d is not None for d in self.values)

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self.values:
            n *= d
        return n

    def is_compatible_with(self, other):
        other = as_shape(other)
        if self.values is None or other.values is None:
            return True
        if len(self.values) != len(other.values):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self.values, other.values))

    def merge_with(self, other):
        other = as_shape(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        if self.values is None:
            return other
        if other.values is None:
            return self
        return TensorShape([a if a is not None else b for a, b in zip(self.values, other.values)])

    def __len__(self):
        if self.values is None:
            raise ValueError("Cannot take the length of a shape with unknown rank.")
        return len(self.values)

    def __iter__(self):
        """TF1's: the ``Dimension`` of each axis (``[d.value for d in shape]``)."""
        if self.values is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self.dims)

    def __getitem__(self, key):
        if self.values is None:
            return TensorShape(None) if isinstance(key, slice) else UNKNOWN_DIMENSION
        if isinstance(key, slice):
            return TensorShape(self.values[key])
        d = self.values[key]
        return UNKNOWN_DIMENSION if d is None else KnownDimension(d)

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self.values == other.values

    def __hash__(self):
        return hash(self.values)

    def __repr__(self):
        if self.values is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self.values)})"

    def __str__(self):
        if self.values is None:
            return "<unknown>"
        return "(" + ", ".join("?" if d is None else str(d) for d in self.values) + \
            ("," if len(self.values) == 1 else "") + ")"


def as_shape(shape):
    """Converts a list/tuple/TensorShape/None to a ``TensorShape``."""
    if isinstance(shape, TensorShape):
        return shape
    return TensorShape(shape)


def unknown_shape():
    return TensorShape(None)
