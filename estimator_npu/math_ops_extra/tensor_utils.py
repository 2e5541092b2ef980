"""Small TF1 tensor utilities: ``identity_n``, ``shape_n``, ``ensure_shape``,
``parallel_stack``, ``broadcast_static_shape`` / ``broadcast_dynamic_shape``,
``get_static_value``, ``is_tensor``, the ``to_*`` casts, ``saturate_cast`` and
``clip_by_average_norm``."""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import Tensor
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.core import (broadcast_shape, convert_to_tensor, identity,
                                           make_tensor)
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily, simple
from estimator_npu.engine.shape import as_shape

OPS = OpFamily(__name__)  # this family's op definitions (data)


def identity_n(input, name=None):  # noqa: A002
    """A list of identities of the tensors in ``input``."""
    return [identity(t, name=name) for t in input]


def shape_n(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """The shapes of the tensors in ``input``, as 1-D int tensors."""
    return [array_ops.shape(t, out_type=out_type, name=name) for t in input]


def ensure_shape(x, shape, name=None):
    """``x``, checked when the graph runs to have a shape compatible with ``shape``; its
    static shape is ``x``'s merged with ``shape``."""
    x = convert_to_tensor(x)
    want = as_shape(shape)
    if not x.shape.is_compatible_with(want):
        raise ValueError(f"ensure_shape: {x.name} has shape {x.shape}, which is not "
                         f"compatible with {want}")
    merged = x.shape.merge_with(want)
    dims = None if want.ndims is None else tuple(want.values)
    return make_tensor("EnsureShape", [x], x.dtype, merged, {"shape": dims}, name=name)


def _ensure_shape_kernel(op, ctx):
    dims = op.attrs["shape"]

    def run(x):
        s = np.shape(x)
        if dims is not None and (len(s) != len(dims) or any(
                d is not None and d != a for d, a in zip(dims, s))):
            from estimator_npu import errors
            want = "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"
            raise errors.InvalidArgumentError(
                None, op, f"Shape of tensor {op.inputs[0].name} {list(s)} is not compatible "
                          f"with expected shape {want}.")
        return x
    return run


OPS.define("EnsureShape", kernel=_ensure_shape_kernel, grad=lambda op, dy: [dy],
           may_alias=True)


def parallel_stack(values, name="parallel_stack"):
    """``stack(values)`` (the inputs' shapes must be fully known, as TF1 requires)."""
    ts = [convert_to_tensor(v) for v in values]
    for t in ts:
        if not t.shape.is_fully_defined():
            raise ValueError(f"parallel_stack: the shape of {t.name} ({t.shape}) must be "
                             "fully defined")
    return array_ops.stack(ts, name=name)


def broadcast_static_shape(shape_x, shape_y):
    """The broadcast of two ``TensorShape``s (``ValueError`` if incompatible)."""
    return broadcast_shape(as_shape(shape_x), as_shape(shape_y), "broadcast_static_shape")


def broadcast_dynamic_shape(shape_x, shape_y):
    """The broadcast of two 1-D shape tensors, as a 1-D tensor (``BroadcastArgs``)."""
    x = convert_to_tensor(shape_x)
    y = convert_to_tensor(shape_y, dtype=x.dtype)
    n = None
    if x.shape.ndims == 1 and y.shape.ndims == 1 and \
            None not in (x.shape.values[0], y.shape.values[0]):
        n = max(x.shape.values[0], y.shape.values[0])
    return make_tensor("BroadcastArgs", [x, y], x.dtype, [n])


def _broadcast_args(x, y):
    try:
        return np.array(np.broadcast_shapes(tuple(int(v) for v in x), tuple(int(v) for v in y)),
                        dtype=np.asarray(x).dtype)
    except ValueError:
        raise ValueError(f"broadcast_dynamic_shape: incompatible shapes {list(x)} and "
                         f"{list(y)}") from None


OPS.define("BroadcastArgs", kernel=simple(_broadcast_args), grad=NOT_DIFFERENTIABLE)


def get_static_value(tensor, partial=False):
    """The value of ``tensor`` if it is known when the graph is built (constants, shapes,
    sizes and ranks of known static shape, and casts / identities / stacks / concatenations
    of those), else ``None``."""
    if tensor is None:
        return None
    if not isinstance(tensor, Tensor) and not hasattr(tensor, "_as_tensor"):
        return np.asarray(tensor)
    t = convert_to_tensor(tensor)
    op = t.op
    if op.type == "Const":
        return np.asarray(op.attrs["value"])
    src = op.inputs[0] if op.inputs else None
    if op.type == "Shape" and src.shape.is_fully_defined():
        return np.array(src.shape.values, dtype=t.dtype.np)
    if op.type == "Size" and src.shape.is_fully_defined():
        return np.array(src.shape.num_elements(), dtype=t.dtype.np)
    if op.type == "Rank" and src.shape.ndims is not None:
        return np.array(src.shape.ndims, dtype=np.int32)
    if op.type in ("Identity", "StopGradient", "Cast"):
        v = get_static_value(src)
        return None if v is None else v.astype(t.dtype.np)
    if op.type == "ExpandDims" and op.inputs[0].shape.ndims == 0 and t.shape.ndims == 1:
        v = get_static_value(src)
        return None if v is None else v.reshape(1)
    if op.type == "Pack":
        parts = [get_static_value(i) for i in op.inputs]
        if any(p is None for p in parts):
            return None
        return np.stack(parts, axis=op.attrs.get("axis", 0))
    if op.type == "ConcatV2" and t.shape.ndims == 1:
        parts = [get_static_value(i) for i in op.inputs if i.dtype == t.dtype]
        if all(p is not None for p in parts) and len(parts) == len(op.inputs):
            return np.concatenate(parts).astype(t.dtype.np)
    return None


def is_tensor(x):
    """Whether ``x`` is a tensor-like graph value (Tensor, SparseTensor, Variable)."""
    from estimator_npu.engine.sparse_tensor import SparseTensor
    return isinstance(x, (Tensor, SparseTensor)) or hasattr(x, "_as_tensor")


def to_double(x, name="ToDouble"):
    return math_ops.cast(x, dtypes.float64, name=name)


def to_bfloat16(x, name="ToBFloat16"):
    return math_ops.cast(x, dtypes.bfloat16, name=name)


def to_complex64(x, name="ToComplex64"):
    return math_ops.cast(x, dtypes.complex64, name=name)


def to_complex128(x, name="ToComplex128"):
    return math_ops.cast(x, dtypes.complex128, name=name)


def saturate_cast(value, dtype, name=None):
    """Casts ``value`` to ``dtype``, clamping to the range of ``dtype`` first (no wrap
    around for integers)."""
    x = convert_to_tensor(value)
    dt = dtypes.as_dtype(dtype)
    if x.dtype.is_integer or x.dtype.is_floating:
        src = np.iinfo(x.dtype.np) if x.dtype.is_integer else np.finfo(x.dtype.np)
        dst = np.iinfo(dt.np) if dt.is_integer else np.finfo(dt.np) if dt.is_floating \
            else None
        if dst is not None:
            if dst.min > src.min:
                x = math_ops.maximum(x, convert_to_tensor(np.asarray(dst.min, x.dtype.np)))
            if dst.max < src.max:
                x = math_ops.minimum(x, convert_to_tensor(np.asarray(dst.max, x.dtype.np)))
    return math_ops.cast(x, dt, name=name)


def clip_by_average_norm(t, clip_norm, name=None):
    """``t * clip_norm / max(l2norm(t) / size(t), clip_norm)``: clips the L2 norm averaged
    over the elements."""
    t = convert_to_tensor(t)
    clip_norm = convert_to_tensor(clip_norm, dtype=t.dtype)
    n = math_ops.cast(array_ops.size(t), t.dtype)
    inv = math_ops.rsqrt(math_ops.reduce_sum(t * t))
    scale = math_ops.minimum(inv * n, 1.0 / clip_norm)
    return identity(t * clip_norm * scale, name=name)



def smart_constant_value(pred):
    """``pred``'s truth value if it is known when the graph is built, else ``None``:
    a Python bool, 0 or 1, or a tensor whose value ``get_static_value`` finds."""
    if isinstance(pred, Tensor) or hasattr(pred, "_as_tensor"):
        value = get_static_value(pred)
        return None if value is None else bool(value)
    if isinstance(pred, (bool, np.bool_)) or (isinstance(pred, (int, np.integer))
                                              and pred in (0, 1)):
        return bool(pred)
    raise TypeError(f"smart_cond: `pred` must be a Tensor, a Python bool, or 1 or 0; got "
                    f"{type(pred).__name__}")


def smart_cond(pred, true_fn=None, false_fn=None, name=None):
    """``true_fn()`` or ``false_fn()`` when ``pred`` is known at graph build time (no cond
    op in the graph), else ``tf.cond(pred, true_fn, false_fn)`` (TF's
    ``tensorflow.python.framework.smart_cond`` / ``layers.utils.smart_cond``)."""
    for arg, fn in (("true_fn", true_fn), ("false_fn", false_fn)):
        if not callable(fn):
            raise TypeError(f"smart_cond: `{arg}` must be callable, got {type(fn).__name__}")
    value = smart_constant_value(pred)
    if value is not None:
        return true_fn() if value else false_fn()
    from estimator_npu.engine.ops.control_ops import cond
    return cond(pred, true_fn, false_fn, name=name)
