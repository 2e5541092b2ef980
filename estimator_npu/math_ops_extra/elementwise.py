"""TF1's less common elementwise math (``tf.math.acos`` ... ``tf.math.xdivy``), each op with
its gradient, and the composites built on them (``logical_xor``, ``reciprocal_no_nan``,
``cumulative_logsumexp`` ...); ``is_non_decreasing`` is in ``checks.asserts``."""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.constant_value import constant_value
from estimator_npu.engine.ops import array_ops, math_extra_ops, math_ops
from estimator_npu.engine.ops.core import convert_to_tensor, make_tensor, stop_gradient
from estimator_npu.engine.ops.math_ops import _binary, _unary, sum_to_like
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily, simple
from estimator_npu.math_ops_extra import special_fns

OPS = OpFamily(__name__)  # this family's op definitions (data)

_INV_SQRT_PI_2 = 2.0 / np.sqrt(np.pi)


def _unary_op(op_type, kernel, grad):
    OPS.define(op_type, kernel=simple(kernel), grad=grad)

    def fn(x, name=None):
        return _unary(op_type, x, name)
    fn.__name__ = fn.__qualname__ = op_type.lower()
    fn.__doc__ = f"Elementwise ``{op_type}`` (TF's op of that name), with its gradient."
    return fn


def _rsqrt1m(x):
    return math_ops.rsqrt(1.0 - math_ops.square(x))


acos = _unary_op("Acos", np.arccos, lambda op, dy: [math_ops.negative(dy) * _rsqrt1m(
    op.inputs[0])])
asin = _unary_op("Asin", np.arcsin, lambda op, dy: [dy * _rsqrt1m(op.inputs[0])])
atan = _unary_op("Atan", np.arctan, lambda op, dy: [dy / (1.0 + math_ops.square(
    op.inputs[0]))])
tan = _unary_op("Tan", np.tan, lambda op, dy: [dy * (1.0 + math_ops.square(op.outputs[0]))])
sinh = _unary_op("Sinh", np.sinh, lambda op, dy: [dy * cosh(op.inputs[0])])
cosh = _unary_op("Cosh", np.cosh, lambda op, dy: [dy * sinh(op.inputs[0])])
asinh = _unary_op("Asinh", np.arcsinh, lambda op, dy: [dy / cosh(op.outputs[0])])
acosh = _unary_op("Acosh", np.arccosh, lambda op, dy: [dy / sinh(op.outputs[0])])
atanh = _unary_op("Atanh", np.arctanh, lambda op, dy: [dy / (1.0 - math_ops.square(
    op.inputs[0]))])
expm1 = _unary_op("Expm1", np.expm1, lambda op, dy: [dy * math_ops.exp(op.inputs[0])])
erf = _unary_op("Erf", special_fns.erf, lambda op, dy: [
    dy * _INV_SQRT_PI_2 * math_ops.exp(math_ops.negative(math_ops.square(op.inputs[0])))])
erfc = _unary_op("Erfc", special_fns.erfc, lambda op, dy: [
    dy * -_INV_SQRT_PI_2 * math_ops.exp(math_ops.negative(math_ops.square(op.inputs[0])))])
lgamma = _unary_op("Lgamma", special_fns.lgamma, lambda op, dy: [dy * digamma(op.inputs[0])])
digamma = _unary_op("Digamma", special_fns.digamma, lambda op, dy: [
    dy * polygamma(1.0, op.inputs[0])])
rint = _unary_op("Rint", np.rint, lambda op, dy: [None])


def polygamma(a, x, name=None):
    """The ``a``-th derivative of digamma at ``x`` (``a`` a non-negative whole number)."""
    x = convert_to_tensor(x)
    a = convert_to_tensor(a, dtype=x.dtype)
    return _binary("Polygamma", a, x, name)


def zeta(x, q, name=None):
    """The Hurwitz zeta function ``sum_k (q + k)^-x``."""
    return _binary("Zeta", x, q, name)


def _polygamma_grad(op, dy):
    a, x = op.inputs
    return [None, sum_to_like(dy * polygamma(a + 1.0, x), x)]


def _zeta_grad(op, dy):
    x, q = op.inputs
    return [None, sum_to_like(dy * math_ops.negative(x) * zeta(x + 1.0, q), q)]


OPS.define("Polygamma", kernel=simple(special_fns.polygamma), grad=_polygamma_grad)
OPS.define("Zeta", kernel=simple(special_fns.zeta), grad=_zeta_grad)


# ------------------------------------------------------------------ binary
def atan2(y, x, name=None):
    """The angle of ``(x, y)``, elementwise (``y`` first, as TF's)."""
    return _binary("Atan2", y, x, name)


def _atan2_grad(op, dy):
    y, x = op.inputs
    inv = dy / (math_ops.square(x) + math_ops.square(y))
    return [sum_to_like(x * inv, y), sum_to_like(math_ops.negative(y) * inv, x)]


OPS.define("Atan2", kernel=simple(np.arctan2), grad=_atan2_grad)


def truncatediv(x, y, name=None):
    """Division rounded toward zero (C semantics)."""
    return _binary("TruncateDiv", x, y, name)


def truncatemod(x, y, name=None):
    """The remainder of ``truncatediv`` (the sign of ``x``, as C's ``fmod``)."""
    return _binary("TruncateMod", x, y, name)


def _truncatediv(x, y):
    if np.result_type(x, y).kind in "iu":
        q = np.floor_divide(x, y)
        return q + ((np.mod(x, y) != 0) & ((x < 0) != (y < 0)))
    return np.trunc(np.true_divide(x, y)).astype(np.result_type(x, y), copy=False)


