"""Shapes computed at run time (``[tf.shape(x)[0], -1]``, ``tf.shape(y)``): one helper turns
them into an int32 shape tensor plus the partial static shape TF1 infers from it, and the
ops that take such a shape (fill, random, tile, slice, range) have ``*Dynamic`` variants."""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import Tensor
from estimator_npu.engine.ops.core import constant, convert_to_tensor, make_tensor
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily, simple
from estimator_npu.engine.ops.reduction_ops import reduce_sum as _reduce_sum
from estimator_npu.engine.shape import TensorShape

OPS = OpFamily(__name__)  # this family's op definitions (data)


def is_dynamic(value):
    """Whether ``value`` (a shape argument) holds tensors that are not constants."""
    if isinstance(value, Tensor) or hasattr(value, "_as_tensor"):
        return convert_to_tensor(value).op.type != "Const"
    if isinstance(value, (list, tuple)):
        return any(is_dynamic(v) for v in value)
    return False


def _scalar_partial(t):
    """The static value of scalar int tensor ``t`` (``None`` if unknown)."""
    op = t.op
    if op.type == "Const":
        return int(np.asarray(op.attrs["value"]))
    if op.type == "StridedSlice" and op.inputs[0].op.type == "Shape":
        key = op.attrs["key"]
        src = op.inputs[0].op.inputs[0].shape
        if len(key) == 1 and isinstance(key[0], int) and src.ndims is not None:
            return src.values[key[0]]
    return None


def _vector_partial(t):
    """The partial static value (list of int/None, or None) of 1-D int tensor ``t``."""
    op = t.op
    if op.type == "Const":
        return [int(v) for v in np.ravel(op.attrs["value"])]
    if op.type == "Shape":
        s = op.inputs[0].shape
        return None if s.ndims is None else list(s.values)
    if op.type == "ExpandDims" and op.inputs[0].shape.ndims == 0:
        return [_scalar_partial(op.inputs[0])]
    if op.type == "ConcatV2":
        parts = [_vector_partial(i) for i in op.inputs]
        return None if any(p is None for p in parts) else [d for p in parts for d in p]
    if op.type == "StridedSlice" and op.inputs[0].op.type == "Shape":
        full = _vector_partial(op.inputs[0])
        key = op.attrs["key"]
        if full is not None and len(key) == 1 and isinstance(key[0], slice):
            return full[key[0]]
    if t.shape.ndims == 1 and t.shape.values[0] is not None:
        return [None] * t.shape.values[0]
    return None


def shape_tensor(value, op_name):
    """``(int32 shape tensor, partial dims list or None)`` for a shape argument holding
    tensors (a 1-D tensor, or a list mixing ints and scalar tensors)."""
    from estimator_npu.engine.ops import array_ops, math_ops
    if isinstance(value, (list, tuple)):
        parts, partial = [], []
        for v in value:
            if isinstance(v, Tensor) or hasattr(v, "_as_tensor"):
                t = convert_to_tensor(v)
                if not t.dtype.is_integer or t.shape.ndims not in (None, 0):
                    raise TypeError(f"{op_name}: shape entries must be ints or scalar int "
                                    f"tensors, got {t}")
                parts.append(math_ops.cast(t, dtypes.int32))
                partial.append(_scalar_partial(t))
            else:
                parts.append(constant(int(v), dtype=dtypes.int32))
                partial.append(None if int(v) == -1 else int(v))
        return array_ops.stack(parts), partial
    t = convert_to_tensor(value)
    if not t.dtype.is_integer or t.shape.ndims not in (None, 1):
        raise TypeError(f"{op_name}: shape must be a 1-D int tensor, got {t}")
    p = _vector_partial(t)
    return math_ops.cast(t, dtypes.int32), None if p is None else \
        [None if d == -1 else d for d in p]


def _static(partial):
    return TensorShape(None) if partial is None else TensorShape(partial)


# ------------------------------------------------------------------ fill / random
def fill_dynamic(shape, value, dtype=None, name=None):
    s, partial = shape_tensor(shape, "fill")
    v = convert_to_tensor(value, dtype=dtype)
    return make_tensor("FillDynamic", [s, v], v.dtype, _static(partial), name=name)


OPS.define("FillDynamic", kernel=simple(lambda s, v: np.full(tuple(int(d) for d in s), v)),
           grad=lambda op, dy: [None, _reduce_sum(dy)])

