"""tf.train.Example messages and their parsing ops: defaults, sparse features, errors
naming the key, and the vectorised batch path agreeing with per-record parsing."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import estimator_npu as tf
from estimator_npu.data import example_fastpath, example_parsing

E = tf.train


def _ex(**features):
    def feat(v):
        v = np.asarray(v)
        if v.dtype.kind == "f":
            return E.Feature(float_list=E.FloatList(value=v.reshape(-1).tolist()))
        if v.dtype.kind in "iu":
            return E.Feature(int64_list=E.Int64List(value=v.reshape(-1).tolist()))
        return E.Feature(bytes_list=E.BytesList(value=[bytes(x) for x in v.reshape(-1)]))
    return E.Example(features=E.Features(feature={k: feat(v) for k, v in
                                                  features.items()})).SerializeToString()


def _run(fetch):
    with tf.Session() as sess:
        return sess.run(fetch)


def test_messages_have_tf_field_numbers():
    f = E.Feature.DESCRIPTOR.fields_by_name
    assert (f["bytes_list"].number, f["float_list"].number, f["int64_list"].number) == (1, 2, 3)
    assert E.Example.DESCRIPTOR.fields_by_name["features"].number == 1
    seq = E.SequenceExample.DESCRIPTOR.fields_by_name
    assert (seq["context"].number, seq["feature_lists"].number) == (1, 2)
    assert E.Example.DESCRIPTOR.full_name == "tensorflow.Example"
    ex = E.Example()
    ex.features.feature["a"].int64_list.value.append(5)
    assert E.Example.FromString(ex.SerializeToString()) == ex


def test_fixed_len_defaults_and_var_len_sparse():
    recs = [_ex(x=[1.0, 2.0], tags=np.array([b"a", b"b"])), _ex(x=[3.0, 4.0])]
    parsed = _run(tf.io.parse_example(tf.constant(recs, dtype=tf.string), {
        "x": tf.io.FixedLenFeature([2], tf.float32),
        "y": tf.io.FixedLenFeature([], tf.int64, default_value=-1),
        "tags": tf.io.VarLenFeature(tf.string)}))
    np.testing.assert_array_equal(parsed["x"], [[1, 2], [3, 4]])
    np.testing.assert_array_equal(parsed["y"], [-1, -1])
    assert parsed["tags"].indices.tolist() == [[0, 0], [0, 1]]
    assert parsed["tags"].values.tolist() == [b"a", b"b"]
    assert parsed["tags"].dense_shape.tolist() == [2, 2]
    dense = _run(tf.sparse_tensor_to_dense(tf.io.parse_example(
        tf.constant(recs, dtype=tf.string), {"tags": tf.io.VarLenFeature(tf.string)})["tags"]))
    assert dense.tolist() == [[b"a", b"b"], [b"", b""]]


def test_fixed_len_sequence_feature_pads_with_allow_missing():
    recs = [_ex(v=[1, 2, 3]), _ex(v=[4]), _ex(w=[0])]
    got = _run(tf.io.parse_example(tf.constant(recs, dtype=tf.string), {
        "v": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True)}))
    np.testing.assert_array_equal(got["v"], [[1, 2, 3], [4, 0, 0], [0, 0, 0]])


def test_missing_feature_names_the_key():
    t = tf.io.parse_single_example(tf.constant(_ex(a=[1]), dtype=tf.string),
                                   {"label": tf.io.FixedLenFeature([], tf.int64)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Feature: label .*required"):
        _run(t)


def test_dtype_mismatch_names_key_and_both_dtypes():
    t = tf.io.parse_example(tf.constant([_ex(label=[1]), _ex(label=[2])], dtype=tf.string),
                            {"label": tf.io.FixedLenFeature([], tf.float32)})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Key: label.*Data type: int64 but expected type: float"):
        _run(t)


def test_wrong_value_count_names_key_and_shape():
    t = tf.io.parse_single_example(tf.constant(_ex(x=[1.0, 2.0, 3.0]), dtype=tf.string),
                                   {"x": tf.io.FixedLenFeature([2], tf.float32)})
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Key: x.*3.*\[2\]"):
        _run(t)


def test_garbage_record_is_invalid_argument():
    t = tf.io.parse_single_example(tf.constant(b"\xff\xff\xff", dtype=tf.string),
                                   {"x": tf.io.FixedLenFeature([2], tf.float32)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse example"):
        _run(t)


def test_bad_specs_raise_when_built():
    s = tf.constant(b"", dtype=tf.string)
    with pytest.raises(ValueError, match="'x'.*float32, tf.int64 or tf.string"):
        tf.io.parse_single_example(s, {"x": tf.io.FixedLenFeature([], tf.int32)})
    with pytest.raises(ValueError, match="'x'.*fully defined"):
        tf.io.parse_single_example(s, {"x": tf.io.FixedLenFeature([None], tf.float32)})
    with pytest.raises(TypeError, match="'x'"):
        tf.io.parse_single_example(s, {"x": "float"})


def test_static_shapes():
    s = tf.placeholder(tf.string, [8])
    p = tf.io.parse_example(s, {"x": tf.io.FixedLenFeature([3], tf.float32),
                                "v": tf.io.VarLenFeature(tf.int64)})
    assert p["x"].shape.as_list() == [8, 3]
    assert p["v"].indices.shape.as_list() == [None, 2]


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(0, 5), st.booleans(), st.integers(0, 2**31 - 1))
def test_vectorised_batch_path_equals_per_record_parsing(n, width, small_ints, seed):
    rng = np.random.default_rng(seed)
    hi = 127 if small_ints else 10**12
    recs = [_ex(img=rng.random(width).astype(np.float32), lab=rng.integers(0, hi, 1),
                raw=np.array([rng.bytes(4)], dtype=object)) for _ in range(n)]
    feats = {"img": tf.io.FixedLenFeature([width], tf.float32),
             "lab": tf.io.FixedLenFeature([1], tf.int64),
             "raw": tf.io.FixedLenFeature([], tf.string)}
    dense, sparse = example_parsing._split_specs(feats, "test")
    slow = example_parsing.parse_examples(recs, dense, sparse, names=[None] * n)
    fast = example_fastpath.parse_dense(recs, dense)
    if small_ints:
        assert fast is not None  # equal layouts: the vectorised path applies
    if fast is not None:
        for a, b in zip(fast, slow):
            assert a.dtype == b.dtype and a.shape == b.shape
            assert a.tolist() == b.tolist()


def test_vectorised_path_falls_back_on_different_layouts():
    recs = [_ex(x=[1.0, 2.0]), _ex(x=[1.0, 2.0], extra=[1])]
    dense, _ = example_parsing._split_specs({"x": tf.io.FixedLenFeature([2], tf.float32)},
                                            "t")
    assert example_fastpath.parse_dense(recs, dense) is None
    got = example_parsing.parse_examples(recs, dense, [])
    np.testing.assert_array_equal(got[0], [[1, 2], [1, 2]])


def test_parse_inside_map_is_traced_once():
    calls = []

    def parse(s):
        calls.append(1)
        return tf.io.parse_single_example(s, {"x": tf.io.FixedLenFeature([2], tf.float32)})
    ds = tf.data.Dataset.from_tensor_slices(np.array([_ex(x=[i, i + 1.0]) for i in range(4)],
                                                     dtype=object)).map(parse)
    got = [e["x"].tolist() for e in ds.as_numpy_iterator()]
    assert got == [[i, i + 1.0] for i in range(4)] and len(calls) == 1


def test_string_and_scalar_defaults_as_imagenet_pipelines_declare_them():
    recs = [_ex(a=[3]), _ex(a=[4], enc=np.array([b"jpg"], dtype=object))]
    feats = {"image/encoded": tf.io.FixedLenFeature([], tf.string, default_value=""),
             "enc": tf.io.FixedLenFeature([], tf.string, default_value=""),
             "label": tf.io.FixedLenFeature([], tf.int64, default_value=-1),
             "bbox": tf.io.VarLenFeature(tf.float32)}
    batch = _run(tf.io.parse_example(tf.constant(recs, dtype=tf.string), feats))
    assert batch["enc"].tolist() == [b"", b"jpg"]
    assert batch["image/encoded"].tolist() == [b"", b""]
    one = _run(tf.io.parse_single_example(tf.constant(recs[1], dtype=tf.string), feats))
    # a 0-d fetch is a numpy scalar, as TF's Session.run returns it
    assert type(one["label"]) is np.int64 and one["label"] == -1
    assert one["enc"] == b"jpg" and one["bbox"].values.shape == (0,)


def test_var_len_features_parsed_per_record_then_batched_as_tf_batches_sparse():
    recs = np.array([_ex(t=[1, 2], x=[0.5]), _ex(t=np.zeros(0, np.int64), x=[1.5]), _ex(t=[7], x=[2.5])],
                    dtype=object)
    feats = {"t": tf.io.VarLenFeature(tf.int64), "x": tf.io.FixedLenFeature([1], tf.float32)}
    ds = tf.data.Dataset.from_tensor_slices(recs).map(
        lambda s: tf.io.parse_single_example(s, feats)).batch(3)
    assert ds.output_shapes["t"].indices.as_list() == [None, 2]
    nxt = ds.make_one_shot_iterator().get_next()
    assert isinstance(nxt["t"], tf.SparseTensor)
    dense = tf.sparse_tensor_to_dense(nxt["t"], default_value=-1)
    with tf.Session() as sess:
        got, d = sess.run([nxt, dense])
    assert got["t"].indices.tolist() == [[0, 0], [0, 1], [2, 0]]
    assert got["t"].values.tolist() == [1, 2, 7] and got["t"].dense_shape.tolist() == [3, 2]
    assert d.tolist() == [[1, 2], [-1, -1], [7, -1]]
    np.testing.assert_array_equal(got["x"], [[0.5], [1.5], [2.5]])
