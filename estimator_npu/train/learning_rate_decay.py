"""Learning-rate schedules as tensors of ``global_step`` (TF1 ``learning_rate_decay``).

Each function returns a scalar tensor computed in the dtype of ``learning_rate`` (a
Python float becomes float32, as in TF); pass it to an optimizer as its learning rate::

    lr = tf.train.exponential_decay(0.1, global_step, decay_steps=1000, decay_rate=0.96,
                                    staircase=True)
    lr = tf.train.linear_warmup(lr, global_step, warmup_steps=100)
    train_op = tf.train.AdamOptimizer(lr).minimize(loss, global_step)
"""
import math
import numbers

from estimator_npu.engine.graph import Tensor
from estimator_npu.engine.ops import math_ops
from estimator_npu.engine.ops.array_ops import where
from estimator_npu.engine.ops.core import constant, convert_to_tensor, identity
from estimator_npu.engine.ops.state_ops import Variable


def _lr(learning_rate):
    t = convert_to_tensor(learning_rate, name="learning_rate")
    if not t.dtype.is_floating:
        t = math_ops.cast(t, "float32")
    return t


def _as(x, dtype):
    """``x`` (number or tensor) as a tensor of ``dtype``."""
    if isinstance(x, (Tensor, Variable)):
        t = convert_to_tensor(x)
        return t if t.dtype == dtype else math_ops.cast(t, dtype)
    return constant(x, dtype=dtype)


def _check_step(global_step, fn):
    if global_step is None:
        raise ValueError(f"global_step is required for {fn}.")


def _check_positive(name, value):
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and value <= 0:
        raise ValueError(f"{name} must be positive, got {value!r}")


def _decay_power(global_step, decay_steps, staircase, dtype):
    p = math_ops.divide(_as(global_step, dtype), _as(decay_steps, dtype))
    return math_ops.floor(p) if staircase else p


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """``learning_rate * decay_rate ^ (global_step / decay_steps)`` (``floor`` of the
    exponent when ``staircase``)."""
    _check_step(global_step, "exponential_decay")
    _check_positive("decay_steps", decay_steps)
    lr = _lr(learning_rate)
    p = _decay_power(global_step, decay_steps, staircase, lr.dtype)
    return math_ops.multiply(lr, math_ops.pow(_as(decay_rate, lr.dtype), p),
                             name=name or "ExponentialDecay")


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """``learning_rate * exp(-decay_rate * global_step / decay_steps)``."""
    _check_step(global_step, "natural_exp_decay")
    _check_positive("decay_steps", decay_steps)
    lr = _lr(learning_rate)
    p = _decay_power(global_step, decay_steps, staircase, lr.dtype)
    return math_ops.multiply(lr, math_ops.exp(math_ops.negative(_as(decay_rate, lr.dtype) * p)),
                             name=name or "NaturalExpDecay")


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                       name=None):
    """``learning_rate / (1 + decay_rate * global_step / decay_steps)``."""
    _check_step(global_step, "inverse_time_decay")
    _check_positive("decay_steps", decay_steps)
    lr = _lr(learning_rate)
    p = _decay_power(global_step, decay_steps, staircase, lr.dtype)
    denom = math_ops.add(constant(1.0, dtype=lr.dtype), _as(decay_rate, lr.dtype) * p)
    return math_ops.divide(lr, denom, name=name or "InverseTimeDecay")


