"""Raw bytes <-> tensors: ``decode_raw``, ``serialize_tensor``/``parse_tensor``, and
``read_file``/``write_file``.

``serialize_tensor`` writes a ``TensorProto`` as TF does (dtype, shape, and the values
as little-endian ``tensor_content``, or ``string_val`` for strings); ``parse_tensor``
also reads the typed ``*_val`` fields that other writers use::

    raw = tf.io.serialize_tensor(x)               # scalar tf.string
    y = tf.io.parse_tensor(raw, tf.float32)       # x again (static shape unknown)
"""
import threading

import numpy as np
from tensorboardX.proto import tensor_pb2

from estimator_npu import errors
from estimator_npu.engine import dtypes
from estimator_npu.engine.ops.core import convert_to_tensor, make_tensor
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.shape import TensorShape

OPS = OpFamily(__name__)  # this family's op definitions (data)

# TF's DataType enum values.
_ENUM = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6,
         "string": 7, "complex64": 8, "int64": 9, "bool": 10, "bfloat16": 14,
         "uint16": 17, "float16": 19}
_BY_ENUM = {v: k for k, v in _ENUM.items()}
_VAL_FIELD = {"float32": "float_val", "float64": "double_val", "int32": "int_val",
              "uint8": "int_val", "int16": "int_val", "int8": "int_val",
              "uint16": "int_val", "int64": "int64_val", "bool": "bool_val",
              "float16": "half_val", "bfloat16": "half_val", "complex64": "scomplex_val"}


def _bytes(v):
    return v.encode() if isinstance(v, str) else bytes(v)


