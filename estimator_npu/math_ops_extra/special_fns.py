"""Special functions on numpy arrays, without scipy: ``lgamma``, ``digamma``, ``polygamma``
(through the Hurwitz zeta function), ``erf`` / ``erfc``.

``lgamma`` and ``erf`` / ``erfc`` are the standard library's (exact to double precision);
``digamma`` and the Hurwitz zeta use the recurrence up to ``x >= 10`` and the asymptotic
(Euler-Maclaurin) series there, which is accurate to about 1e-15 relative."""
import math

import numpy as np

_lgamma = np.vectorize(lambda v: math.lgamma(v) if not (v <= 0 and v == math.floor(v))
                       else math.inf, otypes=[np.float64])
_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])

# Bernoulli numbers B_2, B_4, ..., B_16.
_B2K = np.array([1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510])
_SHIFT = 10


def _float(x):
    x = np.asarray(x)
    return x, (x.dtype if x.dtype.kind == "f" else np.dtype(np.float64))


def _out(v, dtype):
    return np.asarray(v).astype(dtype, copy=False)


def lgamma(x):
    """``log|Gamma(x)|``; ``inf`` at the poles (0, -1, -2, ...), as TF's Lgamma."""
    x, dt = _float(x)
    return _out(_lgamma(x.astype(np.float64)), dt)


def erf(x):
    x, dt = _float(x)
    return _out(_erf(x.astype(np.float64)), dt)


def erfc(x):
    x, dt = _float(x)
    return _out(_erfc(x.astype(np.float64)), dt)


def _digamma_pos(x):
    """psi(x) for x > 0 (float64 arrays)."""
    acc = np.zeros_like(x)
    x = x.copy()
    for _ in range(_SHIFT):
        small = x < _SHIFT
        if not small.any():
            break
        acc -= np.where(small, 1.0 / np.where(small, x, 1.0), 0.0)
        x = np.where(small, x + 1.0, x)
    inv2 = 1.0 / (x * x)
    series = np.zeros_like(x)
    for k in range(len(_B2K) - 1, -1, -1):
        series = series * inv2 + _B2K[k] / (2 * (k + 1))
    return acc + np.log(x) - 0.5 / x - series * inv2


def digamma(x):
    """psi(x) = d/dx log Gamma(x); ``nan`` at the poles (0, -1, -2, ...)."""
    x, dt = _float(x)
    x = x.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        neg = x < 0.5
        pos = _digamma_pos(np.where(neg, 1.0 - x, x))
        refl = pos - np.pi / np.tan(np.pi * x)
        out = np.where(neg, refl, pos)
        out = np.where((x <= 0) & (x == np.floor(x)), np.nan, out)
    return _out(out, dt)


def _hurwitz_zeta(s, x):
    """zeta(s, x) = sum_k (x + k)^-s for s > 1 (float64 arrays, broadcast); a negative
    ``x`` (not a pole, ``s`` an integer) is shifted past zero by the recurrence."""
    s, x = np.broadcast_arrays(np.asarray(s, np.float64), np.asarray(x, np.float64))
    shift = _SHIFT + np.maximum(0.0, np.ceil(-x))
    acc = np.zeros(s.shape)
    for k in range(int(shift.max()) if shift.size else 0):
        acc += np.where(k < shift, (x + k) ** -s, 0.0)
    a = x + shift
    acc += a ** (1.0 - s) / (s - 1.0) + 0.5 * a ** -s
    fact = 1.0
    rising = s.copy()        # s (s+1) ... (s+2j-2)
    power = a ** (-s - 1.0)  # a^(-s-2j+1)
    for j in range(1, len(_B2K) + 1):
        fact *= (2 * j - 1) * (2 * j)
        acc += _B2K[j - 1] / fact * rising * power
        rising = rising * (s + 2 * j - 1) * (s + 2 * j)
        power = power / (a * a)
    return acc


def zeta(s, q):
    """Hurwitz zeta as TF's Zeta: ``inf`` at ``s == 1`` and where ``q`` is a pole, ``nan``
    for ``s < 1`` and for a negative ``q`` with a non-integer ``s``."""
    s, dt = _float(s)
    s64, q = np.broadcast_arrays(s.astype(np.float64), np.asarray(q, np.float64))
    with np.errstate(all="ignore"):
        pole = (q <= 0) & (q == np.floor(q))
        ok = (s64 > 1) & ~pole & ((q > 0) | (s64 == np.floor(s64)))
        out = _hurwitz_zeta(np.where(ok, s64, 2.0), np.where(ok, q, 1.0))
        out = np.where(ok, out, np.nan)
        out = np.where((s64 == 1) | (pole & (s64 > 1)), np.inf, out)
    return _out(out, dt)


def polygamma(n, x):
    """The n-th derivative of digamma (``n`` a non-negative integer-valued array);
    ``n == 0`` is digamma."""
    x, dt = _float(x)
    n64, x64 = np.broadcast_arrays(np.asarray(n, np.float64), x.astype(np.float64))
    with np.errstate(all="ignore"):
        nn = np.maximum(n64, 1.0)
        fact = np.vectorize(lambda v: math.gamma(v + 1.0), otypes=[np.float64])(nn)
        sign = np.where(np.mod(nn, 2) == 1, 1.0, -1.0)
        out = sign * fact * zeta(nn + 1.0, x64)
        out = np.where(n64 == 0, digamma(x64), out)
        out = np.where((n64 != np.floor(n64)) | (n64 < 0), np.nan, out)
    return _out(out, dt)
