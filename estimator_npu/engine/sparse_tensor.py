"""A minimal ``tf.SparseTensor``: ``indices`` ``[N, rank]`` int64, ``values`` ``[N]`` and
``dense_shape`` ``[rank]`` int64, as three tensors (ops that take one read them)."""
import collections

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import math_ops
from estimator_npu.engine.ops.core import convert_to_tensor

SparseTensorValue = collections.namedtuple("SparseTensorValue",
                                           ["indices", "values", "dense_shape"])


class SparseTensor:
    """``SparseTensor(indices, values, dense_shape)``."""

    def __init__(self, indices, values, dense_shape):
        self.indices = math_ops.cast(convert_to_tensor(indices, preferred_dtype=dtypes.int64),
                                     dtypes.int64)
        self.values = convert_to_tensor(values)
        self.dense_shape = math_ops.cast(
            convert_to_tensor(dense_shape, preferred_dtype=dtypes.int64), dtypes.int64)

    @classmethod
    def from_value(cls, value):
        if isinstance(value, SparseTensor):
            return value
        return cls(value.indices, value.values, value.dense_shape)

    @property
    def dtype(self):
        return self.values.dtype

    @property
    def graph(self):
        return self.values.graph

    def __repr__(self):
        return (f"SparseTensor(indices={self.indices!r}, values={self.values!r}, "
                f"dense_shape={self.dense_shape!r})")
