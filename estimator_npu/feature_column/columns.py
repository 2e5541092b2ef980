"""``tf.feature_column`` column classes (TF1 semantics) over dense features.

Features arrive as dense tensors of numbers or strings in a dict. A categorical column turns
its feature into a dense ``[batch, n]`` int64 id tensor in which ``-1`` marks a missing
value (``''`` for strings, ``-1`` for integers, as TF drops them when it makes a dense
feature sparse) or an id to ignore; a weighted column adds a parallel float weight tensor.
Dense columns give a float32 ``[batch, num_elements]`` tensor.
"""
import os

import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.script_ops import py_func
from estimator_npu.feature_column.fingerprint import fingerprint64, hash_bucket

_CROSS_HASH_KEY = 0xDECAFCAFFE
_M64 = (1 << 64) - 1


def _key_tensor(features, key, column):
    if key not in features:
        raise ValueError(f"Feature {key!r} (needed by feature column {column!r}) is not in "
                         f"features dictionary; it has {sorted(features)}.")
    from estimator_npu.engine.ops.core import convert_to_tensor
    from estimator_npu.engine.sparse_tensor import SparseTensor, SparseTensorValue
    value = features[key]
    if isinstance(value, (SparseTensor, SparseTensorValue)):
        return _sparse_to_dense(SparseTensor.from_value(value), column)
    t = convert_to_tensor(value)
    if t.shape.ndims == 1:
        t = array_ops.expand_dims(t, -1)
    elif t.shape.ndims == 0:
        t = array_ops.reshape(t, [1, 1])
    return t


def _sparse_to_dense(sp, column):
    """A ``[batch, n]`` dense form of a rank-2 SparseTensor, absent cells ``''`` / ``-1``."""
    is_str = sp.dtype == dtypes.string

    def fill(indices, values, dense_shape):
        shape = [int(d) for d in dense_shape]
        if len(shape) != 2:
            raise ValueError(f"Feature column {column!r}: SparseTensor inputs must have rank "
                             f"2, got dense_shape {shape}")
        out = np.full(shape, b"" if is_str else -1,
                      dtype=object if is_str else np.asarray(values).dtype)
        if len(values):
            out[indices[:, 0], indices[:, 1]] = values
        return out
    t = py_func(fill, [sp.indices, sp.values, sp.dense_shape], sp.dtype, stateful=False,
                name="sparse_to_dense")
    t.set_shape([None, None])
    return t


def _as_text(v):
    return v.decode("utf-8") if isinstance(v, bytes) else str(v)


def _rows(arr):
    a = np.asarray(arr)
    return a.reshape(a.shape[0], -1) if a.ndim else a.reshape(1, 1)


def _lookup(tensor, fn, name):
    out = py_func(lambda a: np.asarray(fn(_rows(a)), np.int64), [tensor], dtypes.int64,
                  stateful=False, name=name)
    return out


class FeatureColumn:
    """Base: every column has a ``name`` and the raw ``keys`` it reads."""
    name = None

    @property
    def parse_spec(self):
        return {}

    def __repr__(self):
        return f"{type(self).__name__}(name={self.name!r})"


class DenseColumn(FeatureColumn):
    num_elements = 1

    def dense(self, features, cache, trainable=True):
        raise NotImplementedError


class CategoricalColumn(FeatureColumn):
    num_buckets = 0

    def ids(self, features, cache):
        """``(ids [batch, n] int64 with -1 for absent, weights or None)``, cached per name."""
        if self.name not in cache:
            cache[self.name] = self._ids(features, cache)
        return cache[self.name]


