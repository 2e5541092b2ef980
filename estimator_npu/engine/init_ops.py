"""Variable initializers (``tf.zeros_initializer()``, ``tf.glorot_uniform_initializer()`` ...).

An initializer is called as ``init(shape, dtype=None, partition_info=None)`` and returns a
tensor; random initializers build seeded random ops (see ``random_ops``).
"""
import math

import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import random_ops
from estimator_npu.engine.ops.core import constant


class Initializer:
    """Base class: subclasses implement ``__call__(shape, dtype=None, partition_info=None)``."""

    dtype = dtypes.float32

    def _dtype(self, dtype):
        return dtypes.as_dtype(dtype if dtype is not None else self.dtype)

    def get_config(self):
        return {k: v for k, v in vars(self).items() if not k.startswith("_")}


class Zeros(Initializer):
    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return constant(0, dtype=self._dtype(dtype), shape=shape)


class Ones(Zeros):
    def __call__(self, shape, dtype=None, partition_info=None):
        return constant(1, dtype=self._dtype(dtype), shape=shape)


class Constant(Initializer):
    def __init__(self, value=0, dtype=dtypes.float32, verify_shape=False):
        self.value = value
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        v = np.asarray(self.value)
        if v.ndim and v.size != int(np.prod(shape)):
            raise ValueError(f"constant_initializer: value has {v.size} elements, shape "
                             f"{list(shape)} needs {int(np.prod(shape))}")
        return constant(self.value, dtype=self._dtype(dtype), shape=shape)


class RandomNormal(Initializer):
    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        self.mean, self.stddev, self.seed = mean, stddev, seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_normal(shape, self.mean, self.stddev, self._dtype(dtype),
                                        seed=self.seed)


class TruncatedNormal(RandomNormal):
    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.truncated_normal(shape, self.mean, self.stddev, self._dtype(dtype),
                                           seed=self.seed)


class RandomUniform(Initializer):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None, dtype=dtypes.float32):
        self.minval, self.maxval, self.seed = minval, maxval, seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_uniform(shape, self.minval, self.maxval, self._dtype(dtype),
                                         seed=self.seed)


def _fans(shape):
    shape = list(shape)
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[:-2]))
    return shape[-2] * receptive, shape[-1] * receptive


class VarianceScaling(Initializer):
    """Samples with variance ``scale / n`` where ``n`` is fan_in, fan_out or their mean."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 dtype=dtypes.float32):
        if scale <= 0:
            raise ValueError(f"variance_scaling_initializer: scale must be > 0, got {scale}")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"variance_scaling_initializer: mode must be fan_in, fan_out or "
                             f"fan_avg, got {mode!r}")
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in ("truncated_normal", "untruncated_normal", "uniform"):
            raise ValueError("variance_scaling_initializer: distribution must be "
                             "truncated_normal, untruncated_normal or uniform, got "
                             f"{distribution!r}")
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        fan_in, fan_out = _fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[
            self.mode]
        var = self.scale / max(1.0, n)
        dt = self._dtype(dtype)
        if self.distribution == "truncated_normal":
            # 0.879... is the stddev of a standard normal truncated to [-2, 2].
            return random_ops.truncated_normal(shape, 0.0, math.sqrt(var) / .87962566103423978,
                                               dt, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.random_normal(shape, 0.0, math.sqrt(var), dt, seed=self.seed)
        limit = math.sqrt(3.0 * var)
        return random_ops.random_uniform(shape, -limit, limit, dt, seed=self.seed)


def glorot_uniform_initializer(seed=None, dtype=dtypes.float32):
    return VarianceScaling(1.0, "fan_avg", "uniform", seed, dtype)


def glorot_normal_initializer(seed=None, dtype=dtypes.float32):
    return VarianceScaling(1.0, "fan_avg", "truncated_normal", seed, dtype)


def he_normal(seed=None):
    return VarianceScaling(2.0, "fan_in", "truncated_normal", seed)


def he_uniform(seed=None):
    return VarianceScaling(2.0, "fan_in", "uniform", seed)


def lecun_normal(seed=None):
    return VarianceScaling(1.0, "fan_in", "truncated_normal", seed)


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
random_uniform_initializer = RandomUniform
variance_scaling_initializer = VarianceScaling
xavier_initializer = glorot_uniform_initializer


def lecun_uniform(seed=None):
    return VarianceScaling(1.0, "fan_in", "uniform", seed)
