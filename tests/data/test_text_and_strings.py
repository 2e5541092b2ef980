"""TextLineDataset, CSV (decode_csv, CsvDataset, make_csv_dataset) and tf.strings ops."""
import gzip

import numpy as np
import pytest

import estimator_npu as tf


def _run(fetch, feed=None):
    with tf.Session() as sess:
        return sess.run(fetch, feed)


def test_text_lines_strip_line_endings_and_read_gzip(tmp_path):
    p = tmp_path / "a.txt"
    p.write_bytes(b"one\r\ntwo\n\nthree")
    assert [x[()] for x in tf.data.TextLineDataset(str(p)).as_numpy_iterator()] == \
        [b"one", b"two", b"", b"three"]
    g = tmp_path / "a.txt.gz"
    g.write_bytes(gzip.compress(b"x\ny\n"))
    assert [x[()] for x in tf.data.TextLineDataset(str(g), "GZIP").as_numpy_iterator()] == \
        [b"x", b"y"]


def test_decode_csv_defaults_quotes_and_dtypes():
    cols = _run(tf.decode_csv(tf.constant(["1,2.5,x", '3,,"y,""z"""'], dtype=tf.string),
                              [[0], [9.0], [""]]))
    assert cols[0].dtype == np.int32 and cols[0].tolist() == [1, 3]
    assert cols[1].dtype == np.float32 and cols[1].tolist() == [2.5, 9.0]
    assert cols[2].tolist() == [b"x", b'y,"z"']
    sel = _run(tf.io.decode_csv(tf.constant(["1;2;3"], dtype=tf.string),
                                [np.array([0], np.int64), [0.0]], field_delim=";", select_cols=[0, 2]))
    assert sel[0].dtype == np.int64 and sel[0].tolist() == [1] and sel[1].tolist() == [3.0]


@pytest.mark.parametrize("line,defaults,msg", [
    ("1,2", [[0], [0], [0]], "Expect 3 fields but have 2 in record 0"),
    ("a,2", [[0], [0]], "Field 0 in record 0 is not a valid int32: a"),
    (",2", [[], [0]], "Field 0 is required but missing in record 0"),
])
def test_decode_csv_errors(line, defaults, msg):
    with pytest.raises(tf.errors.InvalidArgumentError, match=msg):
        _run(tf.decode_csv(tf.constant([line], dtype=tf.string), defaults))


def test_csv_dataset_and_make_csv_dataset(tmp_path):
    p = tmp_path / "a.csv"
    p.write_text("x,y,name\n1,2.5,a\n3,4.5,b\n5,6.5,c\n")
    rows = list(tf.data.experimental.CsvDataset(str(p), [[0], [0.0], [""]], header=True)
                .as_numpy_iterator())
    assert [(int(a), float(b), c[()]) for a, b, c in rows] == [(1, 2.5, b"a"), (3, 4.5, b"b"),
                                                               (5, 6.5, b"c")]
    ds = tf.data.experimental.make_csv_dataset(str(p), 2, label_name="y", num_epochs=1,
                                               shuffle=False)
    batches = list(ds.as_numpy_iterator())
    feats, label = batches[0]
    assert list(feats) == ["x", "name"] and feats["x"].tolist() == [1, 3]
    assert label.tolist() == [2.5, 4.5] and batches[1][1].tolist() == [6.5]


def test_strings_split_v1_and_string_split():
    sp = _run(tf.strings.split(tf.constant(["a b  c", "d"], dtype=tf.string)))
    assert sp.indices.tolist() == [[0, 0], [0, 1], [0, 2], [1, 0]]
    assert sp.values.tolist() == [b"a", b"b", b"c", b"d"] and sp.dense_shape.tolist() == [2, 3]
    sp = _run(tf.string_split(tf.constant(["a,b;;c"], dtype=tf.string), ",;"))
    assert sp.values.tolist() == [b"a", b"b", b"c"] and sp.dense_shape.tolist() == [1, 3]
    sp = _run(tf.string_split(tf.constant(["a,,b"], dtype=tf.string), ",", skip_empty=False))
    assert sp.values.tolist() == [b"a", b"", b"b"]
    sp = _run(tf.strings.split(tf.constant(["a,b,c"], dtype=tf.string), sep=",", maxsplit=1))
    assert sp.values.tolist() == [b"a", b"b,c"]


