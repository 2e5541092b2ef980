"""tf.sparse.maximum / minimum / split / merge / to_indicator: semantics beyond the sweep's
TF values (tests/conformance/test_tf_sweep.py) and their argument errors."""
import numpy as np
import pytest

import estimator_npu as tf


def _run(t):
    with tf.Session() as sess:
        return sess.run(t)


def _a():
    return tf.SparseTensor([[0, 0], [1, 1]], np.array([1.0, -2.0], np.float32), [2, 3])


def _b():
    return tf.SparseTensor([[1, 1], [1, 2]], np.array([-5.0, -1.0], np.float32), [2, 3])


def test_maximum_and_minimum_take_the_union_with_missing_entries_as_zero():
    mx, mn = _run([tf.sparse.maximum(_a(), _b()), tf.sparse.minimum(_a(), _b())])
    assert mx.indices.tolist() == [[0, 0], [1, 1], [1, 2]]
    assert mx.values.tolist() == [1.0, -2.0, 0.0]
    assert mn.values.tolist() == [0.0, -5.0, -1.0]
    with pytest.raises(TypeError, match="same dtype"):
        tf.sparse.maximum(_a(), tf.SparseTensor([[0, 0]], np.array([1.0]), [2, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="same dense shape"):
        _run(tf.sparse.minimum(_a(), tf.SparseTensor([[0, 0]], np.array([1.0], np.float32),
                                                     [2, 4])))


def test_split_gives_the_first_pieces_the_remainder_and_needs_keywords():
    sp = tf.SparseTensor([[0, 0], [0, 4], [1, 2]], np.array([1, 2, 3], np.int32), [2, 5])
    pieces = _run(tf.sparse.split(sp_input=sp, num_split=2, axis=-1))
    assert [p.dense_shape.tolist() for p in pieces] == [[2, 3], [2, 2]]
    assert pieces[1].indices.tolist() == [[0, 1]] and pieces[1].values.tolist() == [2]
    with pytest.raises(ValueError, match="by keyword"):
        tf.sparse.split(sp, 2, 1)
    with pytest.raises(ValueError, match="num_split must be >= 1"):
        tf.sparse.split(sp_input=sp, num_split=0, axis=1)


def test_merge_and_to_indicator_check_their_ids():
    ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], np.array([3, 1, 3], np.int64), [2, 2])
    ind = _run(tf.sparse.to_indicator(ids, 4))
    assert ind.tolist() == [[False, True, False, True], [False, False, False, True]]
    with pytest.raises(TypeError, match="integer values"):
        tf.sparse.to_indicator(_a(), 4)
    with pytest.raises(TypeError, match="vocab_size must be a Python int"):
        tf.sparse_merge(ids, ids, [4, 5])


def test_cross_hashed_crosses_every_row_and_checks_its_inputs():
    sp = tf.SparseTensor([[0, 0], [0, 1]], np.array([b"a", b"b"]), [2, 2])
    out = _run(tf.sparse.cross_hashed([sp, tf.constant([[b"x"], [b"y"]])], num_buckets=7))
    assert out.indices.tolist() == [[0, 0], [0, 1]] and out.dense_shape.tolist() == [2, 2]
    assert ((out.values >= 0) & (out.values < 7)).all()
    with pytest.raises(TypeError, match=r"inputs\[0\] must be string or integer"):
        tf.sparse.cross_hashed([tf.constant([[1.0]]), tf.constant([[b"x"]])])
    with pytest.raises(ValueError, match=r"inputs\[1\] must be 2-D"):
        tf.sparse.cross_hashed([tf.constant([[b"x"]]), tf.constant([b"x"])])
    with pytest.raises(ValueError, match="num_buckets must be an int >= 0"):
        tf.sparse.cross_hashed([sp, sp], num_buckets=-1)
