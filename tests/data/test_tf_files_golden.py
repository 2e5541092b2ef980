"""Our TFRecord files and Example protos against those real TF 2.15 wrote
(``tools/record_tfdata_golden.py``): byte equality of what we write, value equality of
what we parse."""
import base64

import numpy as np
import pytest

import estimator_npu as tf
from tests.data import tfdata_golden as G

GOLD = G.load()
RECORDS = [base64.b64decode(r) for r in GOLD["records_b64"]]


@pytest.mark.parametrize("name,ctype", [("plain", None), ("gzip", "GZIP"),
                                        ("zlib", "ZLIB")])
def test_written_tfrecord_files_are_byte_identical_to_tf(tmp_path, name, ctype):
    path = tmp_path / f"{name}.tfrecord"
    opts = tf.io.TFRecordOptions(compression_type=ctype) if ctype else None
    with tf.io.TFRecordWriter(str(path), opts) as w:
        for r in RECORDS:
            w.write(r)
    assert path.read_bytes() == (G.GOLDEN / f"{name}.tfrecord").read_bytes()


@pytest.mark.parametrize("name,ctype", [("plain", ""), ("gzip", "GZIP"), ("zlib", "ZLIB")])
def test_tf_written_tfrecord_files_read_back(name, ctype):
    path = str(G.GOLDEN / f"{name}.tfrecord")
    assert list(tf.python_io.tf_record_iterator(
        path, tf.python_io.TFRecordOptions(ctype))) == RECORDS
    ds = tf.data.TFRecordDataset(path, compression_type=ctype, buffer_size=7)
    assert [r[()] for r in ds.as_numpy_iterator()] == RECORDS


def _examples():
    # The recorder's examples, rebuilt from the same seeds.
    rng = np.random.RandomState(1)
    out = []
    for i in range(5):
        feature = {
            "image": tf.train.Feature(float_list=tf.train.FloatList(
                value=rng.rand(6).astype(np.float32).tolist())),
            "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i * 37 - 50])),
            "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"ex%d" % i])),
            "tags": tf.train.Feature(int64_list=tf.train.Int64List(value=list(range(i)))),
        }
        if i % 2 == 0:
            feature["weight"] = tf.train.Feature(float_list=tf.train.FloatList(
                value=[0.5 * i]))
        out.append(tf.train.Example(features=tf.train.Features(feature=feature)))
    return out


def _sequence_examples():
    out = []
    for i in range(3):
        tokens = tf.train.FeatureList(feature=[
            tf.train.Feature(int64_list=tf.train.Int64List(value=[t * 3 + i]))
            for t in range(i + 2)])
        ragged = tf.train.FeatureList(feature=[
            tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"w"] * t))
            for t in range(i + 1)])
        vec = tf.train.FeatureList(feature=[
            tf.train.Feature(float_list=tf.train.FloatList(value=[t, -t * 0.25]))
            for t in range(i + 2)])
        out.append(tf.train.SequenceExample(
            context=tf.train.Features(feature={
                "length": tf.train.Feature(int64_list=tf.train.Int64List(value=[i + 2])),
                "id": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"s%d" % i]))}),
            feature_lists=tf.train.FeatureLists(feature_list={
                "tokens": tokens, "ragged": ragged, "vec": vec})))
    return out


@pytest.mark.parametrize("fname,build", [("examples", _examples),
                                         ("sequence_examples", _sequence_examples)])
def test_serialized_examples_are_byte_identical_to_tf(fname, build):
    # Deterministic serialization (map keys sorted) is byte-identical to TF's; the
    # default form orders map entries by the protobuf runtime's hash table, which
    # differs between protobuf versions, so there only the parsed messages compare.
    ours = [e.SerializeToString(deterministic=True).hex() for e in build()]
    assert ours == GOLD[f"{fname}_deterministic_hex"]
    tf_records = list(tf.python_io.tf_record_iterator(str(G.GOLDEN / f"{fname}.tfrecord")))
    cls = type(build()[0])
    assert [cls.FromString(r) for r in tf_records] == build()