def test_to_number_length_join():
    assert _run(tf.strings.to_number(tf.constant(["1.5", "-2"], dtype=tf.string))).tolist() \
        == [1.5, -2.0]
    n = _run(tf.string_to_number(tf.constant(["7"], dtype=tf.string), tf.int64))
    assert n.dtype == np.int64 and n.tolist() == [7]
    with pytest.raises(tf.errors.InvalidArgumentError, match="could not correctly convert "
                                                             "string: 1x"):
        _run(tf.strings.to_number(tf.constant(["1x"], dtype=tf.string)))
    lens = _run(tf.strings.length(tf.constant(["ab", "", "é"], dtype=tf.string)))
    assert lens.dtype == np.int32 and lens.tolist() == [2, 0, 2]
    assert _run(tf.strings.length(tf.constant(["é"], dtype=tf.string),
                                  unit="UTF8_CHAR")).tolist() == [1]
    j = _run(tf.strings.join([tf.constant(["a", "b"], dtype=tf.string),
                              tf.constant("x", dtype=tf.string)], separator="-"))
    assert j.tolist() == [b"a-x", b"b-x"]


def test_string_ops_in_a_text_pipeline(tmp_path):
    p = tmp_path / "a.txt"
    p.write_text("3 4\n10 20\n")

    def parse(line):
        parts = tf.string_split([line], " ")
        return tf.strings.to_number(parts.values, tf.int32)
    got = [x.tolist() for x in tf.data.TextLineDataset(str(p)).map(parse)
           .as_numpy_iterator()]
    assert got == [[3, 4], [10, 20]]


def test_decode_csv_constant_tensor_defaults_keep_their_dtype():
    cols = _run(tf.decode_csv(tf.constant(["5,x"], dtype=tf.string),
                              [tf.constant([0], tf.int64), tf.constant([""], tf.string)]))
    assert cols[0].dtype == np.int64 and cols[0].tolist() == [5]
    with pytest.raises(TypeError, match="constant"):
        tf.decode_csv(tf.constant(["5"], dtype=tf.string),
                      [tf.placeholder(tf.int64, [1])])


def test_fixed_length_records_with_header_and_footer(tmp_path):
    p = tmp_path / "a.bin"
    p.write_bytes(b"HDR" + b"aabbcc" + b"F")
    ds = tf.data.FixedLengthRecordDataset(str(p), 2, header_bytes=3, footer_bytes=1)
    assert [x[()] for x in ds.as_numpy_iterator()] == [b"aa", b"bb", b"cc"]
    p.write_bytes(b"HDR" + b"aabbc" + b"F")
    with pytest.raises(tf.errors.DataLossError, match=r"a.bin.*byte offset 7"):
        list(ds.as_numpy_iterator())


def test_text_lines_of_several_files_in_parallel_reads(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("a1\na2\na3\n")
    b.write_text("b1\n")
    ds = tf.data.TextLineDataset([str(a), str(b)], num_parallel_reads=2)
    assert [x[()] for x in ds.as_numpy_iterator()] == [b"a1", b"b1", b"a2", b"a3"]
    with pytest.raises(tf.errors.NotFoundError, match="missing.txt"):
        list(tf.data.TextLineDataset(str(tmp_path / "missing.txt")).as_numpy_iterator())


def test_as_string_and_base64_as_tf():
    # expected values as TF 2.15 prints them
    got = _run([tf.strings.as_string([1.5, -2.0]), tf.as_string([3, -4]),
                tf.strings.as_string([True]), tf.strings.as_string([1.25], precision=1),
                tf.strings.as_string([7], width=4, fill="0")])
    assert [g.tolist() for g in got] == [[b"1.500000", b"-2.000000"], [b"3", b"-4"],
                                         [b"true"], [b"1.2"], [b"0007"]]
    enc = _run(tf.io.encode_base64(tf.constant([b"hi?>", b""], dtype=tf.string)))
    assert enc.tolist() == [b"aGk_Pg", b""]
    assert _run(tf.io.decode_base64(tf.constant(enc, dtype=tf.string))).tolist() == \
        [b"hi?>", b""]
    with pytest.raises(tf.errors.InvalidArgumentError, match="base64"):
        _run(tf.io.decode_base64(tf.constant([b"a$bc"], dtype=tf.string)))


def test_base64_at_tf1_top_level():
    # TF1 scripts (pix2pix's export mode) call tf.decode_base64 / tf.encode_base64
    assert tf.decode_base64 is tf.io.decode_base64
    assert tf.encode_base64 is tf.io.encode_base64
    enc = _run(tf.encode_base64(tf.constant([b"\xff\xfe?"], dtype=tf.string), pad=True))
    assert enc.tolist() == [b"__4_"]
    assert _run(tf.decode_base64(tf.constant(enc, dtype=tf.string))).tolist() == [b"\xff\xfe?"]
