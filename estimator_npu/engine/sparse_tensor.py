"""``tf.SparseTensor``: ``indices`` ``[nnz, rank]`` int64, ``values`` ``[nnz]`` and
``dense_shape`` ``[rank]`` int64, as three tensors (ops that take one read them).

A ``SparseTensor`` is a namedtuple of its three tensors, so the session fetches it (as a
``SparseTensorValue`` of arrays) and datasets carry it as three components; built from
lists or numpy arrays its parts are constants (TF's graph mode; feed a
``SparseTensorValue``)::

    sp = tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[2, 3])
"""
import collections

import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.constant_value import constant_value
from estimator_npu.engine.graph import Tensor
from estimator_npu.engine.ops import math_ops
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.engine.shape import TensorShape

SparseTensorValue = collections.namedtuple("SparseTensorValue",
                                           ["indices", "values", "dense_shape"])


def _int64(value):
    t = convert_to_tensor(value, preferred_dtype=dtypes.int64)
    return t if t.dtype == dtypes.int64 else math_ops.cast(t, dtypes.int64)


class SparseTensor(collections.namedtuple("SparseTensor",
                                          ["indices", "values", "dense_shape"])):
    """``tf.SparseTensor(indices, values, dense_shape)``."""

    def __new__(cls, indices, values, dense_shape):
        parts = (indices, values, dense_shape)
        tensors = any(isinstance(v, Tensor) or hasattr(v, "_as_tensor") for v in parts)
        if not tensors and not any(isinstance(v, (list, tuple, int, float, bytes, str,
                                                  np.ndarray, np.generic)) for v in parts):
            # A structure template (nest and datasets rebuild it with placeholders).
            return super().__new__(cls, indices, values, dense_shape)
        return super().__new__(cls, _int64(indices), convert_to_tensor(values),
                               _int64(dense_shape))

    @classmethod
    def from_value(cls, value):
        """A ``SparseTensor`` of ``value`` (a ``SparseTensor`` or ``SparseTensorValue``)."""
        if isinstance(value, SparseTensor):
            return value
        return super().__new__(cls, _int64(value.indices), convert_to_tensor(value.values),
                               _int64(value.dense_shape))

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
        if self.dense_shape.op.type == "Const":  # a constant dense_shape is the static shape
            return TensorShape([int(d) for d in self.dense_shape.op.attrs["value"]])
        value = constant_value(self.dense_shape)  # computed from constants only (TF folds it)
        if value is not None:
            return TensorShape([int(d) for d in value])
        dims = self.dense_shape.shape.values
        return TensorShape(None if dims is None or dims[0] is None else [None] * dims[0])

    def get_shape(self):
        return self.shape

    def _cwise(self, other, fn):
        """TF's sparse-dense cwise ops: ``other`` broadcast to the dense shape and read at
        the indices; the result keeps the indices (tkipf/gcn's ``sp * (1. / keep_prob)``)."""
        from estimator_npu.engine.ops import array_ops, scatter_ops
        d = convert_to_tensor(other, dtype=self.values.dtype)
        if d.shape.ndims != 0:   # index 0 on the dense side's size-1 (broadcast) axes
            for _ in range((self.indices.shape.values[1] or 0) - (d.shape.ndims or 0)):
                d = array_ops.expand_dims(d, 0)
            keep = math_ops.minimum(array_ops.shape(d, out_type=dtypes.int64) - 1, 1)
            d = scatter_ops.gather_nd(d, self.indices * keep)
        return SparseTensor(self.indices, fn(self.values, d), self.dense_shape)

    def __mul__(self, other):
        return self._cwise(other, math_ops.multiply)

    def __truediv__(self, other):
        return self._cwise(other, math_ops.divide)
    __div__ = __truediv__


def as_fetch_structure(fetches):
    """``fetches`` with each ``SparseTensor`` replaced by a ``SparseTensorValue`` of its
    tensors, so the fetched structure is rebuilt as TF's (values, not constants)."""
    if isinstance(fetches, SparseTensor):
        return SparseTensorValue(*fetches)
    if isinstance(fetches, dict):
        return type(fetches)((k, as_fetch_structure(v)) for k, v in fetches.items()) \
            if any(isinstance(v, (SparseTensor, list, tuple, dict)) for v in fetches.values()) \
            else fetches
    if isinstance(fetches, (list, tuple)) and not hasattr(fetches, "_fields") and \
            any(isinstance(v, (SparseTensor, list, tuple, dict)) for v in fetches):
        return type(fetches)(as_fetch_structure(v) for v in fetches)
    return fetches
