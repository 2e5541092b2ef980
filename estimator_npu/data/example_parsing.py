"""Parsing serialized ``tf.train.Example`` / ``SequenceExample`` protos into tensors.

``parse_example(serialized, features)`` adds one ``ParseExample`` op whose outputs are,
in order, the ``(indices, values, dense_shape)`` of every ``VarLenFeature`` (keys sorted)
and then the dense tensor of every ``FixedLenFeature`` / ``FixedLenSequenceFeature``
(keys sorted). Its kernel parses each record with the protobuf runtime; for a batch of
fixed-length features it first tries ``example_fastpath`` (one numpy gather per feature
when all records share one layout)::

    features = {"image": FixedLenFeature([784], tf.float32),
                "label": FixedLenFeature([], tf.int64, default_value=-1),
                "tags": VarLenFeature(tf.string)}
    parsed = parse_example(serialized_batch, features)  # image [N, 784], tags SparseTensor

Errors name the feature key: a missing feature without a default, a dtype mismatch
(both dtypes), a wrong number of values.
"""

import numpy as np

from estimator_npu import errors
from estimator_npu.core.example import example_pb2
from estimator_npu.data import example_fastpath
from estimator_npu.data.sparse import SparseTensor
from estimator_npu.engine import dtypes
from estimator_npu.engine import graph_def as gdef
from estimator_npu.engine.ops.core import convert_to_tensor, make_op
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.shape import TensorShape
from estimator_npu.utils.feature_specs import (  # noqa: F401 - tf.io's names too
    FixedLenFeature, FixedLenSequenceFeature, VarLenFeature)

OPS = OpFamily(__name__)  # this family's op definitions (data)

_KIND = {"float32": "float_list", "int64": "int64_list", "string": "bytes_list"}
_KIND_NAME = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}


class _Dense:
    __slots__ = ("key", "dtype", "shape", "default", "sequence", "allow_missing")

    def __init__(self, key, spec):
        self.key = key
        self.dtype = _check_dtype(key, spec.dtype)
        self.sequence = isinstance(spec, FixedLenSequenceFeature)
        self.allow_missing = self.sequence and bool(spec.allow_missing)
        shape = TensorShape(spec.shape)
        if shape.values is None or any(d is None for d in shape.values):
            raise ValueError(f"Feature {key!r}: the shape of a {type(spec).__name__} must "
                             f"be fully defined, got {shape}")
        self.shape = tuple(shape.values)
        self.default = None
        if spec.default_value is not None:
            d = np.asarray(spec.default_value, dtype=self.dtype.np)
            if d.dtype == object:
                d = np.vectorize(_as_bytes, otypes=[object])(d) if d.size else d
            if self.sequence:
                d = d.reshape(())
            elif d.size == 1 and d.shape != self.shape:
                d = np.full(self.shape, d.reshape(())[()], dtype=d.dtype)
            elif d.shape != self.shape:
                try:
                    d = d.reshape(self.shape)
                except ValueError:
                    raise ValueError(f"Feature {key!r}: default_value of shape "
                                     f"{list(np.shape(spec.default_value))} does not match "
                                     f"the feature's shape {list(self.shape)}") from None
            self.default = d


def _as_bytes(v):
    return v.encode() if isinstance(v, str) else v


def _check_dtype(key, dtype):
    dt = dtypes.as_dtype(dtype)
    if dt.name not in _KIND:
        raise ValueError(f"Feature {key!r}: dtype must be tf.float32, tf.int64 or "
                         f"tf.string, got {dt.name}")
    return dt


def _split_specs(features, what):
    if not isinstance(features, dict):
        raise TypeError(f"{what}: `features` must be a dict of feature specs, got "
                        f"{type(features).__name__}")
    dense, sparse = [], []
    for key in sorted(features):
        spec = features[key]
        if isinstance(spec, VarLenFeature):
            sparse.append((key, _check_dtype(key, spec.dtype)))
        elif isinstance(spec, (FixedLenFeature, FixedLenSequenceFeature)):
            dense.append(_Dense(key, spec))
        else:
            raise TypeError(f"{what}: feature {key!r} must be a FixedLenFeature, "
                            f"FixedLenSequenceFeature or VarLenFeature, got {spec!r}")
    return dense, sparse


# ---------------------------------------------------------------- value extraction
def feature_values(feature, key, dtype, where):
    """The values of one ``Feature`` message as a 1-D array of ``dtype``."""
    kind = feature.WhichOneof("kind")
    if kind is None:
        return np.zeros(0, dtype=dtype.np)
    if kind != _KIND[dtype.name]:
        raise errors.InvalidArgumentError(
            None, None, f"{where}Key: {key}. Data types don't match. Data type: "
            f"{_KIND_NAME[kind]} but expected type: {_KIND_NAME[_KIND[dtype.name]]}")
    vals = getattr(feature, kind).value
    if dtype == dtypes.string:
        out = np.empty(len(vals), dtype=object)
        out[:] = list(vals)
        return out
    return np.array(vals, dtype=dtype.np)