OPS.define("TruncateDiv", kernel=simple(_truncatediv), grad=NOT_DIFFERENTIABLE)
OPS.define("TruncateMod", kernel=simple(np.fmod), grad=NOT_DIFFERENTIABLE)


def _masked(where_zero, value):
    return np.where(where_zero, np.zeros((), value.dtype), value).astype(value.dtype,
                                                                        copy=False)


def multiply_no_nan(x, y, name=None):
    """``x * y``, and 0 wherever ``y`` is 0 (even where ``x`` is inf or nan)."""
    return _binary("MulNoNan", x, y, name)


def xlogy(x, y, name=None):
    """``x * log(y)``, and 0 wherever ``x`` is 0."""
    return _binary("Xlogy", x, y, name)


def xdivy(x, y, name=None):
    """``x / y``, and 0 wherever ``x`` is 0."""
    return _binary("Xdivy", x, y, name)


def _mul_no_nan(x, y):
    with np.errstate(invalid="ignore"):
        return _masked(np.asarray(y) == 0, np.multiply(x, y))


def _xlogy(x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return _masked(np.asarray(x) == 0, np.multiply(x, np.log(y)))


def _xdivy(x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return _masked(np.asarray(x) == 0, np.true_divide(x, y))


def _nonzero(x):
    return math_ops.cast(math_ops.not_equal(x, array_ops.zeros_like(x)), x.dtype)


def _mul_no_nan_grad(op, dy):
    x, y = op.inputs
    return [sum_to_like(multiply_no_nan(dy, y), x), sum_to_like(multiply_no_nan(x, dy), y)]


def _xlogy_grad(op, dy):
    x, y = op.inputs
    return [sum_to_like(xlogy(_nonzero(x), y) * dy, x), sum_to_like(xdivy(x, y) * dy, y)]


def _xdivy_grad(op, dy):
    x, y = op.inputs
    return [sum_to_like(xdivy(_nonzero(x), y) * dy, x),
            sum_to_like(xdivy(math_ops.negative(x), math_ops.square(y)) * dy, y)]


OPS.define("MulNoNan", kernel=simple(_mul_no_nan), grad=_mul_no_nan_grad)
OPS.define("Xlogy", kernel=simple(_xlogy), grad=_xlogy_grad)
OPS.define("Xdivy", kernel=simple(_xdivy), grad=_xdivy_grad)


# ------------------------------------------------------------------ composites
def logical_xor(x, y, name="LogicalXor"):
    """``(x or y) and not (x and y)``."""
    return math_ops.logical_and(math_ops.logical_or(x, y),
                                math_ops.logical_not(math_ops.logical_and(x, y)), name=name)


def reciprocal_no_nan(x, name=None):
    """``1 / x``, and 0 wherever ``x`` is 0."""
    x = convert_to_tensor(x)
    return math_extra_ops.div_no_nan(array_ops.ones_like(x), x, name=name)


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """The sum of ``inputs`` (TF1's ``accumulate_n``: ``add_n`` without the temporaries)."""
    return math_ops.add_n(inputs, name=name)


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """``log(cumsum(exp(x)))`` along ``axis``, computed stably (shifted by the maximum)."""
    x = convert_to_tensor(x)
    m = stop_gradient(math_ops.reduce_max(x, axis=axis, keepdims=True))
    m = array_ops.where(math_ops.is_finite(m), m, array_ops.zeros_like(m))
    s = math_extra_ops.cumsum(math_ops.exp(x - m), axis=axis, exclusive=exclusive,
                              reverse=reverse)
    return math_ops.add(math_ops.log(s), m, name=name)


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dtypes.int32,
             name=None):
    """How often each value ``0 .. max(arr)`` occurs in ``arr`` (summed ``weights`` when
    given), at least ``minlength`` and at most ``maxlength`` bins."""
    arr = convert_to_tensor(arr)
    if not arr.dtype.is_integer:
        raise TypeError(f"bincount: arr must be int32/int64, got {arr.dtype.name}")
    out_dtype = dtypes.as_dtype(dtype)
    inputs = [arr]
    if weights is not None:
        w = convert_to_tensor(weights)
        out_dtype = w.dtype
        inputs.append(w)
    attrs = {"minlength": None if minlength is None else int(minlength),
             "maxlength": None if maxlength is None else int(maxlength),
             "dtype": out_dtype}
    folded = constant_value(arr)  # arr from constants: TF's static length
    n = None
    if folded is not None and (folded.size == 0 or folded.min() >= 0):
        n = int(folded.max()) + 1 if folded.size else 0
        n = n if attrs["minlength"] is None else max(n, attrs["minlength"])
        n = n if attrs["maxlength"] is None else min(n, attrs["maxlength"])
    return make_tensor("Bincount", inputs, out_dtype, [n], attrs, name=name)


def _bincount_kernel(op, ctx):
    a = op.attrs

    def run(arr, weights=None):
        arr = np.asarray(arr).reshape(-1)
        if arr.size and arr.min() < 0:
            from estimator_npu import errors
            raise errors.InvalidArgumentError(None, op, "bincount: arr must be non-negative, "
                                              f"got {int(arr.min())}")
        n = int(arr.max()) + 1 if arr.size else 0
        if a["minlength"] is not None:
            n = max(n, a["minlength"])
        if a["maxlength"] is not None:
            n = min(n, a["maxlength"])
        keep = arr < n
        w = None if weights is None else np.asarray(weights).reshape(-1)[keep]
        return np.bincount(arr[keep], w, minlength=n)[:n].astype(a["dtype"].np)
    return run


OPS.define("Bincount", kernel=_bincount_kernel, grad=NOT_DIFFERENTIABLE)
