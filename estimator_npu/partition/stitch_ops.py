"""``DynamicPartition`` and ``DynamicStitch`` (``ParallelDynamicStitch`` is the same op
here: one thread writes the values in order, so later indices win, as in TF's serial op).

* ``dynamic_partition(data, partitions, n)[i] = data[partitions == i]`` in order, where
  ``partitions`` (int32, values in ``[0, n)``) has the shape of a prefix of ``data``'s.
* ``dynamic_stitch(indices, data)[indices[m][j]] = data[m][j]``, of ``max(index) + 1``
  rows (rows no index names are zero).

Gradients: a partition's gradient stitches the output gradients back to their original
positions (zeros for outputs without one); a stitch's gradient gathers the output
gradient at each ``indices[m]``, as TF's.
"""
import numpy as np

from estimator_npu import errors
from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops
from estimator_npu.engine.ops.core import convert_to_tensor, make_op
from estimator_npu.engine.registry import OpFamily
from estimator_npu.engine.shape import TensorShape

OPS = OpFamily(__name__)  # this family's op definitions (data)


def _int32(t, what, op_name):
    t = convert_to_tensor(t)
    if t.dtype != dtypes.int32:
        if not t.dtype.is_integer:
            raise TypeError(f"{op_name}: {what} must be int32, got {t.dtype.name} ({t.name})")
        from estimator_npu.engine.ops import math_ops
        t = math_ops.cast(t, dtypes.int32)
    return t


def dynamic_partition(data, partitions, num_partitions, name=None):
    """``num_partitions`` tensors: the slices of ``data`` whose ``partitions`` is ``i``."""
    d = convert_to_tensor(data)
    p = convert_to_tensor(partitions)
    if p.dtype != dtypes.int32:
        raise TypeError(f"Value passed to parameter 'partitions' has DataType "
                        f"{p.dtype.name} not in list of allowed values: int32")
    n = int(num_partitions)
    if n < 1:
        raise ValueError(f"dynamic_partition: num_partitions must be at least 1, got {n}")
    dv, pv = d.shape.values, p.shape.values
    shape = TensorShape(None)
    if dv is not None and pv is not None:
        if len(pv) > len(dv) or any(a is not None and b is not None and a != b
                                    for a, b in zip(pv, dv)):
            raise ValueError(f"Dimensions must be equal, but are {list(dv)} and {list(pv)} "
                             f"for '{name or 'DynamicPartition'}' (op: 'DynamicPartition'): "
                             f"partitions' shape must be a prefix of data's shape")
        shape = TensorShape([None] + list(dv[len(pv):]))
    op = make_op("DynamicPartition", [d, p], [(d.dtype, shape)] * n,
                 {"num_partitions": n}, name=name)
    return list(op.outputs)


def _partition_kernel(op, ctx):
    n = op.attrs["num_partitions"]

    def run(data, parts):
        parts = np.asarray(parts)
        if parts.shape != data.shape[:parts.ndim]:
            raise errors.InvalidArgumentError(
                None, op, f"data.shape must start with partitions.shape, got data.shape = "
                f"{list(data.shape)}, partitions.shape = {list(parts.shape)}")
        bad = (parts < 0) | (parts >= n)
        if bad.any():
            i = int(np.flatnonzero(bad.reshape(-1))[0])
            raise errors.InvalidArgumentError(
                None, op, f"partitions[{i}] = {int(parts.reshape(-1)[i])} is not in "
                f"[0, {n})")
        flat_p = parts.reshape(-1)
        flat_d = data.reshape((flat_p.size,) + data.shape[parts.ndim:])
        order = np.argsort(flat_p, kind="stable")
        counts = np.bincount(flat_p, minlength=n)
        return tuple(np.split(flat_d[order], np.cumsum(counts)[:-1]))
    return run


def _partition_grad(op, *grads):
    data, parts = op.inputs
    n = op.attrs["num_partitions"]
    positions = array_ops.reshape(array_ops.range(array_ops.size(parts)),
                                  array_ops.shape(parts))
    where = dynamic_partition(positions, parts, n)
    grads = [g if g is not None else array_ops.zeros_like(out)
             for g, out in zip(grads, op.outputs)]
    # every position is in exactly one partition: the stitch has one row per position
    return [array_ops.reshape(dynamic_stitch(where, grads), array_ops.shape(data)), None]


OPS.define("DynamicPartition", kernel=_partition_kernel, grad=_partition_grad)


def dynamic_stitch(indices, data, name=None):
    """One tensor interleaving ``data[m]`` at the rows ``indices[m]``."""
    if not isinstance(indices, (list, tuple)) or not isinstance(data, (list, tuple)):
        raise TypeError("dynamic_stitch: indices and data must be lists of tensors")
    if len(indices) != len(data) or not indices:
        raise ValueError(f"dynamic_stitch: indices and data must be non-empty lists of the "
                         f"same length, got {len(indices)} and {len(data)}")
    idx = [_int32(i, "indices", "dynamic_stitch") for i in indices]
    ds = [convert_to_tensor(d) for d in data]
    dt = ds[0].dtype
    for d in ds[1:]:
        if d.dtype != dt:
            raise TypeError(f"dynamic_stitch: data must have one dtype, got {dt.name} and "
                            f"{d.dtype.name}")
    inner = None
    for i, d in zip(idx, ds):
        if i.shape.ndims is None or d.shape.ndims is None:
            continue
        if d.shape.ndims < i.shape.ndims or not TensorShape(
                d.shape.values[:i.shape.ndims]).is_compatible_with(i.shape):
            raise ValueError(f"dynamic_stitch: data shape {d.shape} must start with the "
                             f"indices' shape {i.shape}")
        rest = TensorShape(d.shape.values[i.shape.ndims:])
        inner = rest if inner is None else inner.merge_with(rest)
    rows = None
    statics = [i.op.attrs["value"] for i in idx if i.op.type == "Const"]
    if len(statics) == len(idx):
        rows = int(max((int(np.max(v)) for v in statics if np.size(v)), default=-1)) + 1
    shape = TensorShape(None) if inner is None or inner.ndims is None else \
        TensorShape([rows] + list(inner.values))
    return make_op("DynamicStitch", idx + ds, [(dt, shape)], {"n": len(idx)},
                   name=name).outputs[0]


parallel_dynamic_stitch = dynamic_stitch


def _stitch_kernel(op, ctx):
    n = op.attrs["n"]

    def run(*args):
        idx, data = args[:n], args[n:]
        rows = max((int(np.max(i)) for i in idx if np.size(i)), default=-1) + 1
        first = next((d for i, d in zip(idx, data)), data[0])
        inner = first.shape[np.ndim(idx[0]):]
        out = np.zeros((rows,) + inner, dtype=first.dtype)
        for m, (i, d) in enumerate(zip(idx, data)):
            i = np.asarray(i)
            if d.shape[:i.ndim] != i.shape or d.shape[i.ndim:] != inner:
                raise errors.InvalidArgumentError(
                    None, op, f"data[{m}].shape = {list(d.shape)} does not start with "
                    f"indices[{m}].shape = {list(i.shape)} followed by {list(inner)}")
            if i.size and i.min() < 0:
                raise errors.InvalidArgumentError(
                    None, op, f"indices[{m}] holds the negative index {int(i.min())}")
            out[i.reshape(-1)] = d.reshape((i.size,) + inner)
        return out
    return run


def _stitch_grad(op, dy):
    n = op.attrs["n"]
    return [None] * n + [array_ops.gather(dy, i) for i in op.inputs[:n]]


OPS.define("DynamicStitch", kernel=_stitch_kernel, grad=_stitch_grad)