def test_single_feature_example_bytes_equal_tf_default_serialization():
    # One map entry: no ordering question, the default bytes match TF's too.
    ex = tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0, 2.0]))}))
    tf_bytes = "0a130a110a0178120c120a0a080000803f00000040"  # TF 2.15's bytes
    assert ex.SerializeToString().hex() == tf_bytes


FEATURES = {"image": tf.io.FixedLenFeature([2, 3], tf.float32),
            "label": tf.io.FixedLenFeature([], tf.int64),
            "name": tf.io.FixedLenFeature([], tf.string),
            "weight": tf.io.FixedLenFeature([1], tf.float32, default_value=[-1.0]),
            "tags": tf.io.VarLenFeature(tf.int64)}


def _check(parsed, golden):
    assert sorted(parsed) == sorted(golden)
    for k, v in parsed.items():
        if "indices" in golden[k]:
            G.assert_sparse_equal(v, golden[k])
        else:
            G.assert_value_equal(v, golden[k])


def test_parse_example_of_tf_records_equals_tf():
    ds = tf.data.TFRecordDataset(str(G.GOLDEN / "examples.tfrecord")).batch(5).map(
        lambda s: tf.io.parse_example(s, FEATURES))
    with tf.Session() as sess:
        parsed = sess.run(ds.make_one_shot_iterator().get_next())
    _check(parsed, GOLD["parse_example"])


def test_parse_single_example_of_tf_record_equals_tf():
    ds = tf.data.TFRecordDataset(str(G.GOLDEN / "examples.tfrecord")).skip(3).map(
        lambda s: tf.io.parse_single_example(s, FEATURES))
    with tf.Session() as sess:
        parsed = sess.run(ds.make_one_shot_iterator().get_next())
    _check(parsed, GOLD["parse_single_example_3"])


def test_parse_single_sequence_example_equals_tf():
    rec = list(tf.python_io.tf_record_iterator(
        str(G.GOLDEN / "sequence_examples.tfrecord")))[2]
    ctx, seq = tf.io.parse_single_sequence_example(
        tf.constant(rec, dtype=tf.string),
        context_features={"length": tf.io.FixedLenFeature([], tf.int64),
                          "id": tf.io.FixedLenFeature([], tf.string)},
        sequence_features={"tokens": tf.io.FixedLenSequenceFeature([], tf.int64),
                           "vec": tf.io.FixedLenSequenceFeature([2], tf.float32),
                           "ragged": tf.io.VarLenFeature(tf.string)})
    with tf.Session() as sess:
        c, q = sess.run([ctx, seq])
    _check(c, GOLD["sequence_context"])
    _check(q, GOLD["sequence_features"])


def test_serialize_tensor_bytes_and_parse_tensor_equal_tf():
    with tf.Session() as sess:
        for key, hexed in GOLD["serialize_tensor_hex"].items():
            value = G.dec(GOLD["tensors"][key])
            dt = tf.string if value.dtype == object else tf.as_dtype(value.dtype)
            t = tf.constant(value, dtype=dt)
            got = sess.run(tf.io.serialize_tensor(t))
            assert np.asarray(got, object)[()].hex() == hexed, key
            back = sess.run(tf.io.parse_tensor(tf.constant(bytes.fromhex(hexed),
                                                           dtype=tf.string), dt))
            G.assert_value_equal(back, GOLD["tensors"][key])


def test_decode_raw_equals_tf():
    with tf.Session() as sess:
        got = sess.run(tf.io.decode_raw(tf.constant([b"\x01\x00\x02\x00", b"\xff\xff\x00\x80"],
                                                    dtype=tf.string), tf.int16))
    G.assert_value_equal(got, GOLD["decode_raw"])


# ---------------------------------------------------------------- text, CSV, strings
TEXT = GOLD["text"]
CSV_LINES = ["1,2.5,abc,7", '-3,,"q,""x""",8', "4,1e3,,9", "0,-0.5,z,10"]


def _s(values):
    return tf.constant(np.array(values, dtype=object), dtype=tf.string)


def test_decode_csv_equals_tf():
    with tf.Session() as sess:
        cols = sess.run(tf.io.decode_csv(_s(CSV_LINES),
                                         [[0], [-1.0], ["none"], [np.int64(0)]]))
        sel = sess.run(tf.io.decode_csv(_s(CSV_LINES), [[0.0], ["d"]], select_cols=[1, 2]))
    for got, want in zip(cols, TEXT["decode_csv"]):
        G.assert_value_equal(got, want)
    for got, want in zip(sel, TEXT["decode_csv_select"]):
        G.assert_value_equal(got, want)


