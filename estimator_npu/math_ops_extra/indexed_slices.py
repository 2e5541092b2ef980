"""``tf.IndexedSlices``: the rows ``values`` of a dense tensor of shape ``dense_shape`` at
``indices`` (a sparse gradient in TF). Our ``tf.gradients`` always returns dense tensors
(gathered rows are updated sparsely inside the optimizer instead), so no gradient is one
and ``isinstance(g, tf.IndexedSlices)`` is false, as tf_cnn_benchmarks checks; scripts
may still build one. Where a tensor is expected it becomes the dense tensor TF makes,
``unsorted_segment_sum(values, indices, dense_shape[0])`` (repeated rows summed)."""
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.engine.ops.scatter_ops import unsorted_segment_sum


class IndexedSlices:
    """``IndexedSlices(values, indices, dense_shape=None)``."""

    def __init__(self, values, indices, dense_shape=None):
        self._values = convert_to_tensor(values)
        self._indices = convert_to_tensor(indices)
        if not self._indices.dtype.is_integer:
            raise TypeError(f"IndexedSlices: indices must be integers, got "
                            f"{self._indices.dtype.name}")
        self._dense_shape = None if dense_shape is None else convert_to_tensor(dense_shape)

    values = property(lambda self: self._values, doc="The rows, ``[len(indices), ...]``.")
    indices = property(lambda self: self._indices, doc="The row of each slice.")
    dense_shape = property(lambda self: self._dense_shape,
                           doc="The dense tensor's shape (a 1-D tensor), or None.")
    dtype = property(lambda self: self._values.dtype)
    name = property(lambda self: self._values.name)
    op = property(lambda self: self._values.op)
    graph = property(lambda self: self._values.graph)
    device = property(lambda self: self._values.device)

    def _as_tensor(self):
        if self._dense_shape is None:
            raise ValueError("Tensor conversion requested for IndexedSlices without "
                             f"dense_shape: {self!r}")
        return unsorted_segment_sum(self._values, self._indices, self._dense_shape[0])

    def __repr__(self):
        shape = "None" if self._dense_shape is None else self._dense_shape.name
        return (f"IndexedSlices(indices={self._indices.name}, values={self._values.name}, "
                f"dense_shape={shape})")


__all__ = ["IndexedSlices"]
