"""``tf.keras.initializers``: the engine's initializers under Keras's names and defaults
(``RandomNormal``/``TruncatedNormal`` stddev 0.05, ``RandomUniform`` [-0.05, 0.05]), and
``get`` for the string names layers accept (``'glorot_uniform'``, ``'zeros'``, ...)."""
import numpy as np

from estimator_npu.engine import dtypes, init_ops
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.core import constant

_IMPORTED = set(globals())

Initializer = init_ops.Initializer
Zeros, Ones, Constant, VarianceScaling = (init_ops.Zeros, init_ops.Ones, init_ops.Constant,
                                          init_ops.VarianceScaling)


class RandomNormal(init_ops.RandomNormal):
    def __init__(self, mean=0.0, stddev=0.05, seed=None, dtype=dtypes.float32):
        super().__init__(mean, stddev, seed, dtype)


class TruncatedNormal(init_ops.TruncatedNormal):
    def __init__(self, mean=0.0, stddev=0.05, seed=None, dtype=dtypes.float32):
        super().__init__(mean, stddev, seed, dtype)


RandomUniform = init_ops.RandomUniform


class Identity(Initializer):
    """``gain * I`` for a 2-D shape."""

    def __init__(self, gain=1.0, dtype=dtypes.float32):
        self.gain, self.dtype = gain, dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        if len(shape) != 2:
            raise ValueError(f"Identity initializer: shape must be 2-D, got {list(shape)}")
        return constant(self.gain * np.eye(*shape), dtype=self._dtype(dtype))


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix from the QR decomposition of a normal sample."""

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        self.gain, self.seed, self.dtype = gain, seed, dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        rows = int(np.prod(shape[:-1]))
        cols = int(shape[-1])
        rng = np.random.RandomState(self.seed)
        a = rng.normal(size=(max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(a)
        q *= np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return constant(self.gain * q.reshape(shape), dtype=self._dtype(dtype))


def glorot_uniform(seed=None):
    return VarianceScaling(1.0, "fan_avg", "uniform", seed)


def glorot_normal(seed=None):
    return VarianceScaling(1.0, "fan_avg", "truncated_normal", seed)


he_normal, he_uniform = init_ops.he_normal, init_ops.he_uniform
lecun_normal, lecun_uniform = init_ops.lecun_normal, init_ops.lecun_uniform
GlorotUniform, GlorotNormal = glorot_uniform, glorot_normal
zeros, ones, constant_ = Zeros, Ones, Constant
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal
identity, orthogonal, variance_scaling = Identity, Orthogonal, VarianceScaling

_BY_NAME = {
    "zeros": Zeros, "zero": Zeros, "ones": Ones, "one": Ones, "constant": Constant,
    "glorot_uniform": glorot_uniform, "glorot_normal": glorot_normal,
    "he_normal": he_normal, "he_uniform": he_uniform, "lecun_normal": lecun_normal,
    "lecun_uniform": lecun_uniform, "random_normal": RandomNormal,
    "random_uniform": RandomUniform, "truncated_normal": TruncatedNormal,
    "identity": Identity, "orthogonal": Orthogonal, "variance_scaling": VarianceScaling,
}


def get(identifier):
    """An initializer from a name (``'glorot_uniform'``, ``'Zeros'``), a config dict, a
    callable or ``None``."""
    if identifier is None or callable(identifier) and not isinstance(identifier, type):
        return identifier
    if isinstance(identifier, type):
        return identifier()
    if isinstance(identifier, dict):
        name, config = identifier["class_name"], identifier.get("config", {})
        return _lookup(name)(**config)
    if isinstance(identifier, str):
        return _lookup(identifier)()
    raise ValueError(f"Could not interpret initializer identifier: {identifier!r}")


def _lookup(name):
    from estimator_npu.keras.backend import to_snake_case
    key = to_snake_case(name)
    if key not in _BY_NAME:
        raise ValueError(f"Unknown initializer: {name!r}; known: {sorted(_BY_NAME)}")
    return _BY_NAME[key]


def serialize(initializer):
    return {"class_name": type(initializer).__name__, "config": initializer.get_config()}


del array_ops, math_ops

__all__ = sorted(n for n in set(globals()) - _IMPORTED if not n.startswith("_"))
