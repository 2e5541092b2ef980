"""tf.strings.format / bytes_split beyond the sweep's TF values (test_tf_sweep.py): TF's
printing rules (checked against TF 2.15 when written) and the argument errors."""
import numpy as np
import pytest

import estimator_npu as tf


def _run(t):
    with tf.Session() as sess:
        return sess.run(t)


def test_format_elides_long_dims_and_prints_like_tf():
    got = _run(tf.strings.format("{} | {} | {}", [np.arange(10), np.float32(1.0 / 3),
                                                  np.array([[True], [False]])], summarize=2))
    assert got == b"[0 1 ... 8 9] | 0.333333343 | [[1]\n [0]]"
    assert _run(tf.strings.format("v=%", np.array([b"ab"]), placeholder="%")) == b'v=["ab"]'


def test_format_and_bytes_split_errors_name_the_problem():
    with pytest.raises(ValueError, match="2 placeholder"):
        tf.strings.format("{} {}", [tf.constant(1)])
    with pytest.raises(TypeError, match="placeholder must be str"):
        tf.strings.format("{}", [1], placeholder="")
    with pytest.raises(NotImplementedError, match="RaggedTensor"):
        tf.strings.bytes_split(np.array([b"ab", b"c"]))
    assert _run(tf.strings.bytes_split(b"ab")).tolist() == [b"a", b"b"]
