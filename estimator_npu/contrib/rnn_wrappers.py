"""``tf.contrib.rnn.EmbeddingWrapper`` and ``OutputProjectionWrapper``: TF1's cell wrappers
that embed integer inputs before a cell and project a cell's outputs after it. Each has its
own variable scope (``embedding_wrapper``, ``output_projection_wrapper``) around the wrapped
cell, so the variable names are TF1's (``.../embedding_wrapper/embedding``,
``.../output_projection_wrapper/{kernel,bias}``, the inner cell's inside them)."""
import math

from estimator_npu.engine import dtypes, init_ops
from estimator_npu.engine.graph import get_default_graph
from estimator_npu.engine.ops import array_ops, math_ops, nn_ops
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.engine.variable_scope import variable_scope
from estimator_npu.partition.embedding import embedding_lookup
from estimator_npu.rnn.cells import RNNCell, _Wrapper
from estimator_npu.utils import nest


def _positive(value, what, cls):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{cls}: {what} must be a positive integer, got {value!r}")
    return value


class _ScopedWrapper(_Wrapper):
    """A wrapper that makes its variables in its own scope on the first call."""

    def __init__(self, cell, reuse=None):
        if not isinstance(cell, RNNCell):
            raise TypeError(f"{type(self).__name__}: cell must be an RNNCell, got "
                            f"{type(cell).__name__}")
        RNNCell.__init__(self, reuse=reuse)
        self._cell = cell

    def __call__(self, inputs, state, scope=None):
        if self._scope is None:
            with variable_scope(scope, default_name=self._default_name,
                                reuse=self._reuse) as vs:
                self._scope = vs
                return self.call(inputs, state)
        with get_default_graph().name_scope(self._scope.name.rsplit("/", 1)[-1]):
            return self.call(inputs, state)


class EmbeddingWrapper(_ScopedWrapper):
    """Looks integer ``inputs`` (``[batch]`` or ``[batch, 1]``) up in an ``embedding``
    variable ``[embedding_classes, embedding_size]`` (uniform in +-sqrt(3) unless
    ``initializer``), then runs ``cell`` on the embeddings."""

    _default_name = "embedding_wrapper"

    def __init__(self, cell, embedding_classes, embedding_size, initializer=None, reuse=None):
        super().__init__(cell, reuse=reuse)
        self._classes = _positive(embedding_classes, "embedding_classes", "EmbeddingWrapper")
        self._size = _positive(embedding_size, "embedding_size", "EmbeddingWrapper")
        self._initializer = initializer
        self._embedding = None

    def call(self, inputs, state):
        if self._embedding is None:
            first = convert_to_tensor(nest.flatten(state)[0])
            dt = first.dtype if first.dtype.is_floating else dtypes.float32
            init = self._initializer or init_ops.random_uniform_initializer(
                -math.sqrt(3), math.sqrt(3))
            self._embedding = self._variable("embedding", [self._classes, self._size], dt,
                                             init)
        ids = convert_to_tensor(inputs)
        if not ids.dtype.is_integer:
            raise TypeError(f"EmbeddingWrapper: inputs must be integer ids, got {ids}")
        embedded = embedding_lookup(self._embedding, array_ops.reshape(ids, [-1]))
        return self._cell(embedded, state)


class OutputProjectionWrapper(_ScopedWrapper):
    """Runs ``cell``, then ``output @ kernel + bias`` (``[cell output, output_size]``;
    bias zeros), then ``activation`` if given."""

    _default_name = "output_projection_wrapper"

    def __init__(self, cell, output_size, activation=None, reuse=None):
        super().__init__(cell, reuse=reuse)
        self._size = _positive(output_size, "output_size", "OutputProjectionWrapper")
        self._proj_activation = activation
        self._kernel = None

    @property
    def output_size(self):
        return self._size

    def call(self, inputs, state):
        output, new_state = self._cell(inputs, state)
        if self._kernel is None:
            depth = output.shape.values[-1] if output.shape.ndims else None
            if depth is None:
                raise ValueError(f"OutputProjectionWrapper: the last dimension of the cell's "
                                 f"output ({output}) must be known")
            self._kernel = self._variable("kernel", [depth, self._size], output.dtype)
            self._bias = self._variable("bias", [self._size], output.dtype,
                                        init_ops.zeros_initializer())
        projected = nn_ops.bias_add(math_ops.matmul(output, self._kernel), self._bias)
        if self._proj_activation is not None:
            projected = self._proj_activation(projected)
        return projected, new_state


__all__ = ["EmbeddingWrapper", "OutputProjectionWrapper"]
