"""A minimal ``SparseTensor`` for the data layer (``VarLenFeature`` and ``string_split``
results), and ``sparse_tensor_to_dense``.

A ``SparseTensor`` is a namedtuple of three tensors, so the session fetches it (as a
``SparseTensorValue`` of arrays) and datasets carry it as three components::

    sp = SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[2, 3])
    dense = sparse_tensor_to_dense(sp)     # [[1, 0, 0], [0, 0, 2]]
"""
import collections

import numpy as np

from estimator_npu import errors
from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import Tensor
from estimator_npu.engine.ops.core import convert_to_tensor, make_tensor
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, register
from estimator_npu.engine.shape import TensorShape

SparseTensorValue = collections.namedtuple("SparseTensorValue",
                                           ["indices", "values", "dense_shape"])


class SparseTensor(collections.namedtuple("SparseTensor",
                                          ["indices", "values", "dense_shape"])):
    """``tf.SparseTensor(indices, values, dense_shape)``: int64 ``indices`` [nnz, rank],
    ``values`` [nnz], int64 ``dense_shape`` [rank]. Built from arrays (as the session and
    datasets rebuild fetched structures), it is a ``SparseTensorValue``."""

    def __new__(cls, indices, values, dense_shape):
        parts = (indices, values, dense_shape)
        tensors = any(isinstance(v, Tensor) or hasattr(v, "_as_tensor") for v in parts)
        if not tensors and any(isinstance(v, np.ndarray) for v in parts):
            return SparseTensorValue(indices, values, dense_shape)
        if not tensors and not any(isinstance(v, (list, tuple, int, float, bytes, str))
                                   for v in parts):
            # A structure template (nest and datasets rebuild it with placeholders).
            return super().__new__(cls, indices, values, dense_shape)
        indices = convert_to_tensor(indices, dtype=None if isinstance(indices, Tensor)
                                    else dtypes.int64)
        values = convert_to_tensor(values)
        dense_shape = convert_to_tensor(dense_shape, dtype=None if isinstance(
            dense_shape, Tensor) else dtypes.int64)
        return super().__new__(cls, indices, values, dense_shape)

    @property
    def dtype(self):
        return self.values.dtype

    @property
    def graph(self):
        return self.values.graph

    @property
    def op(self):
        return self.values.op

    @property
    def shape(self):
        dims = self.dense_shape.shape.dims
        return TensorShape(None if dims is None or dims[0] is None else [None] * dims[0])

    def get_shape(self):
        return self.shape


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
    if not isinstance(sp_input, SparseTensor):
        raise TypeError(f"sp_input must be a SparseTensor, got {type(sp_input).__name__}")
    dt = sp_input.dtype
    if default_value is None:
        default_value = b"" if dt == dtypes.string else 0
    rank = sp_input.dense_shape.shape.dims
    shape = TensorShape(None if rank is None or rank[0] is None else [None] * rank[0])
    return make_tensor("SparseToDense", [sp_input.indices, sp_input.values,
                                         sp_input.dense_shape], dt, shape,
                       {"default": default_value}, name=name or "SparseToDense")


register("SparseToDense",
         kernel=lambda op, ctx: (lambda i, v, s: _to_dense(i, v, s, op.attrs["default"])),
         grad=NOT_DIFFERENTIABLE)

__all__ = ["SparseTensor", "SparseTensorValue", "sparse_tensor_to_dense"]
