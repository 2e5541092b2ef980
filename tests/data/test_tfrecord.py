"""TFRecord reading and writing: framing, compression, corrupt files, file datasets."""
import pathlib
import struct

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.data import tfrecord


def _write(path, records, ctype=None):
    with tf.io.TFRecordWriter(str(path), tf.io.TFRecordOptions(ctype)) as w:
        for r in records:
            w.write(r)
    return str(path)


def _offsets(data):
    out, off = [], 0
    while off < len(data):
        out.append(off)
        off += 16 + struct.unpack_from("<Q", data, off)[0]
    return out


def _run_all(ds):
    out = []
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        while True:
            try:
                out.append(sess.run(nxt))
            except tf.errors.OutOfRangeError:
                return out


RECS = [b"rec%d" % i * (i + 1) for i in range(5)]


def test_framing_is_length_crc_data_crc(tmp_path):
    path = _write(tmp_path / "a", [b"abc"])
    data = pathlib.Path(path).read_bytes()
    assert data[:8] == struct.pack("<Q", 3)
    assert struct.unpack("<I", data[8:12])[0] == tfrecord.masked_crc32c(data[:8])
    assert data[12:15] == b"abc"
    assert struct.unpack("<I", data[15:])[0] == tfrecord.masked_crc32c(b"abc")


@pytest.mark.parametrize("ctype", [None, "GZIP", "ZLIB"])
def test_round_trip_with_compression(tmp_path, ctype):
    path = _write(tmp_path / "a", RECS, ctype)
    assert list(tf.python_io.tf_record_iterator(path, tf.io.TFRecordOptions(ctype))) == RECS
    assert _run_all(tf.data.TFRecordDataset(path, compression_type=ctype or "")) == RECS


def test_enum_compression_names(tmp_path):
    path = _write(tmp_path / "a", RECS, tf.python_io.TFRecordCompressionType.GZIP)
    assert pathlib.Path(path).read_bytes()[:2] == b"\x1f\x8b"
    with pytest.raises(ValueError, match="compression_type"):
        tf.data.TFRecordDataset(path, compression_type="LZ4")


def test_flipped_data_byte_names_file_and_offset(tmp_path):
    path = _write(tmp_path / "a", RECS)
    data = bytearray(pathlib.Path(path).read_bytes())
    off = _offsets(data)[2]
    data[off + 12] ^= 1
    pathlib.Path(path).write_bytes(data)
    with pytest.raises(tf.errors.DataLossError, match=rf"{path}.*byte offset {off + 12}"):
        _run_all(tf.data.TFRecordDataset(path))
    with pytest.raises(tf.errors.DataLossError, match=rf"byte offset {off + 12}"):
        list(tf.python_io.tf_record_iterator(path))


def test_flipped_length_byte_names_record_offset(tmp_path):
    path = _write(tmp_path / "a", RECS)
    data = bytearray(pathlib.Path(path).read_bytes())
    off = _offsets(data)[3]
    data[off + 1] ^= 4
    pathlib.Path(path).write_bytes(data)
    with pytest.raises(tf.errors.DataLossError, match=rf"{path}.*byte offset {off}\b.*length"):
        _run_all(tf.data.TFRecordDataset(path))


def test_truncated_record_names_file_and_offset(tmp_path):
    path = _write(tmp_path / "a", RECS)
    data = pathlib.Path(path).read_bytes()
    off = _offsets(data)[4]
    pathlib.Path(path).write_bytes(data[:off + 14])  # inside the last record's data
    with pytest.raises(tf.errors.DataLossError, match=rf"{path}: truncated record at "
                                                      rf"byte offset {off}"):
        _run_all(tf.data.TFRecordDataset(path))


def test_file_ending_inside_a_header_ends_it_as_tf_does(tmp_path):
    path = _write(tmp_path / "a", RECS)
    data = pathlib.Path(path).read_bytes()
    pathlib.Path(path).write_bytes(data[:_offsets(data)[4] + 5])
    assert _run_all(tf.data.TFRecordDataset(path)) == RECS[:4]


def test_missing_file_is_not_found_naming_it(tmp_path):
    path = str(tmp_path / "nope.tfrecord")
    with pytest.raises(tf.errors.NotFoundError, match="nope.tfrecord"):
        _run_all(tf.data.TFRecordDataset(path))


def test_truncated_gzip_stream_is_data_loss(tmp_path):
    path = _write(tmp_path / "a", RECS * 20, "GZIP")
    data = pathlib.Path(path).read_bytes()
    pathlib.Path(path).write_bytes(data[:-9])
    with pytest.raises(tf.errors.DataLossError, match="GZIP"):
        _run_all(tf.data.TFRecordDataset(path, "GZIP"))


