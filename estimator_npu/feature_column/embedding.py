"""Dense columns over categorical ones: ``indicator_column``, ``embedding_column`` and
``shared_embedding_columns``, and the masked embedding combiner they and ``linear_model``
share (ids ``-1`` contribute nothing; a row without ids gives zeros)."""
import math

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops, math_ops, slice_ops
from estimator_npu.feature_column.columns import DenseColumn


class IndicatorColumn(DenseColumn):
    def __init__(self, categorical_column):
        self.categorical_column = categorical_column
        self.name = categorical_column.name + "_indicator"
        self.num_elements = categorical_column.num_buckets

    @property
    def parse_spec(self):
        return self.categorical_column.parse_spec

    def dense(self, features, cache, trainable=True):
        ids, w = self.categorical_column.ids(features, cache)
        oh = array_ops.one_hot(ids, self.num_elements, dtype=dtypes.float32)  # -1 -> zeros
        if w is not None:
            oh = oh * array_ops.expand_dims(w, -1)
        return math_ops.reduce_sum(oh, axis=1)


def embed(weights, ids, w, combiner, max_norm=None):
    """Combines the rows of ``weights`` picked by ``ids`` ``[batch, n]`` (-1 ignored)."""
    valid = math_ops.cast(math_ops.greater_equal(ids, 0), dtypes.float32)
    if w is not None:
        valid = valid * w
    rows = slice_ops.gather(weights, math_ops.maximum(ids, 0))
    if max_norm is not None:
        from estimator_npu.engine.ops.clip_ops import clip_by_norm
        rows = clip_by_norm(rows, max_norm, axes=[-1])
    summed = math_ops.reduce_sum(rows * array_ops.expand_dims(valid, -1), axis=1)
    if combiner == "sum":
        return summed
    from estimator_npu.engine.ops.math_extra_ops import div_no_nan
    if combiner == "mean":
        den = math_ops.reduce_sum(valid, axis=1, keepdims=True)
    elif combiner == "sqrtn":
        den = math_ops.sqrt(math_ops.reduce_sum(valid * valid, axis=1, keepdims=True))
    else:
        raise ValueError(f"combiner must be 'mean', 'sqrtn' or 'sum', got {combiner!r}")
    return div_no_nan(summed, den)


def _default_embedding_init(dimension):
    from estimator_npu.engine.init_ops import truncated_normal_initializer
    return truncated_normal_initializer(mean=0.0, stddev=1.0 / math.sqrt(dimension))


class EmbeddingColumn(DenseColumn):
    def __init__(self, categorical_column, dimension, combiner, initializer, ckpt_to_load_from,
                 tensor_name_in_ckpt, max_norm, trainable):
        if dimension is None or dimension < 1:
            raise ValueError(f"Invalid dimension {dimension}.")
        if combiner not in ("mean", "sqrtn", "sum"):
            raise ValueError(f"combiner must be 'mean', 'sqrtn' or 'sum', got {combiner!r}")
        if initializer is not None and not callable(initializer):
            raise ValueError("initializer must be callable if specified.")
        self.categorical_column, self.dimension = categorical_column, int(dimension)
        self.combiner, self.max_norm, self.trainable = combiner, max_norm, trainable
        self.initializer = initializer or _default_embedding_init(dimension)
        self.ckpt_to_load_from, self.tensor_name_in_ckpt = ckpt_to_load_from, tensor_name_in_ckpt
        self.name = categorical_column.name + "_embedding"
        self.num_elements = self.dimension

    @property
    def parse_spec(self):
        return self.categorical_column.parse_spec

    def dense(self, features, cache, trainable=True):
        from estimator_npu.engine.variable_scope import get_variable
        ids, w = self.categorical_column.ids(features, cache)
        table = get_variable("embedding_weights",
                             shape=[self.categorical_column.num_buckets, self.dimension],
                             dtype=dtypes.float32, initializer=self.initializer,
                             trainable=self.trainable and trainable)
        return embed(table, ids, w, self.combiner, self.max_norm)




class SharedEmbeddingColumn(EmbeddingColumn):
    def __init__(self, categorical_column, dimension, combiner, initializer, shared_name,
                 ckpt_to_load_from, tensor_name_in_ckpt, max_norm, trainable):
        super().__init__(categorical_column, dimension, combiner, initializer,
                         ckpt_to_load_from, tensor_name_in_ckpt, max_norm, trainable)
        self.shared_embedding_collection_name = shared_name
        self.name = categorical_column.name + "_shared_embedding"
        self.var_scope_name = shared_name

    def dense(self, features, cache, trainable=True):
        from estimator_npu.engine.graph import get_collection, add_to_collection
        from estimator_npu.engine.variable_scope import get_variable
        ids, w = self.categorical_column.ids(features, cache)
        found = get_collection(self.shared_embedding_collection_name)
        if found:
            table = found[0]
        else:
            table = get_variable("embedding_weights",
                                 shape=[self.categorical_column.num_buckets, self.dimension],
                                 dtype=dtypes.float32, initializer=self.initializer,
                                 trainable=self.trainable and trainable)
            add_to_collection(self.shared_embedding_collection_name, table)
        return embed(table, ids, w, self.combiner, self.max_norm)
