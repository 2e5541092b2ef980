"""Elementwise math, matmul, reductions and casts, each with its gradient."""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import Tensor
from estimator_npu.engine.ops import _fast
from estimator_npu.engine.ops.broadcast_grad import broadcast_like, sum_to_like  # noqa: F401
from estimator_npu.engine.ops.core import (broadcast_shape, convert_to_tensor, make_op,
                                           make_tensor, op_label)
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, Inline, OpFamily, simple
from estimator_npu.engine.shape import TensorShape

OPS = OpFamily(__name__)  # this family's op definitions (data)


# ------------------------------------------------------------------ helpers
def _pair(x, y, op_name):
    """Converts a binary op's operands; Python values take the other operand's dtype."""
    if isinstance(x, Tensor) or hasattr(x, "_as_tensor"):
        x = convert_to_tensor(x)
        y = convert_to_tensor(y, dtype=None if (isinstance(y, Tensor) or
                                                hasattr(y, "_as_tensor")) else x.dtype)
    elif isinstance(y, Tensor) or hasattr(y, "_as_tensor"):
        y = convert_to_tensor(y)
        x = convert_to_tensor(x, dtype=y.dtype)
    else:
        x = convert_to_tensor(x)
        y = convert_to_tensor(y, dtype=x.dtype)
    if x.dtype != y.dtype:
        raise TypeError(f"{op_name}: both inputs must have the same dtype, got "
                        f"{x.dtype.name} ({x.name}) and {y.dtype.name} ({y.name})")
    return x, y


def _binary(op_type, x, y, name, out_dtype=None):
    x, y = _pair(x, y, op_type)
    shape = broadcast_shape(x.shape, y.shape, lambda: op_label(op_type, name, (x, y)))
    return make_tensor(op_type, [x, y], out_dtype or x.dtype, shape, name=name)


_FLOAT_ONLY = frozenset("Exp Expm1 Log Log1p Sqrt Rsqrt Tanh Sigmoid Floor Ceil Sin Cos Tan "
                        "Asin Acos Atan Sinh Cosh Erf Erfc Lgamma Digamma".split())  # as TF


def _unary(op_type, x, name, out_dtype=None):
    x = convert_to_tensor(x)
    if op_type in _FLOAT_ONLY and not x.dtype.is_floating:
        raise TypeError(f"{op_type}: `x` must be a floating-point tensor, got {x.dtype.name} "
                        f"({x.name}); cast it first (tf.cast(x, tf.float32))")
    return make_tensor(op_type, [x], out_dtype or x.dtype, x.shape, name=name)


def _bgrad(fn):
    """Wraps a binary gradient so each input gradient is summed to its input's shape."""
    def grad(op, dy):
        gx, gy = fn(op, dy)
        x, y = op.inputs
        return [sum_to_like(gx, x), sum_to_like(gy, y)]
    return grad


# ------------------------------------------------------------------ binary arithmetic
def add(x, y, name=None):
    return _binary("Add", x, y, name)


def subtract(x, y, name=None):
    return _binary("Sub", x, y, name)


def multiply(x, y, name=None):
    return _binary("Mul", x, y, name)


def divide(x, y, name=None):
    """True division (``x / y``); integer inputs are divided as in Python 3 (TF truediv)."""
    x, y = _pair(x, y, "RealDiv")
    if x.dtype.is_integer:
        x, y = cast(x, dtypes.float64), cast(y, dtypes.float64)
    return _binary("RealDiv", x, y, name)


truediv = realdiv = divide


def div(x, y, name=None):
    """TF1's ``tf.div``: Python 2 division, floor division for integers, else ``x / y``."""
    x, y = _pair(x, y, "RealDiv")
    return _binary("FloorDiv" if x.dtype.is_integer else "RealDiv", x, y, name)


def floordiv(x, y, name=None):
    return _binary("FloorDiv", x, y, name)


def floormod(x, y, name=None):
    return _binary("FloorMod", x, y, name)


mod = floormod


def pow(x, y, name=None):  # noqa: A001 - TF1 name
    return _binary("Pow", x, y, name)


def maximum(x, y, name=None):
    return _binary("Maximum", x, y, name)


def minimum(x, y, name=None):
    return _binary("Minimum", x, y, name)


def squared_difference(x, y, name=None):
    return square(subtract(x, y), name=name)


OPS.define("Add", kernel=simple(np.add), grad=_bgrad(lambda op, dy: (dy, dy)))
OPS.define("Sub", kernel=simple(np.subtract), grad=_bgrad(lambda op, dy: (dy, negative(dy))))
OPS.define("Mul", kernel=simple(np.multiply),
           grad=_bgrad(lambda op, dy: (dy * op.inputs[1], dy * op.inputs[0])))