def test_ignore_errors_skips_the_rest_of_a_corrupt_file(tmp_path):
    # As TF 2.15: the records before the corrupt one, then the next file.
    bad = _write(tmp_path / "bad", RECS)
    data = bytearray(pathlib.Path(bad).read_bytes())
    data[_offsets(data)[2] + 12] ^= 1
    pathlib.Path(bad).write_bytes(data)
    good = _write(tmp_path / "good", RECS)
    ds = tf.data.TFRecordDataset([bad, good]).apply(tf.data.experimental.ignore_errors())
    assert _run_all(ds) == RECS[:2] + RECS
    # through a map too: the error surfaces from the map's input, the map goes on
    ds = tf.data.TFRecordDataset([bad, good]).map(tf.strings.length).ignore_errors()
    assert _run_all(ds) == [len(r) for r in RECS[:2] + RECS]


def test_num_parallel_reads_interleaves_files_one_record_each(tmp_path):
    a = _write(tmp_path / "a", [b"a0", b"a1", b"a2"])
    b = _write(tmp_path / "b", [b"b0"])
    c = _write(tmp_path / "c", [b"c0", b"c1"])
    got = _run_all(tf.data.TFRecordDataset([a, b, c], num_parallel_reads=2))
    # TF 2.15's order: b's freed slot is taken by c when the cycle comes back to it
    assert got == [b"a0", b"b0", b"a1", b"a2", b"c0", b"c1"]


def test_filenames_from_a_placeholder_and_from_interleave(tmp_path):
    files = [_write(tmp_path / f"f{i}", [b"%d-%d" % (i, j) for j in range(3)])
             for i in range(3)]
    ph = tf.placeholder(tf.string, [None])
    it = tf.data.TFRecordDataset(ph).make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as sess:
        sess.run(it.initializer, {ph: files[1:]})
        assert [sess.run(nxt) for _ in range(6)] == [b"1-0", b"1-1", b"1-2", b"2-0",
                                                         b"2-1", b"2-2"]
    ds = tf.data.Dataset.from_tensor_slices(files).interleave(
        lambda f: tf.data.TFRecordDataset(f), cycle_length=2, block_length=2)
    assert _run_all(ds) == [b"0-0", b"0-1", b"1-0", b"1-1", b"0-2", b"1-2", b"2-0",
                            b"2-1", b"2-2"]


def test_list_files_sorted_shuffled_seeded_and_sharded(tmp_path):
    for i in range(6):
        _write(tmp_path / f"part-{i}.tfrecord", [b"x"])
    pattern = str(tmp_path / "part-*.tfrecord")
    names = [str(tmp_path / f"part-{i}.tfrecord").encode() for i in range(6)]
    assert _run_all(tf.data.Dataset.list_files(pattern, shuffle=False)) == names
    shuffled = _run_all(tf.data.Dataset.list_files(pattern, seed=3))
    assert sorted(shuffled) == names and shuffled != names
    assert _run_all(tf.data.Dataset.list_files(pattern, seed=3)) == shuffled
    shards = [_run_all(tf.data.Dataset.list_files(pattern, shuffle=False).shard(3, i))
              for i in range(3)]
    assert shards == [names[0::3], names[1::3], names[2::3]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="nothing-here"):
        _run_all(tf.data.Dataset.list_files(str(tmp_path / "nothing-here*")))


def test_writer_accepts_str_records_and_flush(tmp_path):
    path = str(tmp_path / "a")
    w = tf.python_io.TFRecordWriter(path, "GZIP")
    w.write("héllo")
    w.flush()
    w.write(b"x")
    w.close()
    assert list(tf.python_io.tf_record_iterator(path, "GZIP")) == ["héllo".encode(), b"x"]


def test_large_records_across_buffer_boundaries(tmp_path):
    rng = np.random.default_rng(0)
    recs = [rng.bytes(int(n)) for n in rng.integers(0, 5000, 40)]
    path = _write(tmp_path / "a", recs, "ZLIB")
    ds = tf.data.TFRecordDataset(path, "ZLIB", buffer_size=100)
    assert _run_all(ds) == recs


def test_filenames_as_a_dataset_and_parallel_interleave(tmp_path):
    files = [_write(tmp_path / f"f{i}", [b"%d-%d" % (i, j) for j in range(2)])
             for i in range(2)]
    ds = tf.data.TFRecordDataset(tf.data.Dataset.from_tensor_slices(files))
    assert _run_all(ds) == [b"0-0", b"0-1", b"1-0", b"1-1"]
    ds = tf.data.Dataset.from_tensor_slices(files).apply(
        tf.data.experimental.parallel_interleave(tf.data.TFRecordDataset, cycle_length=2,
                                                 sloppy=True))
    assert _run_all(ds) == [b"0-0", b"1-0", b"0-1", b"1-1"]
    with pytest.raises(TypeError, match="filenames"):
        tf.data.TFRecordDataset(tf.data.Dataset.range(3))


def test_experimental_tfrecord_writer_writes_a_dataset(tmp_path):
    path = str(tmp_path / "out.tfrecord")
    ds = tf.data.Dataset.from_tensor_slices(np.array(RECS, dtype=object))
    op = tf.data.experimental.TFRecordWriter(path, "GZIP").write(ds)
    with tf.Session() as sess:
        sess.run(op)
    assert list(tf.python_io.tf_record_iterator(path, "GZIP")) == RECS
    with pytest.raises(TypeError, match="scalar string"):
        tf.data.experimental.TFRecordWriter(path).write(tf.data.Dataset.range(3))
