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


def _named(init, keras_name):
    init._keras_name = keras_name
    return init


def glorot_uniform(seed=None, dtype=dtypes.float32):
    return _named(VarianceScaling(1.0, "fan_avg", "uniform", seed, dtype), "GlorotUniform")


def glorot_normal(seed=None, dtype=dtypes.float32):
    return _named(VarianceScaling(1.0, "fan_avg", "truncated_normal", seed, dtype),
                  "GlorotNormal")


def he_normal(seed=None):
    return _named(init_ops.he_normal(seed), "HeNormal")


def he_uniform(seed=None):
    return _named(init_ops.he_uniform(seed), "HeUniform")


def lecun_normal(seed=None):
    return _named(init_ops.lecun_normal(seed), "LecunNormal")


def lecun_uniform(seed=None):
    return _named(init_ops.lecun_uniform(seed), "LecunUniform")


GlorotUniform, GlorotNormal = glorot_uniform, glorot_normal
HeNormal, HeUniform, LecunNormal, LecunUniform = he_normal, he_uniform, lecun_normal, \
    lecun_uniform
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
    """An initializer from a name (``'glorot_uniform'``, ``'Zeros'``), a config dict
    (``{'class_name': 'GlorotUniform', 'config': {'seed': None}}``), a callable or
    ``None``."""
    if identifier is None or callable(identifier) and not isinstance(identifier, type):
        return identifier
    if isinstance(identifier, type):
        return identifier()
    if isinstance(identifier, dict):
        name, config = identifier["class_name"], dict(identifier.get("config") or {})
        make = _lookup(name)
        if make in (he_normal, he_uniform, lecun_normal, lecun_uniform):
            config.pop("dtype", None)
        return make(**config)
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
    """TF 2.15's ``{'class_name', 'config'}`` for an initializer (graph-mode Keras: the
    v1 classes, whose configs carry ``dtype``; ``HeNormal``-style ones do not)."""
    if initializer is None:
        return None
    name = getattr(initializer, "_keras_name", None) or type(initializer).__name__
    dt = getattr(initializer, "dtype", dtypes.float32)
    dt = dtypes.as_dtype(dt).name
    i = initializer
    if name in ("HeNormal", "HeUniform", "LecunNormal", "LecunUniform"):
        config = {"seed": i.seed}
    elif name in ("GlorotUniform", "GlorotNormal"):
        config = {"seed": i.seed, "dtype": dt}
    elif name in ("Zeros", "Ones"):
        config = {"dtype": dt}
    elif name == "Constant":
        value = i.value.tolist() if hasattr(i.value, "tolist") else i.value
        config = {"value": value, "dtype": dt}
    elif name in ("RandomNormal", "TruncatedNormal"):
        config = {"mean": i.mean, "stddev": i.stddev, "seed": i.seed, "dtype": dt}
    elif name == "RandomUniform":
        config = {"minval": i.minval, "maxval": i.maxval, "seed": i.seed, "dtype": dt}
    elif name == "Orthogonal":
        config = {"gain": i.gain, "seed": i.seed, "dtype": dt}
    elif name == "Identity":
        config = {"gain": i.gain, "dtype": dt}
    elif name == "VarianceScaling":
        config = {"scale": i.scale, "mode": i.mode, "distribution": i.distribution,
                  "seed": i.seed, "dtype": dt}
    else:
        config = initializer.get_config() if hasattr(initializer, "get_config") else {}
    return {"class_name": name, "config": config}


del array_ops, math_ops

__all__ = sorted(n for n in set(globals()) - _IMPORTED if not n.startswith("_"))