OPS.define("RealDiv", kernel=simple(np.true_divide),
           grad=_bgrad(lambda op, dy: (dy / op.inputs[1],
                                       negative(dy) * op.outputs[0] / op.inputs[1])))
OPS.define("FloorDiv", kernel=simple(np.floor_divide), grad=NOT_DIFFERENTIABLE)
OPS.define("FloorMod", kernel=simple(np.mod), grad=NOT_DIFFERENTIABLE)


def _pow_grad(op, dy):
    x, y = op.inputs
    z = op.outputs[0]
    gx = dy * y * pow(x, y - 1.0) if x.dtype.is_floating else None
    safe_log = log(where_(greater(x, 0.0), x, ones_like_(x)))
    gy = dy * z * safe_log if y.dtype.is_floating else None
    return gx, gy


OPS.define("Pow", kernel=simple(np.power), grad=_bgrad(_pow_grad))


def _minmax_grad(cmp):
    def fn(op, dy):
        x, y = op.inputs
        mask = cast(cmp(x, y), dy.dtype)
        return dy * mask, dy * (1.0 - mask)
    return _bgrad(fn)


OPS.define("Maximum", kernel=simple(np.maximum),
           grad=_minmax_grad(lambda x, y: greater_equal(x, y)))
OPS.define("Minimum", kernel=simple(np.minimum),
           grad=_minmax_grad(lambda x, y: less_equal(x, y)))


def add_n(inputs, name=None):
    """Sums a list of tensors of the same shape and dtype."""
    inputs = [convert_to_tensor(t) for t in inputs]
    if not inputs:
        raise ValueError("add_n: inputs must be a non-empty list of tensors")
    if len(inputs) == 1:
        return inputs[0]
    shape = inputs[0].shape
    for t in inputs[1:]:
        if t.dtype != inputs[0].dtype:
            raise TypeError(f"add_n: all inputs must have dtype {inputs[0].dtype.name}, got "
                            f"{t.dtype.name} for {t.name}")
        shape = broadcast_shape(shape, t.shape, "AddN")
    return make_tensor("AddN", inputs, inputs[0].dtype, shape, name=name)


def _add_n(*xs):
    acc = np.add(xs[0], xs[1])
    for x in xs[2:]:
        if np.shape(x) == np.shape(acc):
            acc += x
        else:  # x broadcasts acc to a larger shape
            acc = np.add(acc, x)
    return acc


OPS.define("AddN", kernel=simple(_add_n),
           grad=lambda op, dy: [sum_to_like(dy, x) for x in op.inputs])


# ------------------------------------------------------------------ comparisons / logic
def equal(x, y, name=None):
    return _binary("Equal", x, y, name, dtypes.bool)


def not_equal(x, y, name=None):
    return _binary("NotEqual", x, y, name, dtypes.bool)


def less(x, y, name=None):
    return _binary("Less", x, y, name, dtypes.bool)


def less_equal(x, y, name=None):
    return _binary("LessEqual", x, y, name, dtypes.bool)


def greater(x, y, name=None):
    return _binary("Greater", x, y, name, dtypes.bool)


def greater_equal(x, y, name=None):
    return _binary("GreaterEqual", x, y, name, dtypes.bool)


def logical_and(x, y, name=None):
    return _binary("LogicalAnd", x, y, name, dtypes.bool)


def logical_or(x, y, name=None):
    return _binary("LogicalOr", x, y, name, dtypes.bool)


def logical_not(x, name=None):
    return _unary("LogicalNot", x, name, dtypes.bool)


for _t, _f in [("Equal", np.equal), ("NotEqual", np.not_equal), ("Less", np.less),
               ("LessEqual", np.less_equal), ("Greater", np.greater),
               ("GreaterEqual", np.greater_equal), ("LogicalAnd", np.logical_and),
               ("LogicalOr", np.logical_or), ("LogicalNot", np.logical_not)]:
    OPS.define(_t, kernel=simple(_f), grad=NOT_DIFFERENTIABLE)


def is_finite(x, name=None):
    return _unary("IsFinite", x, name, dtypes.bool)


def is_nan(x, name=None):
    return _unary("IsNan", x, name, dtypes.bool)


def is_inf(x, name=None):
    return _unary("IsInf", x, name, dtypes.bool)


OPS.define("IsFinite", kernel=simple(np.isfinite), grad=NOT_DIFFERENTIABLE)
OPS.define("IsNan", kernel=simple(np.isnan), grad=NOT_DIFFERENTIABLE)
OPS.define("IsInf", kernel=simple(np.isinf), grad=NOT_DIFFERENTIABLE)


