"""Lookup tables (``tf.lookup``): ``StaticHashTable`` / TF1's ``HashTable`` and
``StaticVocabularyTable`` (out-of-vocabulary keys hashed into extra buckets with TF's
Fingerprint64), filled by a ``KeyValueTensorInitializer`` or ``TextFileInitializer``.

A table's contents live in the session (a per-session resource, keyed by the table's
graph-unique name), as TF's: each new session starts with uninitialized tables and
``tf.tables_initializer()`` (in the ``TABLE_INITIALIZERS`` collection, run by the
Scaffold's ``local_init_op``) fills them; a lookup before that is a
``FailedPreconditionError`` ("Table not initialized.")."""
import numpy as np

from estimator_npu import errors
from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import GraphKeys, add_to_collection, get_default_graph
from estimator_npu.engine.ops.core import convert_to_tensor, group, make_op, make_tensor
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.sparse_tensor import SparseTensor
from estimator_npu.feature_column.fingerprint import hash_bucket

OPS = OpFamily(__name__)  # this family's op definitions (data)


class TextFileIndex:
    """Special column indices of ``TextFileInitializer``."""
    WHOLE_LINE = -2
    LINE_NUMBER = -1


def _norm(k):
    return k.encode("utf-8") if isinstance(k, str) else k


class _TableState:
    """A table's contents in one session."""

    def __init__(self):
        self.data = None

    def fill(self, keys, values, op):
        keys = [_norm(k) for k in np.asarray(keys, dtype=object).reshape(-1).tolist()]
        values = np.asarray(values).reshape(-1)
        if len(keys) != values.size:
            raise errors.InvalidArgumentError(
                None, op, f"Expected shape {[len(keys)]} for value, got {list(values.shape)}")
        if self.data is None:   # initializing twice leaves the table as it is (as TF)
            self.data = dict(zip(keys, values.tolist()))

    def get(self, op):
        if self.data is None:
            raise errors.FailedPreconditionError(None, op, "Table not initialized.")
        return self.data


def _state(ctx, op):
    return ctx.resource(("lookup.Table", op.attrs["table"]), _TableState)


def _import_kernel(op, ctx):
    state = _state(ctx, op)

    def run(keys, values):
        state.fill(keys, values, op)
    return run


def _convert(field, dtype, path, lineno):
    if dtype == dtypes.string:
        return field
    try:
        return int(field) if dtype.is_integer else float(field)
    except ValueError:
        raise ValueError(f"{path}:{lineno + 1}: cannot convert {field!r} to "
                         f"{dtype.name}") from None


def _read_text_file(path, a):
    from estimator_npu.utils import gfile
    with gfile.GFile(path, "r") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if a["vocab_size"] is not None:
        if len(lines) < a["vocab_size"]:
            raise ValueError(f"Invalid vocab_size in {path}: expected {a['vocab_size']} "
                             f"lines, found {len(lines)}")
        lines = lines[:a["vocab_size"]]
    keys, values = [], []
    for i, line in enumerate(lines):
        fields = line.split(a["delimiter"]) if a["delimiter"] is not None else line.split()
        for idx, dt, out in ((a["key_index"], a["key_dtype"], keys),
                             (a["value_index"], a["value_dtype"], values)):
            if idx == TextFileIndex.LINE_NUMBER:
                out.append(i)
            elif idx == TextFileIndex.WHOLE_LINE:
                out.append(_convert(line, dt, path, i))
            elif idx >= len(fields):
                raise ValueError(f"{path}:{i + 1}: invalid number of columns: {len(fields)} "
                                 f"fields, column {idx} was requested")
            else:
                out.append(_convert(fields[idx], dt, path, i))
    return keys, np.array(values, dtype=a["value_dtype"].np)


def _text_file_kernel(op, ctx):
    state = _state(ctx, op)

    def run(filename):
        path = filename.decode() if isinstance(filename, bytes) else str(filename)
        try:
            keys, values = _read_text_file(path, op.attrs)
        except (OSError, errors.OpError) as e:
            raise errors.NotFoundError(None, op, f"{path}: {e}") from None
        state.fill(keys, values, op)
    return run


def _find_kernel(op, ctx):
    state = _state(ctx, op)
    npd = op.attrs["value_dtype"].np
    buckets = op.attrs["num_oov_buckets"]

    def run(keys, default):
        data = state.get(op)
        k = np.asarray(keys)
        flat = k.reshape(-1).tolist()
        if buckets:
            n = len(data)
            out = [data.get(_norm(x)) for x in flat]
            out = [v if v is not None else n + hash_bucket(x, buckets)
                   for v, x in zip(out, flat)]
        else:
            d = np.asarray(default).reshape(-1)[0] if np.ndim(default) else default
            d = d.item() if hasattr(d, "item") else d
            out = [data.get(_norm(x), d) for x in flat]
        return np.array(out, dtype=npd).reshape(k.shape)
    return run


