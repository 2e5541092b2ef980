"""tf.strings.to_hash_bucket_strong: SipHash-2-4 (TF's values: the sweep's
str_to_hash_bucket_strong in tests/conformance/test_tf_sweep.py)."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.lookup.strong_hash import murmur64a, siphash24


def test_siphash24_matches_the_reference_vectors():
    # SipHash paper, appendix A: key 00..0f, messages 00, 00 01, ..., 00..0e
    k0 = int.from_bytes(bytes(range(8)), "little")
    k1 = int.from_bytes(bytes(range(8, 16)), "little")
    assert siphash24(k0, k1, b"") == 0x726fdb47dd0e0e31
    assert siphash24(k0, k1, bytes(range(15))) == 0xa129ca6149be45e5


def test_buckets_depend_on_the_key_and_bad_arguments_are_named():
    words = np.array([b"a", b"bc", b"hello world!"])
    with tf.Session() as sess:
        a, b = sess.run([tf.strings.to_hash_bucket_strong(words, 1000, [1, 2]),
                         tf.string_to_hash_bucket_strong(words, 1000, [3, 4])])
    assert a.dtype == np.int64 and a.shape == (3,) and ((a >= 0) & (a < 1000)).all()
    assert a.tolist() != b.tolist()
    with pytest.raises(ValueError, match="key must be a list of 2"):
        tf.strings.to_hash_bucket_strong(words, 10, [1])
    with pytest.raises(ValueError, match="num_buckets must be an int >= 1"):
        tf.strings.to_hash_bucket_strong(words, 0, [1, 2])


def test_legacy_hash_bucket_is_murmur64a_and_checks_num_buckets():
    # MurmurHash64A's tail and 8-byte block paths, against the hash's definition by hand
    m, mask = 0xc6a4a7935bd1e995, (1 << 64) - 1
    h = ((0xDECAFCAFFE ^ m) ^ ord("a")) * m & mask
    h = ((h ^ (h >> 47)) * m) & mask
    assert murmur64a(b"a") == h ^ (h >> 47)
    with tf.Session() as sess:
        got = sess.run(tf.strings.to_hash_bucket(np.array([b"a", b"12345678x"]), 1 << 20))
    assert got.tolist() == [murmur64a(b"a") % (1 << 20), murmur64a(b"12345678x") % (1 << 20)]
    with pytest.raises(ValueError, match="num_buckets must be an int >= 1"):
        tf.string_to_hash_bucket(np.array([b"a"]), 0)