class NumericColumn(DenseColumn):
    def __init__(self, key, shape, default_value, dtype, normalizer_fn):
        self.key, self.name = key, key
        self.shape = tuple(shape)
        self.default_value = default_value
        self.dtype = dtypes.as_dtype(dtype)
        self.normalizer_fn = normalizer_fn
        self.num_elements = int(np.prod(self.shape)) if self.shape else 1

    @property
    def parse_spec(self):
        from estimator_npu.feature_column.parse_spec import FixedLenFeature
        return {self.key: FixedLenFeature(self.shape, self.dtype, self.default_value)}

    def values(self, features, cache):
        if ("numeric", self.key) in cache:
            return cache[("numeric", self.key)]
        from estimator_npu.engine.sparse_tensor import SparseTensor, SparseTensorValue
        if isinstance(features.get(self.key), (SparseTensor, SparseTensorValue)):
            raise ValueError(f"The corresponding Tensor of numerical column must be a "
                             f"Tensor. SparseTensor is not supported. key: {self.key}")
        t = _key_tensor(features, self.key, self.name)
        if t.dtype == dtypes.string or not (t.dtype.is_floating or t.dtype.is_integer):
            raise ValueError(f"numeric_column {self.name!r} needs a numeric feature, got a "
                             f"tensor of dtype {t.dtype.name}; use a categorical column "
                             f"for strings.")
        t = math_ops.cast(t, dtypes.float32)
        if self.normalizer_fn is not None:
            t = self.normalizer_fn(t)
        t = array_ops.reshape(t, [-1, self.num_elements])
        cache[("numeric", self.key)] = t
        return t

    def dense(self, features, cache, trainable=True):
        return self.values(features, cache)


class BucketizedColumn(DenseColumn, CategoricalColumn):
    def __init__(self, source_column, boundaries):
        if not isinstance(source_column, NumericColumn):
            raise ValueError("source_column must be a numeric_column, got "
                             f"{source_column!r}")
        b = [float(x) for x in boundaries]
        if any(b1 >= b2 for b1, b2 in zip(b, b[1:])):
            raise ValueError(f"boundaries must be a sorted list, got {boundaries!r}")
        self.source_column, self.boundaries = source_column, tuple(b)
        self.name = source_column.name + "_bucketized"
        n = len(b) + 1
        self.num_elements = source_column.num_elements * n
        self.num_buckets = n * source_column.num_elements
        self.key = source_column.key

    @property
    def parse_spec(self):
        return self.source_column.parse_spec

    def bucket_ids(self, features, cache):
        v = self.source_column.values(features, cache)
        b = np.asarray(self.boundaries, np.float64)
        return _lookup(v, lambda a: np.searchsorted(b, a, side="right"),
                       self.name + "/Bucketize")

    def dense(self, features, cache, trainable=True):
        ids = self.bucket_ids(features, cache)
        oh = array_ops.one_hot(ids, len(self.boundaries) + 1, dtype=dtypes.float32)
        return array_ops.reshape(oh, [-1, self.num_elements])

    def _ids(self, features, cache):
        n = len(self.boundaries) + 1
        ids = self.bucket_ids(features, cache)
        # source element i's bucket b becomes id i * n + b (as TF's sparse form)
        offs = np.arange(self.source_column.num_elements, dtype=np.int64) * n
        return ids + offs, None