def _size_kernel(op, ctx):
    state = _state(ctx, op)
    return lambda: np.array(len(state.get(op)), dtype=np.int64)


OPS.define("LookupTableImport", kernel=_import_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)
OPS.define("InitializeTableFromTextFile", kernel=_text_file_kernel, grad=NOT_DIFFERENTIABLE,
           stateful=True)
OPS.define("LookupTableFind", kernel=_find_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)
OPS.define("LookupTableSize", kernel=_size_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)


# ------------------------------------------------------------------ initializers
class TableInitializerBase:
    """Fills a table when its initializer op runs."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)

    @property
    def key_dtype(self):
        return self._key_dtype

    @property
    def value_dtype(self):
        return self._value_dtype


class KeyValueTensorInitializer(TableInitializerBase):
    """Fills a table from a tensor of keys and a tensor of values (same length)."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        self._keys = convert_to_tensor(keys, dtype=key_dtype)
        self._values = convert_to_tensor(values, dtype=value_dtype)
        self._name = name or "key_value_init"
        super().__init__(self._keys.dtype, self._values.dtype)

    def initialize(self, table):
        g = get_default_graph()
        with g.name_scope(self._name):
            return make_op("LookupTableImport", [self._keys, self._values], [],
                           {"table": table._key}, name="LookupTableImportV2")


class TextFileInitializer(TableInitializerBase):
    """Fills a table from a text file: one entry per line, key and value taken from the
    ``delimiter``-separated columns ``key_index`` / ``value_index``, or the whole line
    (``TextFileIndex.WHOLE_LINE``) or the line number (``TextFileIndex.LINE_NUMBER``)."""

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index,
                 vocab_size=None, delimiter="\t", name=None, value_index_offset=0):
        super().__init__(key_dtype, value_dtype)
        for what, idx, dt in (("key", key_index, self.key_dtype),
                              ("value", value_index, self.value_dtype)):
            if idx < -2:
                raise ValueError(f"Invalid {what}_index {idx}: must be >= -2")
            if idx == TextFileIndex.LINE_NUMBER and not dt.is_integer:
                raise ValueError(f"Signature mismatch: {what}_index is LINE_NUMBER, so "
                                 f"{what}_dtype must be an integer type, got {dt.name}")
            if idx == TextFileIndex.WHOLE_LINE and dt != dtypes.string and not (
                    dt.is_integer or dt.is_floating):
                raise ValueError(f"Invalid {what}_dtype {dt.name} for WHOLE_LINE")
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"Invalid vocab_size {vocab_size}: must be positive")
        self._filename = convert_to_tensor(filename, dtype=dtypes.string)
        self._attrs = {"key_index": int(key_index), "value_index": int(value_index),
                       "vocab_size": None if vocab_size is None else int(vocab_size),
                       "delimiter": delimiter, "key_dtype": self.key_dtype,
                       "value_dtype": self.value_dtype}
        self._name = name or "text_file_init"
        self.vocab_size = vocab_size

    def initialize(self, table):
        with get_default_graph().name_scope(self._name):
            return make_op("InitializeTableFromTextFile", [self._filename], [],
                           dict(self._attrs, table=table._key),
                           name="InitializeTableFromTextFileV2")


class TextFileIdTableInitializer(TextFileInitializer):
    """Whole lines (strings) to line numbers (int64)."""

    def __init__(self, filename, key_column_index=TextFileIndex.WHOLE_LINE,
                 value_column_index=TextFileIndex.LINE_NUMBER, vocab_size=None,
                 delimiter="\t", name="text_file_id_table_init", key_dtype=dtypes.string):
        super().__init__(filename, key_dtype, key_column_index, dtypes.int64,
                         value_column_index, vocab_size, delimiter, name)


class TextFileStringTableInitializer(TextFileInitializer):
    """Line numbers (int64) to whole lines (strings)."""

    def __init__(self, filename, key_column_index=TextFileIndex.LINE_NUMBER,
                 value_column_index=TextFileIndex.WHOLE_LINE, vocab_size=None,
                 delimiter="\t", name="text_file_string_table_init"):
        super().__init__(filename, dtypes.int64, key_column_index, dtypes.string,
                         value_column_index, vocab_size, delimiter, name)


