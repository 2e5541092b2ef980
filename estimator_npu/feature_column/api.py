"""``tf.feature_column`` constructors and ``input_layer`` / ``linear_model`` (TF1)."""
from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.variable_scope import get_variable, variable_scope
from estimator_npu.feature_column import columns as C
from estimator_npu.feature_column import embedding as E


def numeric_column(key, shape=(1,), default_value=None, dtype=dtypes.float32,
                   normalizer_fn=None):
    if isinstance(shape, int):
        shape = (shape,)
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    dt = dtypes.as_dtype(dtype)
    if not (dt.is_floating or dt.is_integer):
        raise ValueError(f"dtype must be convertible to float. dtype: {dt.name}, key: {key}")
    return C.NumericColumn(key, shape, default_value, dt, normalizer_fn)


def bucketized_column(source_column, boundaries):
    return C.BucketizedColumn(source_column, boundaries)


def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None,
                                            default_value=-1, num_oov_buckets=0):
    if not vocabulary_list:
        raise ValueError(f"vocabulary_list {vocabulary_list!r} must be non-empty, "
                         f"column_name: {key}")
    return C.VocabularyColumn(key, vocabulary_list, dtype, default_value, num_oov_buckets)


def categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None,
                                            num_oov_buckets=0, default_value=None,
                                            dtype=dtypes.string):
    words = C.read_vocabulary_file(vocabulary_file, vocabulary_size)
    if dtypes.as_dtype(dtype).is_integer:
        words = [int(w) for w in words]
    col = C.VocabularyColumn(key, words, dtype, default_value, num_oov_buckets)
    col.vocabulary_file = vocabulary_file
    return col


def categorical_column_with_identity(key, num_buckets, default_value=None):
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and not 0 <= default_value < num_buckets:
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), "
                         f"column_name {key}")
    return C.IdentityColumn(key, num_buckets, default_value)


def categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    return C.HashBucketColumn(key, hash_bucket_size, dtype)


def crossed_column(keys, hash_bucket_size, hash_key=None):
    if hash_bucket_size is None or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    return C.CrossedColumn(keys, hash_bucket_size, hash_key)


def indicator_column(categorical_column):
    return E.IndicatorColumn(categorical_column)


def weighted_categorical_column(categorical_column, weight_feature_key, dtype=dtypes.float32):
    return C.WeightedColumn(categorical_column, weight_feature_key, dtype)


def embedding_column(categorical_column, dimension, combiner="mean", initializer=None,
                     ckpt_to_load_from=None, tensor_name_in_ckpt=None, max_norm=None,
                     trainable=True):
    return E.EmbeddingColumn(categorical_column, dimension, combiner, initializer,
                             ckpt_to_load_from, tensor_name_in_ckpt, max_norm, trainable)


def shared_embedding_columns(categorical_columns, dimension, combiner="mean",
                             initializer=None, shared_embedding_collection_name=None,
                             ckpt_to_load_from=None, tensor_name_in_ckpt=None, max_norm=None,
                             trainable=True):
    cats = list(categorical_columns)
    sizes = {c.num_buckets for c in cats}
    if len(sizes) > 1:
        raise ValueError(f"To use shared_embedding_column, all categorical_columns must have "
                         f"the same number of buckets, got {[c.num_buckets for c in cats]}")
    name = shared_embedding_collection_name or (
        "_".join(sorted(c.name for c in cats)) + "_shared_embedding")
    init = initializer or E._default_embedding_init(dimension)
    return [E.SharedEmbeddingColumn(c, dimension, combiner, init, name, ckpt_to_load_from,
                                    tensor_name_in_ckpt, max_norm, trainable) for c in cats]


def _scope_name(col):
    return getattr(col, "var_scope_name", col.name)


def _check(feature_columns, dense_only):
    cols = list(feature_columns) if not isinstance(feature_columns, C.FeatureColumn) \
        else [feature_columns]
    if not cols:
        raise ValueError("feature_columns must not be empty.")
    for c in cols:
        if not isinstance(c, C.FeatureColumn):
            raise ValueError(f"Items of feature_columns must be a feature column, got {c!r}")
        if dense_only and not isinstance(c, C.DenseColumn):
            raise ValueError(f"Items of feature_columns must be a dense column (numeric, "
                             f"bucketized, indicator or embedding); given {c!r}. Wrap "
                             f"categorical columns with indicator_column or embedding_column.")
    return sorted(cols, key=lambda c: c.name)


def _static_batch(features, col):
    """The static batch size of the (dense) raw features ``col`` reads, else None."""
    try:
        keys = list(col.parse_spec)
    except Exception:  # noqa: BLE001 - a column without a parse spec: no static batch
        return None
    for key in keys:
        v = features.get(key) if hasattr(features, "get") else None
        shape = getattr(v, "shape", None)
        dims = getattr(shape, "values", None) if shape is not None and not isinstance(
            shape, tuple) else shape
        if dims and dims[0] is not None and not hasattr(v, "dense_shape"):
            return int(dims[0])
    return None


def input_layer(features, feature_columns, weight_collections=None, trainable=True,
                cols_to_vars=None, cols_to_output_tensors=None):
    """The dense ``[batch, sum of num_elements]`` float32 input of the columns, in name order."""
    cols = _check(feature_columns, dense_only=True)
    cache = {}
    outs = []
    with variable_scope(None, default_name="input_layer"):
        for col in cols:
            with variable_scope(None, default_name=_scope_name(col)):
                t = col.dense(features, cache, trainable=trainable)
                t = array_ops.reshape(t, [-1, col.num_elements])
                batch = _static_batch(features, col)
                if t.shape.values[0] is None and batch is not None:
                    t.set_shape([batch, col.num_elements])  # as TF's shape inference keeps it
                if cols_to_output_tensors is not None:
                    cols_to_output_tensors[col] = t
                outs.append(t)
        return array_ops.concat(outs, axis=1)


def linear_model(features, feature_columns, units=1, sparse_combiner="sum",
                 weight_collections=None, trainable=True, cols_to_vars=None):
    """``sum_i column_i @ weights_i + bias``: ``linear_model/<col>/weights``, ``bias_weights``."""
    from estimator_npu.engine.init_ops import zeros_initializer
    cols = _check(feature_columns, dense_only=False)
    cache = {}
    parts = []
    with variable_scope(None, default_name="linear_model"):
        for col in cols:
            with variable_scope(None, default_name=_scope_name(col)):
                if isinstance(col, C.CategoricalColumn) and not isinstance(col, C.DenseColumn) \
                        or isinstance(col, C.BucketizedColumn):
                    w = get_variable("weights", shape=[col.num_buckets, units],
                                     dtype=dtypes.float32, initializer=zeros_initializer(),
                                     trainable=trainable)
                    ids, cw = col.ids(features, cache)
                    parts.append(E.embed(w, ids, cw, sparse_combiner))
                else:
                    x = col.dense(features, cache, trainable=trainable)
                    w = get_variable("weights", shape=[col.num_elements, units],
                                     dtype=dtypes.float32, initializer=zeros_initializer(),
                                     trainable=trainable)
                    parts.append(math_ops.matmul(x, w))
                if cols_to_vars is not None:
                    cols_to_vars[col] = [w]
        bias = get_variable("bias_weights", shape=[units], dtype=dtypes.float32,
                            initializer=zeros_initializer(), trainable=trainable)
        if cols_to_vars is not None:
            cols_to_vars["bias"] = [bias]
        return math_ops.add_n(parts) + bias if len(parts) > 1 else parts[0] + bias
