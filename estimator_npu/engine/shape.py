"""Static tensor shapes whose dimensions may be unknown (``None``)."""


class KnownDimension(int):
    """A known dimension from ``shape[i]``: an int that also answers TF1's ``.value``
    (``x.shape[3].value``); unknown dimensions are ``None``."""

    __slots__ = ()

    @property
    def value(self):
        return int(self)

    def __repr__(self):
        return repr(int(self))


class TensorShape:
    """A possibly partially known shape: ``dims`` is a tuple of ints/None, or None if unknown rank.

    Compares equal to lists and tuples with the same dims (``shape == [None, 10]``).
    """

    __slots__ = ("dims",)

    def __init__(self, dims):
        if isinstance(dims, TensorShape):
            dims = dims.dims
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
        self.dims = dims

    @property
    def ndims(self):
        return None if self.dims is None else len(self.dims)

    rank = ndims

    def as_list(self):
        if self.dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self.dims)

    def is_fully_defined(self):
        return self.dims is not None and all(d is not None for d in self.dims)

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self.dims:
            n *= d
        return n

    def is_compatible_with(self, other):
        other = as_shape(other)
        if self.dims is None or other.dims is None:
            return True
        if len(self.dims) != len(other.dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self.dims, other.dims))

    def merge_with(self, other):
        other = as_shape(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        if self.dims is None:
            return other
        if other.dims is None:
            return self
        return TensorShape([a if a is not None else b for a, b in zip(self.dims, other.dims)])

    def __len__(self):
        if self.dims is None:
            raise ValueError("Cannot take the length of a shape with unknown rank.")
        return len(self.dims)

    def __iter__(self):
        if self.dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self.dims)

    def __getitem__(self, key):
        if self.dims is None:
            return None if isinstance(key, int) else TensorShape(None)
        if isinstance(key, slice):
            return TensorShape(self.dims[key])
        d = self.dims[key]
        return d if d is None else KnownDimension(d)

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self.dims == other.dims

    def __hash__(self):
        return hash(self.dims)

    def __repr__(self):
        if self.dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self.dims)})"

    def __str__(self):
        if self.dims is None:
            return "<unknown>"
        return "(" + ", ".join("?" if d is None else str(d) for d in self.dims) + \
            ("," if len(self.dims) == 1 else "") + ")"


def as_shape(shape):
    """Converts a list/tuple/TensorShape/None to a ``TensorShape``."""
    if isinstance(shape, TensorShape):
        return shape
    return TensorShape(shape)


def unknown_shape():
    return TensorShape(None)
