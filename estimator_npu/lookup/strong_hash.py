"""``tf.strings.to_hash_bucket_strong``: ``SipHash-2-4(key, s) % num_buckets`` (TF's
StringToHashBucketStrong keys SipHash-2-4, the public standard of Aumasson and Bernstein,
with its two uint64 ``key`` words), and TF1's ``tf.string_to_hash_bucket``
(``tf.strings.to_hash_bucket``): MurmurHash64A (Appleby's public-domain hash) seeded with
``0xDECAFCAFFE``, modulo ``num_buckets``."""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops.core import convert_to_tensor, make_tensor
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily

OPS = OpFamily(__name__)  # this family's op definitions (data)
_M = (1 << 64) - 1


def _rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & _M


def siphash24(k0, k1, data):
    """SipHash-2-4 of ``data`` (bytes) under the key ``(k0, k1)``, a uint64 Python int."""
    v = [k0 ^ 0x736f6d6570736575, k1 ^ 0x646f72616e646f6d,
         k0 ^ 0x6c7967656e657261, k1 ^ 0x7465646279746573]

    def rounds(k):
        for _ in range(k):
            v[0] = (v[0] + v[1]) & _M
            v[1] = _rotl(v[1], 13) ^ v[0]
            v[0] = _rotl(v[0], 32)
            v[2] = (v[2] + v[3]) & _M
            v[3] = _rotl(v[3], 16) ^ v[2]
            v[0] = (v[0] + v[3]) & _M
            v[3] = _rotl(v[3], 21) ^ v[0]
            v[2] = (v[2] + v[1]) & _M
            v[1] = _rotl(v[1], 17) ^ v[2]
            v[2] = _rotl(v[2], 32)

    n = len(data)
    end = n - n % 8
    words = [int.from_bytes(data[i:i + 8], "little") for i in range(0, end, 8)]
    words.append((n & 0xff) << 56 | int.from_bytes(data[end:], "little"))
    for m in words:
        v[3] ^= m
        rounds(2)
        v[0] ^= m
    v[2] ^= 0xff
    rounds(4)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def _strong_kernel(op, ctx):
    n, (k0, k1) = op.attrs["num_buckets"], op.attrs["key"]

    def run(x):
        x = np.asarray(x, dtype=object)
        return np.array([siphash24(k0, k1, v if isinstance(v, bytes) else str(v).encode())
                         % n for v in x.reshape(-1).tolist()], np.int64).reshape(x.shape)
    return run


OPS.define("StringToHashBucketStrong", kernel=_strong_kernel, grad=NOT_DIFFERENTIABLE)


def string_to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002
    """``SipHash-2-4(key, s) % num_buckets`` for each string of ``input`` (int64);
    ``key`` is two non-negative ints (the uint64 SipHash key words)."""
    t = convert_to_tensor(input, dtype=dtypes.string)
    given, key = key, list(key) if isinstance(key, (list, tuple, np.ndarray)) else None
    if key is None or len(key) != 2 or not all(
            isinstance(k, (int, np.integer)) and 0 <= int(k) <= _M for k in key):
        raise ValueError("to_hash_bucket_strong: key must be a list of 2 non-negative ints "
                         "(the SipHash key), got %r" % (given,))
    if not isinstance(num_buckets, (int, np.integer)) or num_buckets < 1:
        raise ValueError(f"to_hash_bucket_strong: num_buckets must be an int >= 1, got "
                         f"{num_buckets!r}")
    return make_tensor("StringToHashBucketStrong", [t], dtypes.int64, t.shape,
                       {"num_buckets": int(num_buckets), "key": tuple(int(k) for k in key)},
                       name=name)


_MURMUR_M = 0xc6a4a7935bd1e995
_MURMUR_SEED = 0xDECAFCAFFE


def murmur64a(data, seed=_MURMUR_SEED):
    """MurmurHash64A of ``data`` (bytes), a uint64 Python int."""
    n = len(data)
    h = (seed ^ (n * _MURMUR_M)) & _M
    end = n - n % 8
    for i in range(0, end, 8):
        k = (int.from_bytes(data[i:i + 8], "little") * _MURMUR_M) & _M
        k = ((k ^ (k >> 47)) * _MURMUR_M) & _M
        h = ((h ^ k) * _MURMUR_M) & _M
    if n % 8:
        h = ((h ^ int.from_bytes(data[end:], "little")) * _MURMUR_M) & _M
    h = ((h ^ (h >> 47)) * _MURMUR_M) & _M
    return h ^ (h >> 47)


def _legacy_kernel(op, ctx):
    n = op.attrs["num_buckets"]

    def run(x):
        x = np.asarray(x, dtype=object)
        return np.array([murmur64a(v if isinstance(v, bytes) else str(v).encode()) % n
                         for v in x.reshape(-1).tolist()], np.int64).reshape(x.shape)
    return run


OPS.define("StringToHashBucket", kernel=_legacy_kernel, grad=NOT_DIFFERENTIABLE)


def string_to_hash_bucket(string_tensor=None, num_buckets=None, name=None,
                          input=None):  # noqa: A002 - TF1 argument names
    """TF1's ``tf.string_to_hash_bucket``: ``MurmurHash64A(s) % num_buckets`` (int64)."""
    t = convert_to_tensor(string_tensor if input is None else input, dtype=dtypes.string)
    if not isinstance(num_buckets, (int, np.integer)) or num_buckets < 1:
        raise ValueError(f"string_to_hash_bucket: num_buckets must be an int >= 1, got "
                         f"{num_buckets!r}")
    return make_tensor("StringToHashBucket", [t], dtypes.int64, t.shape,
                       {"num_buckets": int(num_buckets)}, name=name)