def random_dynamic(op_type, shape, dtype, seed, name, **attrs):
    from estimator_npu.engine.ops.random_ops import get_seed
    s, partial = shape_tensor(shape, op_type)
    dt = dtypes.as_dtype(dtype)
    s1, s2 = get_seed(seed)
    attrs.update({"dtype": dt, "seed2": None if s1 is None else
                  [s1 & 0xFFFFFFFF, s2 & 0xFFFFFFFF]})
    return make_tensor(op_type + "Dynamic", [s], dt, _static(partial), attrs,
                       name=name or op_type)


def _random_kernel(kind):
    def factory(op, ctx):
        from estimator_npu.engine.ops.random_ops import draw
        return lambda s: draw(kind, op, ctx, tuple(int(d) for d in s), op.attrs)
    return factory


for _t, _k in (("RandomNormalDynamic", "normal"), ("TruncatedNormalDynamic", "truncated"),
               ("RandomUniformDynamic", "uniform")):
    OPS.define(_t, kernel=_random_kernel(_k), grad=NOT_DIFFERENTIABLE, stateful=True)


# ------------------------------------------------------------------ tile / slice / range
def tile_dynamic(x, multiples, name=None):
    m, partial = shape_tensor(multiples, "Tile")
    shp = None
    if x.shape.ndims is not None:
        shp = [None if d is None or (partial is None or partial[i] is None) else
               d * partial[i] for i, d in enumerate(x.shape.values)]
    return make_tensor("TileDynamic", [x, m], x.dtype, shp, name=name)


def _tile_grad(dy, x, reps):
    shp = []
    for k, d in zip(reps, np.shape(x)):
        shp.extend([int(k), d])
    return np.reshape(dy, shp).sum(axis=tuple(range(0, 2 * np.ndim(x), 2)))


OPS.define("TileDynamic", kernel=simple(lambda x, m: np.tile(x, tuple(int(k) for k in m))),
           grad=lambda op, dy: [make_tensor("TileDynamicGrad", [dy, op.inputs[0],
                                                                 op.inputs[1]], dy.dtype,
                                            op.inputs[0].shape), None])
OPS.define("TileDynamicGrad", kernel=simple(_tile_grad),
           grad=lambda op, g: [tile_dynamic(g, op.inputs[2]), None, None])


def slice_dynamic(x, begin, size, name=None):
    b, _ = shape_tensor(begin, "Slice")
    s, partial = shape_tensor(size, "Slice")
    return make_tensor("SliceDynamic", [x, b, s], x.dtype, _static(partial), name=name)


def _slice_key(x, b, s):
    return tuple(slice(int(i), None if int(n) == -1 else int(i) + int(n))
                 for i, n in zip(b, s))


OPS.define("SliceDynamic", kernel=simple(lambda x, b, s: x[_slice_key(x, b, s)]),
           grad=lambda op, dy: [make_tensor("SliceDynamicGrad", [dy] + list(op.inputs),
                                            dy.dtype, op.inputs[0].shape), None, None],
           may_alias=True)


def _slice_grad(dy, x, b, s):
    out = np.zeros(np.shape(x), dtype=dy.dtype)
    out[_slice_key(x, b, s)] = dy
    return out


OPS.define("SliceDynamicGrad", kernel=simple(_slice_grad),
           grad=lambda op, g: [slice_dynamic(g, op.inputs[2], op.inputs[3]), None, None, None])


def range_dynamic(start, limit, delta, dtype, name=None):
    dt = dtypes.as_dtype(dtype) if dtype is not None else None
    ts = [convert_to_tensor(v) for v in (start, limit, delta)]
    if dt is None:   # TF: the widest of the arguments' types, int32 < int64 < float32 < float64
        order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]
        dt = max((t.dtype for t in ts), key=lambda d: order.index(d) if d in order else 0)
    from estimator_npu.engine.ops.math_ops import cast
    ts = [cast(t, dt) for t in ts]
    return make_tensor("RangeDynamic", ts, dt, [None], {"dtype": dt}, name=name)


OPS.define("RangeDynamic", kernel=lambda op, ctx: (
    lambda a, b, d, _t=op.attrs["dtype"].np: np.arange(a, b, d).astype(_t)),
    grad=NOT_DIFFERENTIABLE)
