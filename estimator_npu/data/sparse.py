"""A minimal ``SparseTensor`` for the data layer (``VarLenFeature`` and ``string_split``
results), and ``sparse_tensor_to_dense``.

``SparseTensor`` (``engine.sparse_tensor``) is a namedtuple of three tensors, so the session fetches it (as a
``SparseTensorValue`` of arrays) and datasets carry it as three components::

    sp = SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[2, 3])
    dense = sparse_tensor_to_dense(sp)     # [[1, 0, 0], [0, 0, 2]]
"""

import numpy as np

from estimator_npu import errors
from estimator_npu.engine import dtypes
from estimator_npu.engine.ops.core import make_tensor
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.shape import TensorShape

from estimator_npu.engine.sparse_tensor import SparseTensor, SparseTensorValue  # noqa: F401

OPS = OpFamily(__name__)  # this family's op definitions (data)


def _to_dense(indices, values, dense_shape, default_value, validate_indices=True):
    shape = tuple(int(d) for d in np.asarray(dense_shape).reshape(-1))
    values = np.asarray(values)
    out = np.full(shape, default_value, dtype=values.dtype)
    idx = np.asarray(indices, dtype=np.int64).reshape(-1, len(shape))
    if len(idx):
        if (idx < 0).any() or (idx >= np.asarray(shape)).any():
            bad = idx[((idx < 0) | (idx >= np.asarray(shape))).any(axis=1)][0]
            raise errors.InvalidArgumentError(
                None, None, f"sparse_tensor_to_dense: index {bad.tolist()} is out of bounds "
                f"for dense_shape {list(shape)}")
        out[tuple(idx.T)] = values if values.ndim else values[()]
    return out


def sparse_tensor_to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """``tf.sparse_tensor_to_dense`` / ``tf.sparse.to_dense``: the dense tensor of
    ``sp_input`` with ``default_value`` (0 or b"") where no value is given."""
    if isinstance(sp_input, SparseTensorValue):
        sp_input = SparseTensor.from_value(sp_input)
    if not isinstance(sp_input, SparseTensor):
        raise TypeError(f"sp_input must be a SparseTensor, got {type(sp_input).__name__}")
    dt = sp_input.dtype
    if default_value is None:
        default_value = b"" if dt == dtypes.string else 0
    shape = sp_input.shape
    return make_tensor("SparseToDense", [sp_input.indices, sp_input.values,
                                         sp_input.dense_shape], dt, shape,
                       {"default": default_value}, name=name or "SparseToDense")


OPS.define("SparseToDense",
           kernel=lambda op, ctx: (lambda i, v, s: _to_dense(i, v, s, op.attrs["default"])),
           grad=NOT_DIFFERENTIABLE)

__all__ = ["SparseTensor", "SparseTensorValue", "sparse_tensor_to_dense", "sparse_to_dense"]


def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0,
                    validate_indices=True, name=None):
    """TF1's ``tf.sparse_to_dense``: ``output_shape`` filled with ``default_value``, with
    ``sparse_values`` (a scalar or one per index) at ``sparse_indices`` (a scalar, a vector
    of positions for a 1-D output, or ``[N, rank]``). Differentiable in the values and the
    default. Indices must be distinct (TF1 rejects repeats when ``validate_indices``); here a
    repeated index sums its values."""
    from estimator_npu.engine.ops import array_ops, math_ops
    from estimator_npu.engine.ops.core import convert_to_tensor
    from estimator_npu.engine.ops.scatter_ops import scatter_nd
    from estimator_npu.engine.graph import Tensor
    if isinstance(output_shape, Tensor):
        shape = output_shape
        rank = shape.shape.values[0] if shape.shape.ndims == 1 else None
        if rank is None:
            raise ValueError(f"sparse_to_dense: output_shape must be a vector of known "
                             f"length, got shape {shape.shape}")
    else:
        if np.ndim(output_shape) != 1:
            raise ValueError(f"sparse_to_dense: output_shape must be rank 1, got "
                             f"{output_shape!r}")
        shape = [int(d) for d in output_shape]
        rank = len(shape)
    values = convert_to_tensor(sparse_values)
    idx = array_ops.reshape(math_ops.cast(convert_to_tensor(sparse_indices), dtypes.int64),
                            [-1, rank])
    ones = array_ops.ones_like(idx[:, 0], dtype=values.dtype)
    values = values * ones                   # a scalar value broadcast to every index
    hit = scatter_nd(idx, ones, shape)
    default = math_ops.cast(convert_to_tensor(default_value), values.dtype)
    return math_ops.add(scatter_nd(idx, values, shape), default * (1 - hit),
                        name=name or "SparseToDense")