# ---------------------------------------------------------------- decode_raw
def _decode_raw(data, dtype, little_endian, fixed_length, op):
    arr = np.asarray(data, dtype=object)
    np_t = dtype.np.newbyteorder("<" if little_endian else ">")
    flat = [_bytes(v) for v in arr.reshape(-1).tolist()]
    if fixed_length is not None:
        n = fixed_length // np_t.itemsize
        out = np.zeros((len(flat), n), dtype=dtype.np)
        for i, b in enumerate(flat):
            b = b[:fixed_length]
            m = len(b) // np_t.itemsize
            out[i, :m] = np.frombuffer(b[:m * np_t.itemsize], np_t)
        return out.reshape(arr.shape + (n,))
    lengths = {len(b) for b in flat}
    if len(lengths) > 1:
        raise errors.InvalidArgumentError(
            None, op, f"{op.name}: DecodeRaw requires input strings to all be the same size, "
            f"but element 0 has size {len(flat[0])} and another has size "
            f"{sorted(lengths - {len(flat[0])})[0]}")
    size = lengths.pop() if lengths else 0
    if size % np_t.itemsize:
        raise errors.InvalidArgumentError(
            None, op, f"{op.name}: Input to DecodeRaw has length {size} that is not a "
            f"multiple of {np_t.itemsize}, the size of {dtype.name}")
    out = np.frombuffer(b"".join(flat), np_t).astype(dtype.np, copy=False)
    return out.reshape(arr.shape + (size // np_t.itemsize,))


def decode_raw(input_bytes=None, out_type=None, little_endian=True, fixed_length=None,
               name=None, bytes=None):  # noqa: A002 - TF1's deprecated argument name
    """``tf.io.decode_raw``: reinterprets the bytes of each string as ``out_type``
    values; the output has one more dimension than the input."""
    if input_bytes is None:
        input_bytes = bytes
    x = convert_to_tensor(input_bytes)
    if x.dtype != dtypes.string:
        raise TypeError(f"decode_raw: `input_bytes` must be a tf.string tensor, got "
                        f"{x.dtype.name}")
    dt = dtypes.as_dtype(out_type)
    if dt == dtypes.string:
        raise TypeError("decode_raw: out_type must be a numeric dtype, got string")
    n = None if fixed_length is None else fixed_length // dt.size
    shape = TensorShape(None) if x.shape.values is None else TensorShape(
        list(x.shape.values) + [n])
    return make_tensor("DecodeRaw", [x], dt, shape,
                       {"out_type": dt, "little_endian": bool(little_endian),
                        "fixed_length": fixed_length}, name=name or "DecodeRaw")


OPS.define("DecodeRaw", kernel=lambda op, ctx: (lambda x: _decode_raw(
    x, op.attrs["out_type"], op.attrs["little_endian"], op.attrs["fixed_length"], op)),
         grad=NOT_DIFFERENTIABLE)


# ---------------------------------------------------------------- TensorProto
def tensor_proto_bytes(value, dtype):
    """The serialized ``TensorProto`` of array ``value`` with ``DType`` ``dtype``."""
    value = np.asarray(value)
    proto = tensor_pb2.TensorProto(dtype=_ENUM[dtype.name])
    proto.tensor_shape.SetInParent()  # TF writes the (possibly empty) shape
    for d in value.shape:
        proto.tensor_shape.dim.add(size=d)
    if dtype == dtypes.string:
        proto.string_val.extend(_bytes(v) for v in value.reshape(-1).tolist())
    else:
        proto.tensor_content = np.ascontiguousarray(
            value.astype(dtype.np.newbyteorder("<"), copy=False)).tobytes()
    return proto.SerializeToString()


def tensor_from_proto_bytes(data, dtype, op=None):
    proto = tensor_pb2.TensorProto()
    try:
        proto.ParseFromString(_bytes(data))
    except Exception:  # noqa: BLE001 - protobuf's DecodeError
        raise errors.InvalidArgumentError(None, op, "Could not parse `serialized` as "
                                          "TensorProto: " + repr(_bytes(data)[:40])) from None
    got = _BY_ENUM.get(proto.dtype, f"enum {proto.dtype}")
    if got != dtype.name:
        raise errors.InvalidArgumentError(
            None, op, f"Type mismatch between parsed tensor ({got}) and dtype "
            f"({dtype.name})")
    shape = tuple(d.size for d in proto.tensor_shape.dim)
    count = int(np.prod(shape, dtype=np.int64))
    if dtype == dtypes.string:
        out = np.empty(len(proto.string_val), dtype=object)
        out[:] = list(proto.string_val)
    elif proto.tensor_content:
        out = np.frombuffer(proto.tensor_content, dtype.np.newbyteorder("<")).astype(
            dtype.np)
    else:
        vals = getattr(proto, _VAL_FIELD[dtype.name])
        if dtype.name in ("float16", "bfloat16"):
            out = np.array(list(vals), np.uint16).view(dtype.np)
        else:
            out = np.array(list(vals), dtype.np)
    if out.size == 1 and count != 1:
        out = np.full(count, out[0], dtype=out.dtype)   # a splat value, as TF writes
    if out.size != count:
        raise errors.InvalidArgumentError(None, op, f"TensorProto holds {out.size} values "
                                          f"for shape {list(shape)}")
    return out.reshape(shape)


def serialize_tensor(tensor, name=None):
    """``tf.io.serialize_tensor``: a scalar string holding the tensor's ``TensorProto``."""
    x = convert_to_tensor(tensor)
    return make_tensor("SerializeTensor", [x], dtypes.string, TensorShape([]),
                       {"T": x.dtype}, name=name or "SerializeTensor")


def parse_tensor(serialized, out_type, name=None):
    """``tf.io.parse_tensor``: the tensor of a serialized ``TensorProto``."""
    x = convert_to_tensor(serialized, dtype=dtypes.string)
    dt = dtypes.as_dtype(out_type)
    return make_tensor("ParseTensor", [x], dt, TensorShape(None), {"out_type": dt},
                       name=name or "ParseTensor")


def _scalar_obj(v):
    a = np.empty((), object)
    a[()] = v
    return a


OPS.define("SerializeTensor", kernel=lambda op, ctx: (
    lambda x: _scalar_obj(tensor_proto_bytes(x, op.attrs["T"]))), grad=NOT_DIFFERENTIABLE)
OPS.define("ParseTensor", kernel=lambda op, ctx: (
    lambda s: tensor_from_proto_bytes(np.asarray(s, object)[()], op.attrs["out_type"], op)),
         grad=NOT_DIFFERENTIABLE)


# ---------------------------------------------------------------- files
def _path(v):
    v = np.asarray(v, dtype=object)[()]
    return v.decode() if isinstance(v, bytes) else str(v)


_last_read = threading.local()  # ReadFile op -> the path it read last (for messages)


def last_read_path(op):
    """The path the ``ReadFile`` op ``op`` read last on this thread, or ``None``."""
    return getattr(_last_read, "paths", {}).get(op)


def _read_file(op, filename):
    path = _path(filename)
    if not hasattr(_last_read, "paths"):
        _last_read.paths = {}
    _last_read.paths[op] = path
    try:
        with open(path, "rb") as f:
            return _scalar_obj(f.read())
    except FileNotFoundError:
        raise errors.NotFoundError(None, op, f"{path}; No such file or directory") from None
    except IsADirectoryError:
        raise errors.FailedPreconditionError(None, op, f"{path}; Is a directory") from None


def _write_file(filename, contents):
    with open(_path(filename), "wb") as f:
        f.write(_bytes(np.asarray(contents, dtype=object)[()]))


def read_file(filename, name=None):
    """``tf.io.read_file``: the contents of a file as a scalar string."""
    x = convert_to_tensor(filename, dtype=dtypes.string)
    return make_tensor("ReadFile", [x], dtypes.string, TensorShape([]),
                       name=name or "ReadFile")


def write_file(filename, contents, name=None):
    """``tf.io.write_file``: writes ``contents`` to ``filename`` (an op, no outputs)."""
    from estimator_npu.engine.ops.core import make_op
    return make_op("WriteFile", [convert_to_tensor(filename, dtype=dtypes.string),
                                 convert_to_tensor(contents, dtype=dtypes.string)], [],
                   name=name or "WriteFile")


OPS.define("ReadFile", kernel=lambda op, ctx: (lambda f: _read_file(op, f)),
           grad=NOT_DIFFERENTIABLE, stateful=True)
OPS.define("WriteFile", kernel=lambda op, ctx: _write_file, grad=NOT_DIFFERENTIABLE,
           stateful=True)

__all__ = ["decode_raw", "serialize_tensor", "parse_tensor", "read_file", "write_file"]
