"""Cosine learning-rate schedules with restarts and the linear-cosine decay (TF1
``learning_rate_decay``). ``cosine_decay_restarts``::

    f = step / first_decay_steps
    i = floor(f)                                   (t_mul == 1)
      = floor(log(1 - f (1 - t_mul)) / log(t_mul))  (otherwise); f -= (1 - t_mul^i) / (1 - t_mul)
    f = f / t_mul^i                                  (the fraction of period i done)
    lr * ((1 - alpha) * 0.5 * m_mul^i * (1 + cos(pi f)) + alpha)
"""
import math

from estimator_npu.engine.ops import math_ops
from estimator_npu.engine.ops.core import constant
from estimator_npu.train.learning_rate_decay import _as, _check_positive, _check_step, _lr


def cosine_decay_restarts(learning_rate, global_step, first_decay_steps, t_mul=2.0,
                          m_mul=1.0, alpha=0.0, name=None):
    """SGDR: cosine decay restarted every period, the period growing by ``t_mul`` and the
    peak shrinking by ``m_mul``."""
    _check_step(global_step, "cosine_decay_restarts")
    _check_positive("first_decay_steps", first_decay_steps)
    lr = _lr(learning_rate)
    dt = lr.dtype
    frac = _as(global_step, dt) / _as(first_decay_steps, dt)
    one = constant(1.0, dtype=dt)
    if t_mul == 1.0:
        i = math_ops.floor(frac)
        frac = frac - i
    else:
        tm = _as(t_mul, dt)
        i = math_ops.floor(math_ops.log(one - frac * (one - tm)) / math_ops.log(tm))
        done = (one - math_ops.pow(tm, i)) / (one - tm)
        frac = (frac - done) / math_ops.pow(tm, i)
    m_fac = math_ops.pow(_as(m_mul, dt), i)
    cosine = constant(0.5, dtype=dt) * m_fac * (one + math_ops.cos(
        constant(math.pi, dtype=dt) * frac))
    a = _as(alpha, dt)
    return math_ops.multiply(lr, (one - a) * cosine + a, name=name or "SGDRDecay")


def linear_cosine_decay(learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0,
                        beta=0.001, name=None):
    """``lr * ((alpha + linear) * cosine + beta)`` with ``linear = (T - t) / T`` and
    ``cosine = 0.5 (1 + cos(2 pi num_periods t / T))``, ``t = min(step, T)``."""
    _check_step(global_step, "linear_cosine_decay")
    _check_positive("decay_steps", decay_steps)
    lr = _lr(learning_rate)
    dt = lr.dtype
    steps = _as(decay_steps, dt)
    t = math_ops.minimum(_as(global_step, dt), steps)
    linear = (steps - t) / steps
    cosine = constant(0.5, dtype=dt) * (constant(1.0, dtype=dt) + math_ops.cos(
        constant(math.pi * 2.0 * num_periods, dtype=dt) * t / steps))
    decayed = (_as(alpha, dt) + linear) * cosine + _as(beta, dt)
    return math_ops.multiply(lr, decayed, name=name or "LinearCosineDecay")
