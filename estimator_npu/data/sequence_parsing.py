"""``parse_single_sequence_example``: a ``SequenceExample``'s context and feature lists.

Context features are parsed as in ``parse_single_example``. A sequence feature is a
``FeatureList`` of ``T`` Features: ``FixedLenSequenceFeature(shape)`` gives a dense
``[T] + shape`` tensor, ``VarLenFeature`` a ``SparseTensor`` with indices ``[t, i]``::

    ctx, seq = parse_single_sequence_example(
        serialized, context_features={"length": FixedLenFeature([], tf.int64)},
        sequence_features={"tokens": FixedLenSequenceFeature([], tf.int64)})
"""
import numpy as np

from estimator_npu import errors
from estimator_npu.core.example import example_pb2
from estimator_npu.data import example_parsing as ep
from estimator_npu.data.sparse import SparseTensor
from estimator_npu.engine import dtypes
from estimator_npu.engine.ops.core import convert_to_tensor, make_op
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.shape import TensorShape

OPS = OpFamily(__name__)  # this family's op definitions (data)


def _sequence_dense(d, flist, where):
    if flist is None:
        if not d.allow_missing:
            raise errors.InvalidArgumentError(
                None, None, f"{where}Feature list: {d.key} is required but could not be "
                "found.")
        return np.zeros((0,) + d.shape, dtype=d.dtype.np)
    step = int(np.prod(d.shape, dtype=np.int64))
    rows = []
    for t, f in enumerate(flist.feature):
        vals = ep.feature_values(f, d.key, d.dtype, where)
        if len(vals) != step:
            raise errors.InvalidArgumentError(
                None, None, f"{where}Key: {d.key}, Index: {t}. Number of values != "
                f"expected. values size: {len(vals)} but output shape: {list(d.shape)}")
        rows.append(vals.reshape(d.shape))
    if not rows:
        return np.zeros((0,) + d.shape, dtype=d.dtype.np)
    return np.stack(rows).astype(d.dtype.np, copy=False)


def _sequence_sparse(key, dt, flist, where):
    rows = [] if flist is None else [ep.feature_values(f, key, dt, where)
                                     for f in flist.feature]
    idx, values, shape = ep._sparse_output(rows, dt, True)
    return idx, values, shape


def parse_sequence(serialized, ctx_dense, ctx_sparse, seq_dense, seq_sparse, name):
    where = f"Name: {name}, " if name else ""
    msg = ep._parse_message(example_pb2.SequenceExample, serialized, 0,
                            [name] if name else None)
    fmap = msg.context.feature
    out = []
    for key, dt in ctx_sparse:
        f = fmap.get(key)
        rows = [np.zeros(0, dt.np) if f is None else ep.feature_values(f, key, dt, where)]
        out.extend(ep._sparse_output(rows, dt, False))
    for d in ctx_dense:
        out.append(ep._dense_output(d, [ep._dense_value(d, fmap, where)], 1, False))
    lists = msg.feature_lists.feature_list
    for key, dt in seq_sparse:
        out.extend(_sequence_sparse(key, dt, lists.get(key), where))
    for d in seq_dense:
        out.append(_sequence_dense(d, lists.get(d.key), where))
    return out


def _kernel(op, ctx):
    a = op.attrs

    def run(serialized, *name):
        nm = np.asarray(name[0], object)[()] if name else None
        nm = nm.decode() if isinstance(nm, bytes) else nm
        out = parse_sequence(np.asarray(serialized, object)[()], a["ctx_dense"],
                             a["ctx_sparse"], a["seq_dense"], a["seq_sparse"], nm)
        return out[0] if len(out) == 1 else tuple(out)
    return run


OPS.define("ParseSingleSequenceExample", kernel=_kernel, grad=NOT_DIFFERENTIABLE)


def parse_single_sequence_example(serialized, context_features=None,
                                  sequence_features=None, example_name=None, name=None):
    """``tf.io.parse_single_sequence_example``: returns ``(context, sequences)`` dicts."""
    what = "parse_single_sequence_example"
    ctx_dense, ctx_sparse = ep._split_specs(context_features or {}, what)
    seq_dense, seq_sparse = ep._split_specs(sequence_features or {}, what)
    for d in seq_dense:
        if not d.sequence:
            raise ValueError(f"{what}: sequence feature {d.key!r} must be a "
                             "FixedLenSequenceFeature or VarLenFeature")
    serialized = convert_to_tensor(serialized)
    if serialized.dtype != dtypes.string:
        raise TypeError(f"{what}: `serialized` must be a tf.string tensor, got "
                        f"{serialized.dtype.name}")
    specs = []
    for _, dt in ctx_sparse:
        specs += [(dtypes.int64, TensorShape([None, 1])), (dt, TensorShape([None])),
                  (dtypes.int64, TensorShape([1]))]
    for d in ctx_dense:
        specs.append((d.dtype, TensorShape(list(d.shape))))
    for _, dt in seq_sparse:
        specs += [(dtypes.int64, TensorShape([None, 2])), (dt, TensorShape([None])),
                  (dtypes.int64, TensorShape([2]))]
    for d in seq_dense:
        specs.append((d.dtype, TensorShape([None] + list(d.shape))))
    inputs = [serialized]
    if example_name is not None:
        inputs.append(convert_to_tensor(example_name, dtype=dtypes.string))
    op = make_op("ParseSingleSequenceExample", inputs, specs,
                 {"ctx_dense": ctx_dense, "ctx_sparse": ctx_sparse, "seq_dense": seq_dense,
                  "seq_sparse": seq_sparse}, name=name or "ParseSingleSequenceExample")
    outs = iter(op.outputs)
    context, sequences = {}, {}
    for key, _ in ctx_sparse:
        context[key] = SparseTensor(next(outs), next(outs), next(outs))
    for d in ctx_dense:
        context[d.key] = next(outs)
    for key, _ in seq_sparse:
        sequences[key] = SparseTensor(next(outs), next(outs), next(outs))
    for d in seq_dense:
        sequences[d.key] = next(outs)
    return context, sequences


__all__ = ["parse_single_sequence_example"]
