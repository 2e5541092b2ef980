"""``tf.contrib.layers`` initializers and regularizers (TF-Slim era)::

    xavier_initializer(uniform=True)              # variance_scaling(1.0, "FAN_AVG")
    variance_scaling_initializer(factor=2.0, mode="FAN_IN", uniform=False)
        # uniform: U(-sqrt(3 f / n), sqrt(3 f / n)); else truncated normal,
        # stddev sqrt(1.3 f / n)
    l2_regularizer(scale)(w) = scale * sum(w^2) / 2;  l1_regularizer(scale)(w) = scale * sum|w|
"""
import math
import numbers

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import GraphKeys, add_to_collection, get_collection
from estimator_npu.engine.init_ops import Initializer, _fans
from estimator_npu.engine.ops import math_ops, nn_ops, random_ops
from estimator_npu.engine.ops.core import convert_to_tensor


class _ContribVarianceScaling(Initializer):
    def __init__(self, factor, mode, uniform, seed, dtype):
        if mode not in ("FAN_IN", "FAN_OUT", "FAN_AVG"):
            raise TypeError(f"Unknown mode {mode} [FAN_IN, FAN_OUT, FAN_AVG]")
        if not dtypes.as_dtype(dtype).is_floating:
            raise TypeError("Cannot create initializer for non-floating point type.")
        self.factor, self.mode, self.uniform, self.seed = float(factor), mode, uniform, seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        fan_in, fan_out = _fans(shape)
        n = {"FAN_IN": fan_in, "FAN_OUT": fan_out, "FAN_AVG": (fan_in + fan_out) / 2.0}[
            self.mode]
        dt = self._dtype(dtype)
        if self.uniform:
            limit = math.sqrt(3.0 * self.factor / n)
            return random_ops.random_uniform(shape, -limit, limit, dt, seed=self.seed)
        return random_ops.truncated_normal(shape, 0.0, math.sqrt(1.3 * self.factor / n), dt,
                                           seed=self.seed)


def variance_scaling_initializer(factor=2.0, mode="FAN_IN", uniform=False, seed=None,
                                 dtype=dtypes.float32):
    return _ContribVarianceScaling(factor, mode, uniform, seed, dtype)


def xavier_initializer(uniform=True, seed=None, dtype=dtypes.float32):
    return _ContribVarianceScaling(1.0, "FAN_AVG", uniform, seed, dtype)


xavier_initializer_conv2d = xavier_initializer


def _check_scale(scale, what):
    if isinstance(scale, numbers.Integral):
        raise ValueError(f"scale cannot be an integer: {scale}")
    if isinstance(scale, numbers.Real):
        if scale < 0.0:
            raise ValueError(f"Setting a scale less than 0 on a regularizer: {scale}")
        return float(scale)
    raise TypeError(f"{what}: scale must be a float, got {scale!r}")


def l2_regularizer(scale, scope=None):
    """``scale * l2_loss(weights)`` (``None`` for scale 0)."""
    scale = _check_scale(scale, "l2_regularizer")
    if scale == 0.0:
        return lambda _: None

    def l2(weights):
        w = convert_to_tensor(weights)
        return math_ops.multiply(math_ops.cast(scale, w.dtype), nn_ops.l2_loss(w),
                                 name=scope or "l2_regularizer")
    return l2


def l1_regularizer(scale, scope=None):
    """``scale * sum(|weights|)`` (``None`` for scale 0)."""
    scale = _check_scale(scale, "l1_regularizer")
    if scale == 0.0:
        return lambda _: None

    def l1(weights):
        w = convert_to_tensor(weights)
        return math_ops.multiply(math_ops.cast(scale, w.dtype),
                                 math_ops.reduce_sum(math_ops.abs(w)),
                                 name=scope or "l1_regularizer")
    return l1


def sum_regularizer(regularizer_list, scope=None):
    regs = [r for r in regularizer_list if r is not None]

    def total(weights):
        losses = [loss for loss in (r(weights) for r in regs) if loss is not None]
        return math_ops.add_n(losses, name=scope or "sum_regularizer") if losses else None
    return total


def apply_regularization(regularizer, weights_list=None):
    """The sum of ``regularizer(w)`` over ``weights_list`` (default: the ``WEIGHTS``
    collection), added to ``REGULARIZATION_LOSSES`` and returned, as
    ``tf.contrib.layers.apply_regularization``.

    Raises:
        ValueError: no weights to regularize, or the regularizer gives no penalty.
    """
    if not weights_list:
        weights_list = get_collection(GraphKeys.WEIGHTS)
    if not weights_list:
        raise ValueError("apply_regularization: no weights to regularize (weights_list is "
                         "empty and the WEIGHTS collection is empty)")
    penalties = [p for p in (regularizer(w) for w in weights_list) if p is not None]
    if not penalties:
        raise ValueError("apply_regularization: the regularizer returned no penalty for any "
                         "of the weights")
    total = math_ops.add_n(penalties, name="get_regularization_penalty")
    add_to_collection(GraphKeys.REGULARIZATION_LOSSES, total)
    return total