# ------------------------------------------------------------------ tables
class _Table:
    def __init__(self, initializer, name, default_name):
        if not isinstance(initializer, TableInitializerBase):
            raise TypeError(f"initializer must be a KeyValueTensorInitializer or "
                            f"TextFileInitializer, got {type(initializer).__name__}")
        g = get_default_graph()
        self._key = g.unique_name(name or default_name)
        self._name = self._key.rpartition("/")[2]
        self._initializer = initializer
        self._key_dtype = initializer.key_dtype
        self._init_op = initializer.initialize(self)
        add_to_collection(GraphKeys.TABLE_INITIALIZERS, self._init_op)

    @property
    def name(self):
        return self._name

    @property
    def key_dtype(self):
        return self._key_dtype

    @property
    def initializer(self):
        return self._init_op

    init = initializer   # TF1's HashTable.init

    def size(self, name=None):
        """The number of entries, as an int64 scalar."""
        return make_tensor("LookupTableSize", [], dtypes.int64, [], {"table": self._key},
                           name=name or f"{self._name}_Size")

    def _find(self, keys, default, name, num_oov_buckets=0):
        sparse = isinstance(keys, SparseTensor)
        values = keys.values if sparse else keys
        k = convert_to_tensor(values)
        if k.dtype != self._key_dtype and not (k.dtype.is_integer and
                                               self._key_dtype.is_integer):
            raise TypeError(f"Signature mismatch. Keys must be dtype {self._key_dtype.name}, "
                            f"got {k.dtype.name}.")
        out = make_tensor("LookupTableFind", [k, default], self.value_dtype, k.shape,
                          {"table": self._key, "value_dtype": self.value_dtype,
                           "num_oov_buckets": num_oov_buckets},
                          name=name or f"{self._name}_Lookup")
        return SparseTensor(keys.indices, out, keys.dense_shape) if sparse else out

    def __getitem__(self, keys):
        return self.lookup(keys)


class StaticHashTable(_Table):
    """A fixed key -> value table, filled once by ``initializer``; missing keys give
    ``default_value``."""

    def __init__(self, initializer, default_value, name=None, experimental_is_anonymous=False):
        self._value_dtype = initializer.value_dtype
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        super().__init__(initializer, name, "hash_table")

    @property
    def value_dtype(self):
        return self._value_dtype

    @property
    def default_value(self):
        return self._default_value

    def lookup(self, keys, name=None):
        """The values of ``keys`` (a Tensor or SparseTensor), ``default_value`` if absent."""
        return self._find(keys, self._default_value, name)


class HashTable(StaticHashTable):
    """TF1's ``HashTable`` (``tf.contrib.lookup.HashTable``): ``StaticHashTable``."""

    def __init__(self, initializer, default_value, shared_name=None, name=None):
        super().__init__(initializer, default_value, name=name)


class StaticVocabularyTable(_Table):
    """Keys -> int64 ids: a key in the vocabulary gets its value, any other key one of
    ``num_oov_buckets`` extra ids (``vocab_size + Fingerprint64(key) % num_oov_buckets``;
    integer keys are hashed as their decimal strings, as TF does)."""

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None,
                 experimental_is_anonymous=False):
        if num_oov_buckets <= 0:
            raise ValueError(f"num_oov_buckets must be > 0, got {num_oov_buckets}; use "
                             "StaticHashTable for a table without them")
        if not initializer.value_dtype.is_integer:
            raise TypeError(f"StaticVocabularyTable needs int64 values, got "
                            f"{initializer.value_dtype.name}")
        self._num_oov_buckets = int(num_oov_buckets)
        super().__init__(initializer, name, "hash_table")
        if lookup_key_dtype is not None:
            self._key_dtype = dtypes.as_dtype(lookup_key_dtype)

    @property
    def value_dtype(self):
        return dtypes.int64

    def size(self, name=None):
        return super().size(name) + self._num_oov_buckets

    def lookup(self, keys, name=None):
        default = convert_to_tensor(np.int64(-1))
        return self._find(keys, default, name, self._num_oov_buckets)


StaticVocabularyTableV1 = StaticVocabularyTable


def tables_initializer(name="init_all_tables"):
    """One op that runs every table initializer of the graph (``TABLE_INITIALIZERS``)."""
    inits = get_default_graph().get_collection(GraphKeys.TABLE_INITIALIZERS)
    return group(*inits, name=name)


initialize_all_tables = tables_initializer
__all__ = ["TextFileIndex", "KeyValueTensorInitializer", "TextFileInitializer",
           "TextFileIdTableInitializer", "TextFileStringTableInitializer", "StaticHashTable",
           "HashTable", "StaticVocabularyTable", "tables_initializer",
           "initialize_all_tables"]


def string_to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002
    """``Fingerprint64(s) % num_buckets`` for each string of ``input`` (TF's
    ``StringToHashBucketFast``), int64."""
    t = convert_to_tensor(input, dtype=dtypes.string)
    return make_tensor("StringToHashBucketFast", [t], dtypes.int64, t.shape,
                       {"num_buckets": int(num_buckets)}, name=name)


def _hash_bucket_kernel(op, ctx):
    n = op.attrs["num_buckets"]

    def run(x):
        x = np.asarray(x, dtype=object)
        return np.array([hash_bucket(v, n) for v in x.reshape(-1).tolist()],
                        np.int64).reshape(x.shape)
    return run


OPS.define("StringToHashBucketFast", kernel=_hash_bucket_kernel, grad=NOT_DIFFERENTIABLE)