def _dense_value(d, fmap, where):
    f = fmap.get(d.key)
    if f is None:
        if d.default is None and not d.allow_missing:
            raise errors.InvalidArgumentError(
                None, None, f"{where}Feature: {d.key} (data type: "
                f"{_KIND_NAME[_KIND[d.dtype.name]]}) is required but could not be found.")
        return None
    vals = feature_values(f, d.key, d.dtype, where)
    step = int(np.prod(d.shape, dtype=np.int64))
    if d.sequence:
        if step == 0 or len(vals) % step:
            raise errors.InvalidArgumentError(
                None, None, f"{where}Key: {d.key}. Number of values is not a multiple of "
                f"the step size {step} of shape {list(d.shape)}: got {len(vals)} values")
        return vals.reshape((-1,) + d.shape)
    if len(vals) != step:
        raise errors.InvalidArgumentError(
            None, None, f"{where}Key: {d.key}. Number of {_KIND_NAME[_KIND[d.dtype.name]]} "
            f"values != expected. Values size: {len(vals)} but output shape: "
            f"{list(d.shape)}")
    return vals.reshape(d.shape)


def _where(names, i, batched):
    name = names[i] if names is not None else None
    if name:
        return f"Name: {name}, "
    return f"Name: <unknown>, Index: {i}, " if batched else ""


def _parse_message(cls, s, i, names):
    if isinstance(s, str):
        s = s.encode()
    try:
        return cls.FromString(s)
    except Exception:  # noqa: BLE001 - protobuf's DecodeError and type errors
        label = names[i] if names is not None else f"index {i}"
        raise errors.InvalidArgumentError(
            None, None, f"Could not parse example input ({label}), value: "
            f"{bytes(s)[:40]!r}{'...' if len(s) > 40 else ''}") from None


def _sparse_output(rows, dtype, batched):
    """``(indices, values, dense_shape)`` from per-record 1-D (or 2-D step) arrays."""
    lengths = np.array([len(r) for r in rows], dtype=np.int64)
    values = (np.concatenate(rows) if rows else np.zeros(0, dtype.np)).astype(dtype.np,
                                                                            copy=False)
    within = (np.arange(len(values), dtype=np.int64) -
              np.repeat(np.cumsum(lengths) - lengths, lengths))
    width = int(lengths.max()) if len(lengths) else 0
    if not batched:
        return within.reshape(-1, 1), values, np.array([width], np.int64)
    rec = np.repeat(np.arange(len(rows), dtype=np.int64), lengths)
    return (np.stack([rec, within], axis=1), values,
            np.array([len(rows), width], np.int64))


def _dense_output(d, values, n, batched):
    if d.sequence:
        width = max([len(v) for v in values if v is not None] + [0])
        fill = d.default if d.default is not None else (b"" if d.dtype == dtypes.string
                                                         else 0)
        out = np.full((n, width) + d.shape, fill, dtype=d.dtype.np)
        for i, v in enumerate(values):
            if v is not None:
                out[i, :len(v)] = v
    else:
        out = np.empty((n,) + d.shape, dtype=d.dtype.np)
        for i, v in enumerate(values):
            out[i, ...] = d.default if v is None else v
    return out if batched else out[0, ...]


def parse_examples(records, dense, sparse, names=None, batched=True):
    """Parses a list of serialized Examples; returns the op's outputs as arrays."""
    if batched and dense and not sparse and names is None:
        fast = example_fastpath.parse_dense(records, dense)
        if fast is not None:
            return fast
    fmaps = [_parse_message(example_pb2.Example, s, i, names).features.feature
             for i, s in enumerate(records)]
    out = []
    for key, dt in sparse:
        rows = []
        for i, fmap in enumerate(fmaps):
            f = fmap.get(key)
            rows.append(np.zeros(0, dt.np) if f is None else
                        feature_values(f, key, dt, _where(names, i, batched)))
        out.extend(_sparse_output(rows, dt, batched))
    for d in dense:
        values = [_dense_value(d, fmap, _where(names, i, batched))
                  for i, fmap in enumerate(fmaps)]
        out.append(_dense_output(d, values, len(fmaps), batched))
    return out


def _strings(value):
    a = np.asarray(value, dtype=object)
    return a.reshape(-1).tolist(), a.shape


