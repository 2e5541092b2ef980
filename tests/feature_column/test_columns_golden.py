"""Feature columns against outputs recorded from TF 2.15 (tools/record_tf_feature_columns.py)."""
import json
import pathlib

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.feature_column.fingerprint import hash_bucket

fc = tf.feature_column
GOLDEN = json.loads((pathlib.Path(__file__).parent / "golden_tf215.json").read_text())
ONES = tf.ones_initializer()


def _feats():
    out = {}
    for k, v in GOLDEN["features"].items():
        a = np.array(v)
        out[k] = a.astype(np.float32) if a.dtype.kind == "f" else (
            a.astype(np.int64) if a.dtype.kind == "i" else a)
    return out


def _cols():
    color = fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"])
    color_oov = fc.categorical_column_with_vocabulary_list("color", ["red", "green"],
                                                           num_oov_buckets=2)
    tags = fc.categorical_column_with_vocabulary_list("tags", ["a", "b", "c"])
    level = fc.categorical_column_with_identity("level", 4)
    city = fc.categorical_column_with_hash_bucket("city", 7)
    age_b = fc.bucketized_column(fc.numeric_column("age"), [30.0, 50.0, 65.0])
    cross = fc.crossed_column([age_b, "city"], 11)
    cross2 = fc.crossed_column(["color", "city"], 13)
    weighted = fc.weighted_categorical_column(level, "wt")
    return {
        "numeric": [fc.numeric_column("age")],
        "numeric_norm": [fc.numeric_column("age", normalizer_fn=lambda x: (x - 40.0) / 10.0)],
        "numeric_shape": [fc.numeric_column("xy", shape=(2,))],
        "bucketized": [age_b],
        "indicator_vocab": [fc.indicator_column(color)],
        "indicator_oov": [fc.indicator_column(color_oov)],
        "indicator_multi": [fc.indicator_column(tags)],
        "indicator_identity": [fc.indicator_column(level)],
        "indicator_hash": [fc.indicator_column(city)],
        "indicator_cross": [fc.indicator_column(cross)],
        "indicator_cross_strings": [fc.indicator_column(cross2)],
        "indicator_weighted": [fc.indicator_column(weighted)],
        "embedding_mean": [fc.embedding_column(tags, 3, initializer=ONES)],
        "embedding_sum": [fc.embedding_column(tags, 2, combiner="sum", initializer=ONES)],
        "embedding_sqrtn": [fc.embedding_column(tags, 2, combiner="sqrtn", initializer=ONES)],
        "embedding_weighted": [fc.embedding_column(weighted, 2, combiner="sum",
                                                   initializer=ONES)],
        "shared": fc.shared_embedding_columns([color, tags], 2, initializer=ONES),
        "mixed": [fc.numeric_column("age"), fc.indicator_column(color),
                  fc.embedding_column(city, 2, initializer=ONES), age_b],
    }


@pytest.mark.parametrize("name", sorted(GOLDEN["input_layer"]))
def test_input_layer_matches_tf(name):
    want = GOLDEN["input_layer"][name]
    with tf.Graph().as_default():
        out = fc.input_layer(_feats(), _cols()[name])
        names = [v.op.name for v in tf.global_variables()]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            got = s.run(out)
    assert names == want["variables"]
    np.testing.assert_allclose(got, np.array(want["value"]), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", sorted(GOLDEN["linear_model"]))
def test_linear_model_matches_tf(name):
    want = GOLDEN["linear_model"][name]
    cols = _cols()[name]
    if name != "mixed":
        cols = [getattr(c, "categorical_column", c) for c in cols]
    with tf.Graph().as_default():
        out = fc.linear_model(_feats(), cols, units=2)
        names = {v.op.name: v.shape.as_list() for v in tf.global_variables()}
        assigns = [v.assign(tf.ones_like(v) * 0.5) for v in tf.global_variables()]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(assigns)
            got = s.run(out)
    assert names == want["variables"]
    np.testing.assert_allclose(got, np.array(want["value"]), rtol=1e-6, atol=1e-6)


def test_hash_bucket_ids_match_tf():
    h = GOLDEN["hash"]
    assert [hash_bucket(s, 1000) for s in h["strings"]] == h["b1000"]
    assert [hash_bucket(str(i), 50) for i in h["ints"]] == h["ints_b50"]


def test_make_parse_example_spec():
    cols = [fc.numeric_column("age", shape=(2,), default_value=0.0),
            fc.indicator_column(fc.categorical_column_with_hash_bucket("city", 5))]
    spec = fc.make_parse_example_spec(cols)
    assert spec["age"] == fc.FixedLenFeature((2,), tf.float32, 0.0)
    assert spec["city"] == fc.VarLenFeature(tf.string)


def test_bad_inputs_name_the_column_and_file(tmp_path):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="'age'"):
            fc.input_layer({"x": np.zeros((2, 1), np.float32)}, [fc.numeric_column("age")])
        with pytest.raises(ValueError, match="'age'.*dtype string"):
            fc.input_layer({"age": np.array([["a"], ["b"]])}, [fc.numeric_column("age")])
    missing = str(tmp_path / "vocab.txt")
    with pytest.raises(ValueError, match="vocab.txt"):
        fc.categorical_column_with_vocabulary_file("w", missing)


def test_vocabulary_file_and_embedding_gradient(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("red\ngreen\nblue\n")
    col = fc.categorical_column_with_vocabulary_file("color", str(path))
    emb = fc.embedding_column(col, 2, initializer=ONES)
    with tf.Graph().as_default():
        out = fc.input_layer(_feats(), [emb, fc.indicator_column(col)])
        var = tf.global_variables()[0]
        grad = tf.gradients(tf.reduce_sum(out), [var])[0]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            v, g = s.run([out, grad])
    # rows red, blue, green, pink(oov -> zero embedding)
    np.testing.assert_allclose(v[:, 2:], [[1, 0, 0], [0, 0, 1], [0, 1, 0], [0, 0, 0]])
    np.testing.assert_allclose(v[3, :2], [0, 0])
    np.testing.assert_allclose(np.asarray(g), [[1, 1], [1, 1], [1, 1]])


def test_sparse_tensor_features_match_their_dense_form():
    tags = fc.categorical_column_with_vocabulary_list("tags", ["a", "b", "c"])
    cols = [fc.indicator_column(tags), fc.embedding_column(tags, 2, combiner="sum",
                                                           initializer=ONES)]
    dense = _feats()["tags"]                      # [["a","b"],["b",""],["c","a"],["",""]]
    sp = tf.SparseTensorValue(indices=np.array([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1]]),
                              values=np.array(["a", "b", "b", "c", "a"], dtype=object),
                              dense_shape=np.array([4, 2]))
    outs = []
    for value in (dense, sp):
        with tf.Graph().as_default():
            out = fc.input_layer({"tags": value if value is dense else
                                  tf.SparseTensor.from_value(value)}, cols)
            with tf.Session() as s:
                s.run(tf.global_variables_initializer())
                outs.append(s.run(out))
    np.testing.assert_allclose(outs[0], outs[1])
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="SparseTensor is not supported. key: tags"):
            fc.input_layer({"tags": sp}, [fc.numeric_column("tags")])
