"""TF1's vocabulary-table builders (``tf.contrib.lookup`` / ``tf.compat.v1`` lookup_ops):
strings -> ids with ``index_table_from_file`` / ``index_table_from_tensor`` and ids ->
strings with ``index_to_string_table_from_file`` / ``_from_tensor``."""
from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.lookup.tables import (KeyValueTensorInitializer, StaticHashTable,
                                         StaticVocabularyTable, TextFileIndex,
                                         TextFileInitializer)


def _check_oov(num_oov_buckets, hasher_spec):
    if num_oov_buckets < 0:
        raise ValueError(f"num_oov_buckets must be >= 0, got {num_oov_buckets}")
    if hasher_spec is not None and type(hasher_spec).__name__ != "HasherSpec" and \
            getattr(hasher_spec, "hasher", "fasthash") != "fasthash":
        raise NotImplementedError("only the default FastHashSpec (Fingerprint64) hasher is "
                                  "supported for the out-of-vocabulary buckets")


def _id_table(initializer, num_oov_buckets, default_value, name):
    if num_oov_buckets:
        return StaticVocabularyTable(initializer, num_oov_buckets, name=name)
    return StaticHashTable(initializer, default_value, name=name)


def index_table_from_file(vocabulary_file=None, num_oov_buckets=0, vocab_size=None,
                          default_value=-1, hasher_spec=None, key_dtype=dtypes.string,
                          name=None, key_column_index=TextFileIndex.WHOLE_LINE,
                          value_column_index=TextFileIndex.LINE_NUMBER, delimiter="\t"):
    """A table mapping each line of ``vocabulary_file`` (by default the whole line) to its
    line number; other keys get ``default_value`` or an out-of-vocabulary bucket."""
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("vocabulary_file must be specified and must not be empty.")
    _check_oov(num_oov_buckets, hasher_spec)
    key_dtype = dtypes.as_dtype(key_dtype)
    file_key_dtype = dtypes.int64 if key_dtype.is_integer else key_dtype
    init = TextFileInitializer(vocabulary_file, file_key_dtype, key_column_index,
                               dtypes.int64, value_column_index, vocab_size=vocab_size,
                               delimiter=delimiter)
    return _id_table(init, num_oov_buckets, default_value, name or "string_to_index")


def index_table_from_tensor(vocabulary_list=None, num_oov_buckets=0, default_value=-1,
                            hasher_spec=None, dtype=dtypes.string, name=None, mapping=None):
    """A table mapping each element of 1-D ``vocabulary_list`` to its position."""
    vocabulary_list = mapping if vocabulary_list is None else vocabulary_list
    if vocabulary_list is None:
        raise ValueError("vocabulary_list must be specified.")
    _check_oov(num_oov_buckets, hasher_spec)
    keys = convert_to_tensor(vocabulary_list, dtype=dtypes.as_dtype(dtype) if not
                             dtypes.as_dtype(dtype).is_integer else None)
    if dtypes.as_dtype(dtype).is_integer and keys.dtype != dtypes.int64:
        keys = math_ops.cast(keys, dtypes.int64)
    ids = array_ops.range(0, array_ops.size(keys, out_type=dtypes.int64), dtype=dtypes.int64) \
        if keys.shape.num_elements() is None else \
        convert_to_tensor(list(range(keys.shape.num_elements())), dtype=dtypes.int64)
    init = KeyValueTensorInitializer(keys, ids, name="table_init")
    return _id_table(init, num_oov_buckets, default_value, name or "string_to_index")


def index_to_string_table_from_file(vocabulary_file, vocab_size=None, default_value="UNK",
                                    name=None, key_column_index=TextFileIndex.LINE_NUMBER,
                                    value_column_index=TextFileIndex.WHOLE_LINE,
                                    delimiter="\t"):
    """A table mapping int64 line numbers to the lines of ``vocabulary_file``."""
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("vocabulary_file must be specified and must not be empty.")
    init = TextFileInitializer(vocabulary_file, dtypes.int64, key_column_index, dtypes.string,
                               value_column_index, vocab_size=vocab_size, delimiter=delimiter)
    return StaticHashTable(init, default_value, name=name or "index_to_string")


def index_to_string_table_from_tensor(vocabulary_list, default_value="UNK", name=None,
                                      mapping=None):
    """A table mapping int64 positions to the strings of 1-D ``vocabulary_list``."""
    vocabulary_list = mapping if vocabulary_list is None else vocabulary_list
    if vocabulary_list is None:
        raise ValueError("vocabulary_list must be specified.")
    values = convert_to_tensor(vocabulary_list, dtype=dtypes.string)
    n = values.shape.num_elements()
    keys = array_ops.range(0, array_ops.size(values, out_type=dtypes.int64),
                           dtype=dtypes.int64) if n is None else \
        convert_to_tensor(list(range(n)), dtype=dtypes.int64)
    init = KeyValueTensorInitializer(keys, values, name="table_init")
    return StaticHashTable(init, default_value, name=name or "index_to_string")


def index_to_string(tensor, mapping, default_value="UNK", name=None):
    """``index_to_string_table_from_tensor(mapping).lookup(tensor)`` (deprecated TF1 name)."""
    table = index_to_string_table_from_tensor(mapping, default_value=default_value)
    return table.lookup(math_ops.cast(tensor, dtypes.int64), name=name)


def string_to_index(tensor, mapping, default_value=-1, name=None):
    """``index_table_from_tensor(mapping).lookup(tensor)`` (deprecated TF1 name)."""
    table = index_table_from_tensor(mapping, default_value=default_value)
    return table.lookup(tensor, name=name)