def piecewise_constant(x, boundaries, values, name=None):
    """``values[0]`` for ``x <= boundaries[0]``, ``values[i]`` for
    ``boundaries[i-1] < x <= boundaries[i]``, ``values[-1]`` for ``x > boundaries[-1]``.

    Raises:
        ValueError: ``len(values) != len(boundaries) + 1``, float boundaries for an
            integer ``x``, or values of different dtypes.
    """
    boundaries, values = list(boundaries), list(values)
    if len(values) != len(boundaries) + 1:
        raise ValueError("The length of boundaries should be 1 less than the length of "
                         f"values: got {len(boundaries)} boundaries and {len(values)} values")
    x = convert_to_tensor(x)
    bs = []
    for b in boundaries:
        if isinstance(b, (Tensor, Variable)):
            bt = convert_to_tensor(b)
            if bt.dtype != x.dtype:
                if bt.dtype.is_integer and x.dtype.is_integer:
                    bt = math_ops.cast(bt, x.dtype)
                else:
                    raise ValueError(f"Boundaries ({bt.dtype.name}) must have the same dtype "
                                     f"as x ({x.dtype.name}).")
        else:
            if x.dtype.is_integer and float(b) != int(b):
                raise ValueError(f"Boundaries (float {b!r}) must have the same dtype as x "
                                 f"({x.dtype.name}).")
            bt = constant(b, dtype=x.dtype)
        bs.append(bt)
    vs = [convert_to_tensor(v) for v in values]
    for v in vs[1:]:
        if v.dtype != vs[0].dtype:
            raise ValueError("Values must have elements all with the same dtype "
                             f"({vs[0].dtype.name} vs {v.dtype.name}).")
    result = vs[-1]
    for b, v in zip(reversed(bs), reversed(vs[:-1])):
        result = where(math_ops.less_equal(x, b), v, result)
    return identity(result, name=name or "PiecewiseConstant")


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001,
                     power=1.0, cycle=False, name=None):
    """``(lr - end) * (1 - step / decay_steps) ^ power + end`` with ``step`` clamped to
    ``decay_steps``; with ``cycle``, ``decay_steps`` grows to the next multiple of itself
    at or above ``global_step`` instead."""
    _check_step(global_step, "polynomial_decay")
    _check_positive("decay_steps", decay_steps)
    lr = _lr(learning_rate)
    dt = lr.dtype
    end = _as(end_learning_rate, dt)
    step = _as(global_step, dt)
    steps = _as(decay_steps, dt)
    if cycle:
        one = constant(1.0, dtype=dt)
        multiplier = where(math_ops.equal(step, constant(0.0, dtype=dt)), one,
                           math_ops.ceil(step / steps))
        steps = steps * multiplier
    else:
        step = math_ops.minimum(step, steps)
    frac = constant(1.0, dtype=dt) - step / steps
    return math_ops.add((lr - end) * math_ops.pow(frac, _as(power, dt)), end,
                        name=name or "PolynomialDecay")


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None):
    """``lr * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) / decay_steps))
    + alpha)``."""
    _check_step(global_step, "cosine_decay")
    _check_positive("decay_steps", decay_steps)
    lr = _lr(learning_rate)
    dt = lr.dtype
    steps = _as(decay_steps, dt)
    frac = math_ops.minimum(_as(global_step, dt), steps) / steps
    cosine = constant(0.5, dtype=dt) * (constant(1.0, dtype=dt) +
                                        math_ops.cos(constant(math.pi, dtype=dt) * frac))
    a = _as(alpha, dt)
    decayed = (constant(1.0, dtype=dt) - a) * cosine + a
    return math_ops.multiply(lr, decayed, name=name or "CosineDecay")


def linear_warmup(learning_rate, global_step, warmup_steps, initial_learning_rate=None,
                  name=None):
    """Linear warm-up in front of a schedule (the BERT recipe).

    For ``global_step < warmup_steps`` returns ``peak * global_step / warmup_steps``, where
    ``peak`` is ``initial_learning_rate`` (default: ``learning_rate`` itself); afterwards
    returns ``learning_rate`` (a number or a schedule tensor).
    """
    _check_step(global_step, "linear_warmup")
    _check_positive("warmup_steps", warmup_steps)
    lr = _lr(learning_rate)
    dt = lr.dtype
    step = _as(global_step, dt)
    ws = _as(warmup_steps, dt)
    peak = lr if initial_learning_rate is None else _as(initial_learning_rate, dt)
    warm = peak * (step / ws)
    return where(math_ops.less(step, ws), warm, lr, name=name or "LinearWarmup")


__all__ = ["exponential_decay", "natural_exp_decay", "inverse_time_decay",
           "piecewise_constant", "polynomial_decay", "cosine_decay", "linear_warmup"]
