"""``tf.map_fn``, ``tf.scan``, ``tf.foldl`` and ``tf.foldr`` on top of ``while_loop``.

Each unstacks its (nested) ``elems`` along axis 0 into TensorArrays and runs one loop
iteration per element::

    map_fn(fn, elems):   out[i] = fn(elems[i])
    scan(fn, elems, a):  a = fn(a, elems[i]); out[i] = a
    foldl(fn, elems, a): a = fn(a, elems[i]); result a   (foldr: i from n-1 down to 0)
"""
from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import get_default_graph
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.engine.ops.loop_ops import while_loop
from estimator_npu.engine.ops.tensor_array import TensorArray
from estimator_npu.engine.shape import TensorShape
from estimator_npu.utils import nest


def _leading(flat, what):
    from estimator_npu.engine.ops.array_ops import shape
    if not flat:
        raise ValueError(f"{what}: elems must hold at least one tensor")
    for t in flat:
        if t.shape.ndims == 0:
            raise ValueError(f"{what}: elements in elems must be 1+ dimensional, got "
                             f"{t.name} of shape {t.shape}")
    static = flat[0].shape.values[0] if flat[0].shape.values else None
    n = static if static is not None else shape(flat[0])[0]
    return n, static


def _unstacked(flat):
    tas = []
    for t in flat:
        ta = TensorArray(t.dtype, size=0, dynamic_size=True,
                         element_shape=TensorShape(t.shape.values[1:]) if t.shape.values else None)
        tas.append(ta.unstack(t))
    return tas


def _stacked(tas, static):
    outs = []
    for ta in tas:
        y = ta.stack()
        if static is not None and y.shape.values is not None:
            y.set_shape([static] + list(y.shape.values[1:]))
        outs.append(y)
    return outs


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
           infer_shape=True, name=None):
    """``tf.map_fn``: ``fn`` applied to each slice ``elems[i]`` (nested structures allowed).

    ``dtype`` gives the output structure and dtypes when it differs from ``elems``.
    """
    if not callable(fn):
        raise TypeError("fn must be callable.")
    g = get_default_graph()
    with g.name_scope(name or "map"):
        flat = [convert_to_tensor(t) for t in nest.flatten(elems)]
        n, static = _leading(flat, "map_fn")
        out_struct = elems if dtype is None else dtype
        out_dtypes = [t.dtype for t in flat] if dtype is None else \
            [dtypes.as_dtype(d) for d in nest.flatten(dtype)]
        in_tas = _unstacked(flat)
        out_tas = [TensorArray(d, size=n, dynamic_size=False, infer_shape=infer_shape)
                   for d in out_dtypes]

        def body(i, tas):
            x = nest.pack_sequence_as(elems, [ta.read(i) for ta in in_tas])
            y = fn(x)
            ys = nest.flatten(y)
            if len(ys) != len(tas):
                raise ValueError(f"map_fn: fn returned {len(ys)} tensors but the output "
                                 f"structure {out_struct!r} has {len(tas)}; pass dtype=")
            ys = [convert_to_tensor(v) for v in ys]
            for v, d in zip(ys, out_dtypes):
                if v.dtype != d:
                    raise ValueError(f"map_fn: fn returned {v.dtype.name} where dtype says "
                                     f"{d.name}")
            return i + 1, [ta.write(i, v) for ta, v in zip(tas, ys)]
        _, tas = while_loop(lambda i, tas: i < n, body, [0, out_tas], back_prop=back_prop,
                            parallel_iterations=parallel_iterations or 10, name="while")
        outs = _stacked(tas, static)
    return nest.pack_sequence_as(out_struct, outs)


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
         swap_memory=False, infer_shape=True, reverse=False, name=None):
    """``tf.scan``: every intermediate accumulator of ``a = fn(a, x)`` over ``elems``."""
    if not callable(fn):
        raise TypeError("fn must be callable.")
    g = get_default_graph()
    with g.name_scope(name or "scan"):
        flat = [convert_to_tensor(t) for t in nest.flatten(elems)]
        n, static = _leading(flat, "scan")
        in_tas = _unstacked(flat)

        def elem(i):
            return nest.pack_sequence_as(elems, [ta.read(i) for ta in in_tas])
        if initializer is None:
            a0 = elem(n - 1 if reverse else 0)
            a_struct = elems
            start = 1
        else:
            a0 = initializer
            a_struct = initializer
            start = 0
        a_flat = [convert_to_tensor(t) for t in nest.flatten(a0)]
        out_tas = [TensorArray(t.dtype, size=n, dynamic_size=False, infer_shape=infer_shape)
                   for t in a_flat]
        if start:
            out_tas = [ta.write(n - 1 if reverse else 0, t) for ta, t in zip(out_tas, a_flat)]

        def body(i, a, tas):
            k = n - 1 - i if reverse else i
            new = fn(nest.pack_sequence_as(a_struct, a), elem(k))
            new_flat = [convert_to_tensor(t) for t in nest.flatten(new)]
            return i + 1, new_flat, [ta.write(k, t) for ta, t in zip(tas, new_flat)]
        _, _, tas = while_loop(lambda i, a, tas: i < n, body, [start, a_flat, out_tas],
                               back_prop=back_prop, name="while")
        outs = _stacked(tas, static)
    return nest.pack_sequence_as(a_struct, outs)


def _fold(fn, elems, initializer, back_prop, name, reverse, what):
    if not callable(fn):
        raise TypeError("fn must be callable.")
    g = get_default_graph()
    with g.name_scope(name or what):
        flat = [convert_to_tensor(t) for t in nest.flatten(elems)]
        n, _ = _leading(flat, what)
        in_tas = _unstacked(flat)

        def elem(i):
            return nest.pack_sequence_as(elems, [ta.read(i) for ta in in_tas])
        if initializer is None:
            a0, a_struct, start = elem(n - 1 if reverse else 0), elems, 1
        else:
            a0, a_struct, start = initializer, initializer, 0
        a_flat = [convert_to_tensor(t) for t in nest.flatten(a0)]

        def body(i, a):
            k = n - 1 - i if reverse else i
            new = fn(nest.pack_sequence_as(a_struct, a), elem(k))
            return i + 1, [convert_to_tensor(t) for t in nest.flatten(new)]
        _, a = while_loop(lambda i, a: i < n, body, [start, a_flat], back_prop=back_prop,
                          name="while")
    return nest.pack_sequence_as(a_struct, a)


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """``tf.foldl``: ``a = fn(a, elems[i])`` for i = 0 .. n-1; returns the final ``a``."""
    return _fold(fn, elems, initializer, back_prop, name, False, "foldl")


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """``tf.foldr``: ``a = fn(a, elems[i])`` for i = n-1 .. 0; returns the final ``a``."""
    return _fold(fn, elems, initializer, back_prop, name, True, "foldr")


__all__ = ["map_fn", "scan", "foldl", "foldr"]