# ------------------------------------------------------------------ unary math
def negative(x, name=None):
    x = convert_to_tensor(x)
    if x.op.type == "Neg" and name is None:
        return x.op.inputs[0]  # -(-x) is x
    return _unary("Neg", x, name)


neg = negative


def exp(x, name=None):
    return _unary("Exp", x, name)


def log(x, name=None):
    return _unary("Log", x, name)


def log1p(x, name=None):
    return _unary("Log1p", x, name)


def sqrt(x, name=None):
    return _unary("Sqrt", x, name)


def rsqrt(x, name=None):
    return _unary("Rsqrt", x, name)


def square(x, name=None):
    return _unary("Square", x, name)


def abs(x, name=None):  # noqa: A001 - TF1 name
    return _unary("Abs", x, name)


def sign(x, name=None):
    return _unary("Sign", x, name)


def floor(x, name=None):
    return _unary("Floor", x, name)


def ceil(x, name=None):
    return _unary("Ceil", x, name)


def round(x, name=None):  # noqa: A001 - TF1 name
    return _unary("Round", x, name)


def reciprocal(x, name=None):
    return _unary("Reciprocal", x, name)


def tanh(x, name=None):
    return _unary("Tanh", x, name)


def sigmoid(x, name=None):
    return _unary("Sigmoid", x, name)


def sin(x, name=None):
    return _unary("Sin", x, name)


def cos(x, name=None):
    return _unary("Cos", x, name)


def _sigmoid(x):
    # Numerically stable, dtype-preserving logistic function.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e)).astype(np.result_type(x), copy=False)


def _rsqrt(x):
    return 1.0 / np.sqrt(x)


OPS.define("Neg", kernel=simple(np.negative), grad=lambda op, dy: [negative(dy)])
OPS.define("Exp", kernel=simple(np.exp), grad=lambda op, dy: [dy * op.outputs[0]])
OPS.define("Log", kernel=simple(np.log), grad=lambda op, dy: [dy / op.inputs[0]])
OPS.define("Log1p", kernel=simple(np.log1p), grad=lambda op, dy: [dy / (op.inputs[0] + 1.0)])
OPS.define("Sqrt", kernel=simple(np.sqrt), grad=lambda op, dy: [dy * 0.5 / op.outputs[0]])
OPS.define("Rsqrt", kernel=simple(_rsqrt),
           grad=lambda op, dy: [dy * -0.5 * op.outputs[0] / op.inputs[0]])
OPS.define("Square", kernel=simple(np.square), grad=lambda op, dy: [dy * 2.0 * op.inputs[0]])
OPS.define("Abs", kernel=simple(np.abs), grad=lambda op, dy: [dy * sign(op.inputs[0])])
OPS.define("Sign", kernel=simple(np.sign), grad=lambda op, dy: [None])
OPS.define("Floor", kernel=simple(np.floor), grad=lambda op, dy: [None])
OPS.define("Ceil", kernel=simple(np.ceil), grad=lambda op, dy: [None])
OPS.define("Round", kernel=simple(np.round), grad=lambda op, dy: [None])
OPS.define("Reciprocal", kernel=simple(np.reciprocal),
           grad=lambda op, dy: [negative(dy) * square(op.outputs[0])])
OPS.define("Tanh", kernel=simple(np.tanh),
           grad=lambda op, dy: [dy * (1.0 - square(op.outputs[0]))])
OPS.define("Sigmoid", kernel=simple(_sigmoid),
           grad=lambda op, dy: [dy * op.outputs[0] * (1.0 - op.outputs[0])])
OPS.define("Sin", kernel=simple(np.sin), grad=lambda op, dy: [dy * cos(op.inputs[0])])
OPS.define("Cos", kernel=simple(np.cos), grad=lambda op, dy: [negative(dy) * sin(op.inputs[0])])


# ------------------------------------------------------------------ cast
def cast(x, dtype, name=None):
    """Casts ``x`` to ``dtype`` (no op when it already has it)."""
    x = convert_to_tensor(x)
    dt = dtypes.as_dtype(dtype)
    if x.dtype == dt:
        return x
    return make_tensor("Cast", [x], dt, x.shape, {"dtype": dt}, name=name)


def _cast_kernel(op, ctx):
    npd = op.attrs["dtype"].np
    return lambda x: np.asarray(x).astype(npd)


def _cast_grad(op, dy):
    src = op.inputs[0].dtype
    if src.is_floating and op.outputs[0].dtype.is_floating:
        return [cast(dy, src)]
    return [None]


