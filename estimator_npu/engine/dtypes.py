"""TF1-style dtypes backed by numpy dtypes.

``DType`` objects compare equal to each other and to the numpy dtype or
TF-style name they stand for, so ``tf.float32 == np.float32`` holds.
"""
import numpy as np


class DType:
    """A tensor element type: a thin wrapper around a numpy dtype."""

    __slots__ = ("name", "as_numpy_dtype", "_np")

    def __init__(self, name, np_type):
        self.name = name
        self.as_numpy_dtype = np_type
        self._np = np.dtype(np_type)

    @property
    def np(self):
        """The numpy ``dtype`` object."""
        return self._np

    @property
    def is_floating(self):
        return self._np.kind == "f" or self.name == "bfloat16"

    @property
    def is_integer(self):
        return self._np.kind in "iu"

    @property
    def is_bool(self):
        return self._np.kind == "b"

    @property
    def is_differentiable(self):
        return self._np.kind in "fc" or self.name in ("bfloat16", "variant")

    @property
    def base_dtype(self):
        return self

    @property
    def size(self):
        return self._np.itemsize

    @property
    def min(self):
        return np.finfo(self._np).min if self.is_floating else np.iinfo(self._np).min

    @property
    def max(self):
        return np.finfo(self._np).max if self.is_floating else np.iinfo(self._np).max

    def __eq__(self, other):
        if isinstance(other, DType):
            return self._np == other._np and (self.name == "variant") == (other.name == "variant")
        try:
            return self._np == as_dtype(other)._np
        except (TypeError, ValueError):
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self._np)

    def __repr__(self):
        return "tf." + self.name


float16 = half = DType("float16", np.float16)
float32 = DType("float32", np.float32)
float64 = double = DType("float64", np.float64)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
uint16 = DType("uint16", np.uint16)
bool = DType("bool", np.bool_)  # noqa: A001 - TF1 name
string = DType("string", np.object_)
complex64 = DType("complex64", np.complex64)
complex128 = DType("complex128", np.complex128)
# Opaque host objects (a TensorArray's contents). Differentiable: its gradient is another
# TensorArray value. Never equal to ``string`` although both hold numpy objects.
variant = DType("variant", np.object_)

_ALL = [float16, float32, float64, int8, int16, int32, int64, uint8, uint16, bool, string,
        complex64, complex128]
_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME.update({"half": float16, "double": float64, "float": float32})
_BY_NP = {d.np: d for d in _ALL}
_BY_NAME["variant"] = variant

try:  # optional bfloat16 support
    import ml_dtypes as _ml_dtypes

    bfloat16 = DType("bfloat16", _ml_dtypes.bfloat16)
    _BY_NAME["bfloat16"] = bfloat16
    _BY_NP[bfloat16.np] = bfloat16
except ImportError:  # pragma: no cover - depends on the environment
    bfloat16 = None


def as_dtype(value):
    """Converts a ``DType``, numpy dtype, python type or name to a ``DType``.

    Raises:
        TypeError: if ``value`` does not name a supported element type.
    """
    if isinstance(value, DType):
        return value
    if value is None:   # numpy would read None as float64
        raise TypeError(f"Cannot convert None to a dtype; expected a tf.DType, a numpy dtype "
                        f"or one of {sorted(_BY_NAME)}")
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    if value is float:
        return float32
    if value is int:
        return int32
    if value is str or value is bytes:
        return string
    try:
        npd = np.dtype(value)
    except TypeError:
        raise TypeError(f"Cannot convert {value!r} to a dtype; expected a tf.DType, a numpy "
                        f"dtype or one of {sorted(_BY_NAME)}") from None
    if npd.kind in "SUO":
        return string
    if npd in _BY_NP:
        return _BY_NP[npd]
    raise TypeError(f"Unsupported dtype {value!r}; expected one of {sorted(_BY_NAME)}")


def _as_bytes(x):  # str -> UTF-8 bytes; bytes and non-strings as they are
    return x.encode("utf-8") if isinstance(x, str) else bytes(x) if isinstance(
        x, np.bytes_) else x


def tf_string_value(v):
    """A string tensor's value as TF's session returns it: ``bytes`` when 0-d, else an
    object array of ``bytes`` (str elements encoded as UTF-8)."""
    if not isinstance(v, np.ndarray):
        v = np.asarray(v, object)
    if v.ndim == 0:
        return _as_bytes(v[()])
    if v.dtype == object and all(type(x) is bytes for x in v.flat):
        return v
    return np.array([_as_bytes(x) for x in v.flat], object).reshape(v.shape)