def test_string_ops_equal_tf():
    words = _s(["hello  world", " a b ", "", "x"])
    ops = {
        "strings_split": tf.strings.split(words),
        "strings_split_sep": tf.strings.split(_s(["a,,b", "c"]), sep=","),
        "string_split": tf.string_split(_s(["a,b;c", ";;d"]), ",;"),
        "string_split_keep": tf.string_split(_s(["a,,b"]), ",", skip_empty=False),
        "to_number": tf.strings.to_number(_s(["1.5", "-2", "1e-3", " 7"])),
        "to_int64": tf.strings.to_number(_s(["12", "-9"]), tf.int64),
        "length": tf.strings.length(_s(["", "ab", "\u00e9t\u00e9"])),
        "length_chars": tf.strings.length(_s(["\u00e9t\u00e9"]), unit="UTF8_CHAR"),
        "join": tf.strings.join([_s(["a", "b"]), _s("-"), _s(["c", "d"])], separator="+"),
    }
    with tf.Session() as sess:
        got = sess.run(ops)
    for k, v in got.items():
        if "indices" in TEXT[k]:
            G.assert_sparse_equal(v, TEXT[k])
        else:
            G.assert_value_equal(v, TEXT[k])


def test_text_and_csv_datasets_equal_tf():
    lines = [x[()] for x in tf.data.TextLineDataset(str(G.GOLDEN / "lines.txt"))
             .as_numpy_iterator()]
    G.assert_value_equal(np.array(lines, dtype=object), TEXT["text_lines"])
    rows = list(tf.data.experimental.CsvDataset(str(G.GOLDEN / "table.csv"),
                                                [[0], [0.0], [""], [0]], header=True)
                .as_numpy_iterator())
    assert len(rows) == len(TEXT["csv_dataset"])
    for row, want in zip(rows, TEXT["csv_dataset"]):
        for c, w in zip(row, want):
            G.assert_value_equal(c, w)
    ds = tf.data.experimental.make_csv_dataset(str(G.GOLDEN / "table.csv"), batch_size=4,
                                               num_epochs=1, shuffle=False, label_name="c")
    feats, label = next(ds.as_numpy_iterator())
    want = TEXT["make_csv_dataset"]
    assert list(feats) == want["feature_order"]
    for k, v in feats.items():
        G.assert_value_equal(v, want["features"][k])
    G.assert_value_equal(label, want["label"])



def test_large_gzip_file_crossing_tf_buffer_boundaries_is_byte_identical(tmp_path):
    big = [(b"%08d|" % i) * (40 + i % 50) for i in range(1200)]   # 0.7 MB uncompressed
    path = tmp_path / "big.gz.tfrecord"
    with tf.io.TFRecordWriter(str(path), "GZIP") as w:
        for r in big:
            w.write(r)
    golden = G.GOLDEN / "big.gz.tfrecord"
    assert path.read_bytes() == golden.read_bytes()
    assert list(tf.python_io.tf_record_iterator(str(golden), "GZIP")) == big


def test_parallel_reads_and_interleave_order_equals_tf(tmp_path):
    files = []
    for k, n in {"a": 1, "b": 3, "c": 2, "d": 2, "e": 4}.items():
        files.append(str(tmp_path / f"{k}.tfrecord"))
        with tf.io.TFRecordWriter(files[-1]) as w:
            for j in range(n):
                w.write(f"{k}{j}".encode())
    cases = {f"num_parallel_reads={n}": tf.data.TFRecordDataset(files, num_parallel_reads=n)
             for n in (2, 3)}
    cases["interleave(cycle_length=3, block_length=2)"] = \
        tf.data.Dataset.from_tensor_slices(files).interleave(
            tf.data.TFRecordDataset, cycle_length=3, block_length=2)
    for key, ds in cases.items():
        assert [r[()].decode() for r in ds.as_numpy_iterator()] == GOLD["parallel_reads"][key]