class VocabularyColumn(CategoricalColumn):
    def __init__(self, key, vocabulary, dtype, default_value, num_oov_buckets):
        self.key, self.name = key, key
        self.vocabulary = tuple(vocabulary)
        if len(set(self.vocabulary)) != len(self.vocabulary):
            raise ValueError(f"Duplicate keys in vocabulary of {key!r}: {vocabulary!r}")
        self.dtype = dtype
        self.default_value = -1 if default_value is None else default_value
        if num_oov_buckets and default_value not in (None, -1):
            raise ValueError(f"Can't specify both default_value and num_oov_buckets for "
                             f"{key!r}")
        self.num_oov_buckets = num_oov_buckets
        self.num_buckets = len(self.vocabulary) + num_oov_buckets
        self._index = {_as_text(v) if isinstance(v, (str, bytes)) else v: i
                       for i, v in enumerate(self.vocabulary)}
        self._strings = all(isinstance(v, (str, bytes)) for v in self.vocabulary)

    @property
    def parse_spec(self):
        from estimator_npu.feature_column.parse_spec import VarLenFeature
        return {self.key: VarLenFeature(dtypes.string if self._strings else dtypes.int64)}

    def _map(self, a):
        out = np.empty(a.shape, np.int64)
        n, oov = len(self.vocabulary), self.num_oov_buckets
        for idx, v in np.ndenumerate(a):
            if self._strings:
                v = _as_text(v)
                if v == "":
                    out[idx] = -1
                    continue
            else:
                v = int(v)
                if v == -1:
                    out[idx] = -1
                    continue
            i = self._index.get(v)
            if i is None:
                i = n + hash_bucket(v, oov) if oov else self.default_value
            out[idx] = i
        return out

    def _ids(self, features, cache):
        t = _key_tensor(features, self.key, self.name)
        if self._strings and t.dtype != dtypes.string:
            raise ValueError(f"Column {self.name!r} has a string vocabulary but its feature "
                             f"has dtype {t.dtype.name}")
        return _lookup(t, self._map, self.name + "/lookup"), None


class IdentityColumn(CategoricalColumn):
    def __init__(self, key, num_buckets, default_value):
        self.key, self.name = key, key
        self.num_buckets, self.default_value = int(num_buckets), default_value

    @property
    def parse_spec(self):
        from estimator_npu.feature_column.parse_spec import VarLenFeature
        return {self.key: VarLenFeature(dtypes.int64)}

    def _map(self, a):
        a = a.astype(np.int64)
        bad = (a != -1) & ((a < 0) | (a >= self.num_buckets))
        if bad.any():
            if self.default_value is None:
                raise ValueError(f"categorical_column_with_identity {self.name!r}: ids must "
                                 f"be in [0, {self.num_buckets}), got {a[bad][:5].tolist()}")
            a = np.where(bad, self.default_value, a)
        return a

    def _ids(self, features, cache):
        t = _key_tensor(features, self.key, self.name)
        if not t.dtype.is_integer:
            raise ValueError(f"categorical_column_with_identity {self.name!r} needs an "
                             f"integer feature, got dtype {t.dtype.name}")
        return _lookup(t, self._map, self.name + "/identity"), None


class HashBucketColumn(CategoricalColumn):
    def __init__(self, key, hash_bucket_size, dtype):
        if hash_bucket_size is None or hash_bucket_size < 1:
            raise ValueError(f"hash_bucket_size must be at least 1, got {hash_bucket_size}")
        self.key, self.name = key, key
        self.num_buckets, self.dtype = int(hash_bucket_size), dtypes.as_dtype(dtype)

    @property
    def parse_spec(self):
        from estimator_npu.feature_column.parse_spec import VarLenFeature
        return {self.key: VarLenFeature(self.dtype)}

    def _map(self, a):
        out = np.empty(a.shape, np.int64)
        for idx, v in np.ndenumerate(a):
            s = _as_text(v) if isinstance(v, (str, bytes, np.str_)) else str(int(v))
            missing = s == "" if isinstance(v, (str, bytes, np.str_)) else int(v) == -1
            out[idx] = -1 if missing else hash_bucket(s, self.num_buckets)
        return out

    def _ids(self, features, cache):
        t = _key_tensor(features, self.key, self.name)
        return _lookup(t, self._map, self.name + "/to_hash_bucket"), None


def _fp_cat(fp1, fp2):
    mul = 0xc6a4a7935bd1e995
    r = fp1 ^ mul
    h = (fp2 * mul) & _M64
    r ^= ((h ^ (h >> 47)) * mul) & _M64
    r = (r * mul) & _M64
    r = ((r ^ (r >> 47)) * mul) & _M64
    return r ^ (r >> 47)