OPS.define("Cast", kernel=_cast_kernel, grad=_cast_grad)


def to_float(x, name=None):
    return cast(x, dtypes.float32, name)


def to_int32(x, name=None):
    return cast(x, dtypes.int32, name)


def to_int64(x, name=None):
    return cast(x, dtypes.int64, name)


# ------------------------------------------------------------------ matmul
def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, name=None):
    """Matrix product of the last two dims (batched over leading dims)."""
    a, b = _pair(a, b, "MatMul")
    ta, tb = bool(transpose_a or adjoint_a), bool(transpose_b or adjoint_b)
    sa, sb = a.shape, b.shape
    if sa.ndims is not None and sa.ndims < 2 or sb.ndims is not None and sb.ndims < 2:
        raise ValueError(f"MatMul {op_label('MatMul', name, (a, b))}: inputs must have rank "
                         f">= 2, got shapes "
                         f"{sa} and {sb}")
    shape = TensorShape(None)
    if sa.ndims is not None and sb.ndims is not None:
        m, k1 = (sa[-1], sa[-2]) if ta else (sa[-2], sa[-1])
        k2, n = (sb[-1], sb[-2]) if tb else (sb[-2], sb[-1])
        if k1 is not None and k2 is not None and k1 != k2:
            raise ValueError(f"Dimensions must be equal for {op_label('MatMul', name, (a, b))}: "
                             f"shapes {sa}{' (transposed)' if ta else ''} and {sb}"
                             f"{' (transposed)' if tb else ''} ({k1} vs {k2})")
        batch = broadcast_shape(sa[:-2], sb[:-2], "MatMul")
        shape = TensorShape(list(batch.values) + [m, n]) if batch.values is not None else shape
    op_type = "MatMul" if sa.ndims == 2 and sb.ndims == 2 else "BatchMatMul"
    return make_tensor(op_type, [a, b], a.dtype, shape,
                       {"transpose_a": ta, "transpose_b": tb}, name=name)


def _t(x):
    return np.swapaxes(x, -1, -2)


def _matmul_kernel(op, ctx):
    ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
    mm = np.matmul
    if op.type == "MatMul":
        # dot: the same BLAS product for 2-D floats, a seventh of matmul's call overhead
        # on small matrices (8x16 @ 16x16: 3.0 -> 0.43 us, _fast.dot)
        mm = _fast.dot if op.outputs[0].dtype.name in ("float32", "float64") else mm
        if ta or tb:  # the plan line is ``mm(a.T, b)`` itself, no lambda frame around it
            return Inline("{mm}({0}%s, {1}%s)" % (".T" if ta else "", ".T" if tb else ""),
                          mm=mm)
        return mm
    if not (ta or tb):
        return mm
    return lambda a, b: mm(_t(a) if ta else a, _t(b) if tb else b)


def _matmul_grad(op, dy):
    a, b = op.inputs
    ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
    if not ta and not tb:
        ga, gb = matmul(dy, b, transpose_b=True), matmul(a, dy, transpose_a=True)
    elif not ta and tb:
        ga, gb = matmul(dy, b), matmul(dy, a, transpose_a=True)
    elif ta and not tb:
        ga, gb = matmul(b, dy, transpose_b=True), matmul(a, dy)
    else:
        ga, gb = matmul(b, dy, transpose_a=True, transpose_b=True), \
            matmul(dy, a, transpose_a=True, transpose_b=True)
    return [sum_to_like(ga, a), sum_to_like(gb, b)]


OPS.define("MatMul", kernel=_matmul_kernel, grad=_matmul_grad)
OPS.define("BatchMatMul", kernel=_matmul_kernel, grad=_matmul_grad)


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clips ``t`` elementwise to ``[clip_value_min, clip_value_max]``."""
    return minimum(maximum(t, clip_value_min), clip_value_max, name=name)


# Late imports used by gradient functions above (same layer, no cycle at import time).
def where_(cond, x, y):
    from estimator_npu.engine.ops.array_ops import where
    return where(cond, x, y)


def ones_like_(x):
    from estimator_npu.engine.ops.array_ops import ones_like
    return ones_like(x)


# Reductions, re-exported (``math_ops.reduce_sum``); last, as reduction_ops imports from here.
from estimator_npu.engine.ops.reduction_ops import (  # noqa: E402,F401
    argmax, argmin, broadcast_reduced, reduce_all, reduce_any, reduce_max, reduce_mean,
    reduce_min, reduce_prod, reduce_sum)


__all__ = [n for n in dir() if not n.startswith("_")]