def _parse_example_kernel(op, ctx):
    dense, sparse = op.attrs["dense"], op.attrs["sparse"]
    batched = op.attrs["batched"]

    def run(serialized, *names):
        records, shape = _strings(serialized)
        if batched and len(shape) != 1:
            raise errors.InvalidArgumentError(None, op, f"{op.name}: `serialized` must be a "
                                              f"vector, got shape {list(shape)}")
        nm = _strings(names[0])[0] if names else None
        nm = [n.decode() if isinstance(n, bytes) else n for n in nm] if nm else None
        out = parse_examples(records, dense, sparse, nm, batched)
        ns = len(sparse)
        if ns > 1:  # (indices, values, shape) per feature -> TF's output order
            out = [out[3 * i + j] for j in range(3) for i in range(ns)] + out[3 * ns:]
        return out[0] if len(out) == 1 else tuple(out)
    return run


OPS.define("ParseExample", kernel=_parse_example_kernel, grad=NOT_DIFFERENTIABLE)


def _build(serialized, features, names, batched, what, name):
    dense, sparse = _split_specs(features, what)
    serialized = convert_to_tensor(serialized)
    if serialized.dtype != dtypes.string:
        raise TypeError(f"{what}: `serialized` must be a tf.string tensor, got dtype "
                        f"{serialized.dtype.name}")
    dims = serialized.shape.values
    if dims is not None and len(dims) != (1 if batched else 0):
        raise ValueError(f"{what}: `serialized` must be a "
                         f"{'vector' if batched else 'scalar'}, got shape "
                         f"{serialized.shape}")
    n = dims[0] if batched and dims is not None else None
    lead = (n,) if batched else ()
    # outputs in TF's order: every sparse feature's indices, then their values, then their
    # dense shapes, then the dense features
    r = 2 if batched else 1
    specs = [(dtypes.int64, TensorShape([None, r])) for _ in sparse] + \
        [(dt, TensorShape([None])) for _, dt in sparse] + \
        [(dtypes.int64, TensorShape([r])) for _ in sparse]
    for d in dense:
        shape = lead + ((None,) if d.sequence else ()) + d.shape
        specs.append((d.dtype, TensorShape(list(shape))))
    inputs = [serialized]
    if names is not None:
        inputs.append(convert_to_tensor(names, dtype=dtypes.string))
    op = make_op("ParseExample", inputs, specs,
                 {"dense": dense, "sparse": sparse, "batched": batched},
                 name=name or "ParseExample")
    outs = list(op.outputs)
    result = {}
    ns = len(sparse)
    for i, (key, _) in enumerate(sparse):
        result[key] = SparseTensor(outs[i], outs[ns + i], outs[2 * ns + i])
    for d, t in zip(dense, outs[3 * len(sparse):]):
        result[d.key] = t
    return result


def parse_example(serialized, features, name=None, example_names=None):
    """``tf.io.parse_example``: parses a vector of serialized Examples into a dict of
    batched tensors (``SparseTensor`` for a ``VarLenFeature``)."""
    return _build(serialized, features, example_names, True, "parse_example", name)


def parse_single_example(serialized, features, name=None, example_names=None):
    """``tf.io.parse_single_example``: parses one serialized Example (a scalar)."""
    return _build(serialized, features, example_names, False, "parse_single_example", name)


def _import_parse_example(n, x, name):
    """``import_graph_def``'s builder of TF1's ``ParseExample`` node (keys and defaults as
    ``Const`` inputs): this module's op, its outputs in TF's order."""
    const = gdef.const_input_value
    ns, nd = n.attr["Nsparse"].i, n.attr["Ndense"].i
    keys = [const(t, "ParseExample's keys").item() for t in x[2:2 + ns + nd]]
    keys = [k.decode() if isinstance(k, bytes) else str(k) for k in keys]
    stypes = [gdef.enum_dtype(v) for v in n.attr["sparse_types"].list.type]
    tdense = [gdef.enum_dtype(v) for v in n.attr["Tdense"].list.type]
    shapes = [gdef.proto_shape(p).as_list() for p in n.attr["dense_shapes"].list.shape]
    spec = {k: VarLenFeature(t) for k, t in zip(keys[:ns], stypes)}
    for k, t, shp, d in zip(keys[ns:], tdense, shapes, x[2 + ns + nd:]):
        default = const(d, "ParseExample's dense_defaults")
        spec[k] = FixedLenFeature(shp, t, default if default.size else None)
    out = parse_example(x[0], spec, name=name)
    sparse = [out[k] for k in keys[:ns]]
    return ([s.indices for s in sparse] + [s.values for s in sparse] +
            [s.dense_shape for s in sparse] + [out[k] for k in keys[ns:]])


gdef.IMPORT_BUILDERS["ParseExample"] = _import_parse_example


__all__ = ["FixedLenFeature", "FixedLenSequenceFeature", "VarLenFeature", "parse_example",
           "parse_single_example", "feature_values", "parse_examples"]
