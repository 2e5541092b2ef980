"""More of ``tf.math``: ``erfinv`` / ``ndtri`` (ops with gradients), and the composites
``scalar_mul``, ``zero_fraction``, ``reduce_euclidean_norm``, ``xlog1py``, ``lbeta`` and
``polyval``."""
import math

import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.engine.ops.math_ops import _unary
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily, simple
from estimator_npu.math_ops_extra import elementwise, special_fns

OPS = OpFamily(__name__)  # this family's op definitions (data)

_SQRT_PI_2 = math.sqrt(math.pi) / 2.0


def _erfinv(y):
    """Inverse error function: Giles' single-precision approximation refined by Newton
    steps on ``math.erf`` (double precision); +-inf at +-1, nan outside [-1, 1]."""
    y, dt = special_fns._float(y)
    y64 = y.astype(np.float64)
    with np.errstate(all="ignore"):
        w = -np.log((1.0 - y64) * (1.0 + y64))
        small = w < 5.0
        ws = w - 2.5
        ps = 2.81022636e-08
        for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                  -0.00125372503, -0.00417768164, 0.246640727, 1.50140941):
            ps = c + ps * ws
        wl = np.sqrt(w) - 3.0
        pl = -0.000200214257
        for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                  -0.0076224613, 0.00943887047, 1.00167406, 2.83297682):
            pl = c + pl * wl
        x = np.where(small, ps, pl) * y64
        for _ in range(3):
            err = special_fns.erf(x) - y64
            x = x - err / (2.0 / math.sqrt(math.pi) * np.exp(-x * x))
        x = np.where(np.abs(y64) == 1.0, np.copysign(np.inf, y64), x)
        x = np.where(np.abs(y64) > 1.0, np.nan, x)
    return x.astype(dt, copy=False)


def erfinv(x, name=None):
    """The inverse of ``erf`` on (-1, 1)."""
    return _unary("Erfinv", x, name)


def ndtri(x, name=None):
    """The inverse of the standard normal CDF on (0, 1)."""
    return _unary("Ndtri", x, name)


def _ndtri(p):
    p, dt = special_fns._float(p)
    return (math.sqrt(2.0) * _erfinv(2.0 * p.astype(np.float64) - 1.0)).astype(dt)


OPS.define("Erfinv", kernel=simple(_erfinv), grad=lambda op, dy: [
    dy * _SQRT_PI_2 * math_ops.exp(math_ops.square(op.outputs[0]))])
OPS.define("Ndtri", kernel=simple(_ndtri), grad=lambda op, dy: [
    dy * math.sqrt(2.0 * math.pi) * math_ops.exp(0.5 * math_ops.square(op.outputs[0]))])


def scalar_mul(scalar, x, name=None):
    """``scalar * x`` for a scalar ``scalar``."""
    s = convert_to_tensor(scalar, dtype=convert_to_tensor(x).dtype)
    if s.shape.ndims not in (None, 0):
        raise ValueError(f"scalar_mul: scalar must be a 0-D tensor, got shape {s.shape}")
    return math_ops.multiply(s, x, name=name)


def zero_fraction(value, name=None):
    """The fraction of zeros in ``value`` (a float32 scalar)."""
    v = convert_to_tensor(value)
    zero = math_ops.cast(math_ops.equal(v, array_ops.zeros_like(v)), dtypes.float32)
    return math_ops.reduce_mean(zero, name=name)


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """``sqrt(sum(x ** 2))`` over ``axis``."""
    x = convert_to_tensor(input_tensor)
    return math_ops.sqrt(math_ops.reduce_sum(math_ops.square(x), axis=axis,
                                             keepdims=keepdims), name=name)


def xlog1py(x, y, name=None):
    """``x * log1p(y)``, and 0 wherever ``x`` is 0."""
    x, y = math_ops._pair(x, y, "Xlog1py")
    return elementwise.xlogy(x, 1.0 + y, name=name)


def lbeta(x, name=None):
    """``log |B(x)|`` along the last dim: ``sum(lgamma(x)) - lgamma(sum(x))``."""
    x = convert_to_tensor(x)
    return math_ops.subtract(math_ops.reduce_sum(elementwise.lgamma(x), axis=-1),
                             elementwise.lgamma(math_ops.reduce_sum(x, axis=-1)), name=name)


def polyval(coeffs, x, name=None):
    """``coeffs[0] * x**(n-1) + ... + coeffs[n-1]`` by Horner's rule."""
    x = convert_to_tensor(x)
    if not coeffs:
        return array_ops.zeros_like(x, name=name)
    out = convert_to_tensor(coeffs[0], dtype=x.dtype)
    for c in coeffs[1:]:
        out = out * x + convert_to_tensor(c, dtype=x.dtype)
    return array_ops.identity(out, name=name) if name else out


OPS.define("NextAfter", kernel=simple(lambda x1, x2: np.nextafter(x1, x2)),
           grad=NOT_DIFFERENTIABLE)


def nextafter(x1, x2, name=None):
    """The next representable value of ``x1`` towards ``x2`` (float32 / float64)."""
    from estimator_npu.engine.ops.math_ops import _binary
    t = _binary("NextAfter", x1, x2, name)
    if t.dtype not in (dtypes.float32, dtypes.float64):
        raise TypeError(f"nextafter: x1 and x2 must be float32 or float64, got {t.dtype.name}")
    return t


def _real_input(x, fn):
    x = convert_to_tensor(x)
    if x.dtype.name.startswith("complex"):
        raise NotImplementedError(f"estimator_npu does not implement tf.math.{fn} of complex "
                                  f"tensors (yet), got {x.dtype.name}")
    return x


def real(input, name=None):  # noqa: A002
    """The real part: a real tensor itself (as TF)."""
    return _real_input(input, "real")


def imag(input, name=None):  # noqa: A002
    """The imaginary part: zeros for a real tensor (as TF)."""
    return array_ops.zeros_like(_real_input(input, "imag"), name=name)


def conj(x, name=None):
    """The complex conjugate: a real tensor itself (as TF)."""
    return _real_input(x, "conj")


def angle(input, name=None):  # noqa: A002
    """The argument: ``pi`` where a real tensor is negative, else 0 (as TF)."""
    x = _real_input(input, "angle")
    return array_ops.where(math_ops.less(x, array_ops.zeros_like(x)),
                           array_ops.ones_like(x) * np.pi, array_ops.zeros_like(x), name=name)