class CrossedColumn(CategoricalColumn):
    def __init__(self, keys, hash_bucket_size, hash_key):
        if len(keys) < 2:
            raise ValueError(f"keys must be a list with length > 1, got {keys!r}")
        self.keys = tuple(keys)
        self.num_buckets = int(hash_bucket_size)
        self.hash_key = _CROSS_HASH_KEY if hash_key is None else hash_key
        self.name = "_X_".join(sorted(k if isinstance(k, str) else k.name for k in keys))

    @property
    def parse_spec(self):
        spec = {}
        for k in self.keys:
            if isinstance(k, str):
                from estimator_npu.feature_column.parse_spec import VarLenFeature
                spec[k] = VarLenFeature(dtypes.string)
            else:
                spec.update(k.parse_spec)
        return spec

    def _parts(self, features, cache):
        # TF's SparseCross crosses its sparse inputs (categorical columns' ids, sparse raw
        # features) before its dense ones (dense raw features), whatever the keys' order
        from estimator_npu.engine.sparse_tensor import SparseTensor, SparseTensorValue
        sparse, dense = [], []
        for k in self.keys:
            if isinstance(k, str):
                is_sparse = isinstance(features.get(k) if hasattr(features, "get") else None,
                                       (SparseTensor, SparseTensorValue))
                (sparse if is_sparse else dense).append(_key_tensor(features, k, self.name))
            else:
                sparse.append(k.ids(features, cache)[0])
        return sparse + dense

    def _cross(self, *arrays):
        rows = [_rows(a) for a in arrays]
        out = []
        for r in range(rows[0].shape[0]):
            feats = []
            for a in rows:
                vals = []
                for v in a[r]:
                    if isinstance(v, (bytes, str, np.str_)):
                        if _as_text(v) != "":
                            vals.append(fingerprint64(_as_text(v)))
                    elif int(v) >= 0:
                        vals.append(int(v) & _M64)
                feats.append(vals)
            ids = []
            for combo in _product(feats):
                h = self.hash_key
                for f in combo:
                    h = _fp_cat(h, f)
                ids.append(h % self.num_buckets)
            out.append(ids)
        width = max([len(i) for i in out] + [1])
        dense = np.full((len(out), width), -1, np.int64)
        for r, ids in enumerate(out):
            dense[r, :len(ids)] = ids
        return dense

    def _ids(self, features, cache):
        parts = self._parts(features, cache)
        return py_func(self._cross, parts, dtypes.int64, stateful=False,
                       name=self.name + "/cross"), None


def _product(lists):
    if any(not x for x in lists):
        return []
    import itertools
    return list(itertools.product(*lists))


class WeightedColumn(CategoricalColumn):
    def __init__(self, categorical_column, weight_feature_key, dtype):
        self.categorical_column = categorical_column
        self.weight_feature_key = weight_feature_key
        self.dtype = dtypes.as_dtype(dtype)
        self.name = f"{categorical_column.name}_weighted_by_{weight_feature_key}"
        self.num_buckets = categorical_column.num_buckets

    @property
    def parse_spec(self):
        from estimator_npu.feature_column.parse_spec import VarLenFeature
        spec = dict(self.categorical_column.parse_spec)
        spec[self.weight_feature_key] = VarLenFeature(self.dtype)
        return spec

    def _ids(self, features, cache):
        ids, _ = self.categorical_column.ids(features, cache)
        w = _key_tensor(features, self.weight_feature_key, self.name)
        if w.dtype == dtypes.string:
            raise ValueError(f"weighted_categorical_column {self.name!r}: weight feature "
                             f"{self.weight_feature_key!r} has dtype string")
        return ids, math_ops.cast(w, dtypes.float32)


def read_vocabulary_file(path, vocabulary_size):
    if not path or not os.path.exists(path):
        raise ValueError(f"vocabulary_file {path!r} does not exist.")
    with open(path, encoding="utf-8") as f:
        words = [line.rstrip("\r\n") for line in f]
    if vocabulary_size is not None:
        if vocabulary_size > len(words):
            raise ValueError(f"vocabulary_size {vocabulary_size} is larger than the "
                             f"{len(words)} lines of vocabulary_file {path!r}")
        words = words[:vocabulary_size]
    return words
