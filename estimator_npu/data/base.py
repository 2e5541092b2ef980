"""The dataset node protocol that every source and transformation implements.

A public ``Dataset`` wraps one ``Node``. Nodes are immutable descriptions; iterating one
needs an ``Env`` holding the values of the graph tensors the pipeline captured (a
``from_tensor_slices(placeholder)`` source, a tensor ``batch_size``) and the per-iterator
state (shuffle generators, caches). An iterator initializer evaluates the captured
tensors in the session and starts ``node.elements(env)``::

    env = Env(dict(zip(all_captures(node), values)))
    it = node.elements(env)       # yields flat tuples of numpy arrays, one per element

Fast path. A node whose elements are rows of fixed source arrays can also describe a pass
as a stream of index vectors (``node.indexed(env) -> IndexStream``): from_tensor_slices,
range, shuffle, repeat, take, skip, shard, cache and prefetch propagate it, and ``batch``
then gathers each batch with one fancy-indexing per component instead of stacking
``batch_size`` single elements. A ``map`` whose traced function works row by row (see
``rowwise``) propagates it too, as a ``post`` function applied to each gathered batch:
mapping commutes with the index-only transformations, so the elements and their order
are those of the element-by-element path.
"""
import numpy as np

from estimator_npu import errors
from estimator_npu.engine.graph import Tensor
from estimator_npu.utils import validation


class IndexStream:
    """Rows of ``arrays`` (all with the same first dimension) picked by index vectors.

    ``passes()`` starts one pass over the dataset and returns an iterator of 1-D int64
    index chunks whose concatenation is the element order of that pass. ``post``, when
    not ``None``, maps a tuple of gathered row blocks (one per array) to the element
    components of those rows (a row-wise ``map``).
    """

    __slots__ = ("arrays", "passes", "post")

    def __init__(self, arrays, passes, post=None):
        self.arrays = arrays
        self.passes = passes
        self.post = post

    def derive(self, passes):
        """The same rows and ``post`` with another index stream."""
        return IndexStream(self.arrays, passes, self.post)

    def gather(self, idx):
        """The batched element of the rows ``idx``."""
        block = tuple([a.take(idx, axis=0) for a in self.arrays])
        return block if self.post is None else self.post(block)


class Env:
    """Captured tensor values and per-iterator state for one iteration of a pipeline."""

    __slots__ = ("values", "state")

    def __init__(self, values=None):
        self.values = values or {}
        self.state = {}

    def value(self, tensor):
        return self.values[tensor]


class Node:
    """A dataset: static ``spec``, input nodes, captured tensors and two ways to iterate.

    Subclasses set ``spec`` and ``inputs`` and implement ``iterate``; ``indexed`` returns
    ``None`` unless the node supports the index fast path.
    """

    inputs = ()
    spec = None
    scalar_args = ()  # (name, int or Tensor, minimum, allowed extras), see ``scalar_arg``

    def validate(self, env):
        """Checks what can be checked before iterating (run by the initializer): the
        values of tensor arguments and captured components."""
        for n in self.inputs:
            n.validate(env)
        for name, value, minimum, allow in self.scalar_args:
            resolve(env, name, value, minimum, allow)

    def captures(self):
        """Graph tensors this node itself reads (not those of its inputs)."""
        return [v for _, v, _, _ in self.scalar_args if isinstance(v, Tensor)]

    def iterate(self, env):
        raise NotImplementedError

    def indexed(self, env):
        return None

    def cheap(self, env):
        """Whether producing an element costs about one copy of it (no per-element
        Python work), so a prefetch thread's handoff would cost more than it saves."""
        return False

    def elements(self, env):
        """Iterates the node, by gathering single rows when it is index-capable."""
        ix = self.indexed(env)
        if ix is None:
            return self.iterate(env)
        return _rows(ix)

    @property
    def name(self):
        return type(self).__name__


_POST_ROWS = 256  # rows mapped at a time when a row-wise map feeds single elements


def _rows(ix):
    arrays = ix.arrays
    if ix.post is not None:
        for chunk in ix.passes():
            for s in range(0, len(chunk), _POST_ROWS):
                cols = ix.gather(chunk[s:s + _POST_ROWS])
                for i in range(len(cols[0])):
                    yield tuple([c[i] for c in cols])
        return
    if any(a.flags.writeable for a in arrays):
        for chunk in ix.passes():
            for i in chunk.tolist():
                yield tuple([row_copy(a, i) for a in arrays])
        return
    # Read-only sources: rows are views (the hot path of the device loop's get_next).
    if len(arrays) == 1:
        (a0,) = arrays
        for chunk in ix.passes():
            for i in chunk.tolist():
                yield (a0[i],)
    elif len(arrays) == 2:
        a0, a1 = arrays
        for chunk in ix.passes():
            for i in chunk.tolist():
                yield (a0[i], a1[i])
    else:
        for chunk in ix.passes():
            for i in chunk.tolist():
                yield tuple([a[i] for a in arrays])


def row_copy(a, i):
    """Row ``i`` of ``a``: a view when ``a`` is read-only (kernels never write into their
    inputs, and the session copies fetched values), else a copy."""
    return a[i, ...] if not a.flags.writeable else a[i, ...].copy()


def all_captures(node):
    """The distinct tensors captured by ``node`` and its inputs, in a fixed order."""
    seen, out, stack = set(), [], [node]
    visited = set()
    while stack:
        n = stack.pop()
        if id(n) in visited:
            continue
        visited.add(id(n))
        for t in n.captures():
            if t not in seen:
                seen.add(t)
                out.append(t)
        stack.extend(reversed(n.inputs))
    return out


# ---------------------------------------------------------------- scalar arguments
AUTOTUNE = -1


def scalar_arg(name, value, minimum=1, allow=()):
    """Validates an int argument that may also be a scalar graph tensor.

    Returns the Python int, or the Tensor (checked when the iterator is initialized).
    ``allow`` lists extra accepted values (``-1`` for "all", ``AUTOTUNE``).
    """
    if isinstance(value, Tensor) or hasattr(value, "_as_tensor"):
        from estimator_npu.engine.ops.core import convert_to_tensor
        t = convert_to_tensor(value)
        if not t.dtype.is_integer:
            raise TypeError(f"{name} must be an integer tensor, got dtype {t.dtype.name}")
        if t.shape.values is not None and t.shape.values != ():
            raise ValueError(f"{name} must be a scalar, got a tensor of shape {t.shape}")
        return t
    value = validation.check_int(name, value)
    if value in allow:
        return value
    if minimum == 0:
        return validation.check_non_negative_int(name, value)
    if minimum == 1:
        return validation.check_positive_int(name, value)
    if value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value}")
    return value


def resolve(env, name, value, minimum=1, allow=()):
    """The value of a ``scalar_arg`` in ``env``; a bad tensor value raises
    ``InvalidArgumentError`` naming the argument."""
    if not isinstance(value, Tensor):
        return value
    v = int(np.asarray(env.value(value)))
    if v < minimum and v not in allow:
        raise errors.InvalidArgumentError(
            None, None, f"{name} must be >= {minimum}, got {v} (fed to {value.name})")
    return v
