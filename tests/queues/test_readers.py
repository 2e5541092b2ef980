"""Readers beyond the TF goldens: compressed TFRecords parsed into batches, whole files
decoded as images, reset, and the errors a wrong argument or a missing file gives."""
import io

import numpy as np
import pytest
from PIL import Image

import estimator_npu as tf


def _drain(sess, fetch):
    out = []
    try:
        while True:
            out.append(sess.run(fetch))
    except tf.errors.OutOfRangeError:
        return out


def _run(fetch):
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        out = _drain(sess, fetch)
        coord.request_stop()
        coord.join(threads)
    return out


def test_zlib_tfrecords_parsed_and_shuffle_batched(tmp_path):
    path = str(tmp_path / "z.tfrecord")
    opts = tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.ZLIB)
    with tf.python_io.TFRecordWriter(path, options=opts) as w:
        for i in range(9):
            ex = tf.train.Example(features=tf.train.Features(feature={
                "x": tf.train.Feature(float_list=tf.train.FloatList(value=[i, i + 0.5])),
                "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[i]))}))
            w.write(ex.SerializeToString())
    files = tf.train.string_input_producer([path], num_epochs=1, shuffle=False)
    _, serialized = tf.TFRecordReader(options=opts).read(files)
    f = tf.parse_single_example(serialized, {"x": tf.FixedLenFeature([2], tf.float32),
                                             "y": tf.FixedLenFeature([], tf.int64)})
    xb, yb = tf.train.shuffle_batch([f["x"], f["y"]], batch_size=4, capacity=10,
                                    min_after_dequeue=2, num_threads=3,
                                    allow_smaller_final_batch=True)
    batches = _run([xb, yb])
    assert [len(b[1]) for b in batches] == [4, 4, 1]
    rows = sorted(zip(np.concatenate([b[1] for b in batches]).tolist(),
                      np.concatenate([b[0] for b in batches]).tolist()))
    assert rows == [(i, [i, i + 0.5]) for i in range(9)]


def test_whole_file_reader_feeds_an_image_decoder(tmp_path):
    buf = io.BytesIO()
    Image.fromarray(np.arange(60, dtype=np.uint8).reshape(4, 5, 3)).save(buf, format="PNG")
    (tmp_path / "a.png").write_bytes(buf.getvalue())
    files = tf.train.string_input_producer([str(tmp_path / "a.png")], num_epochs=1)
    key, raw = tf.WholeFileReader().read(files)
    images = _run(tf.image.decode_png(raw, channels=3))
    assert len(images) == 1
    np.testing.assert_array_equal(images[0], np.arange(60).reshape(4, 5, 3))


def test_reset_clears_the_counters(tmp_path):
    (tmp_path / "t.txt").write_bytes(b"a\nb\nc\n")
    files = tf.train.string_input_producer([str(tmp_path / "t.txt")], shuffle=False)
    reader = tf.TextLineReader()
    _, value = reader.read(files)
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        assert [sess.run(value) for _ in range(2)] == [b"a", b"b"]
        assert sess.run(reader.num_records_produced()) == 2
        sess.run(reader.reset())
        assert sess.run([reader.num_records_produced(),
                         reader.num_work_units_completed()]) == [0, 0]
        assert sess.run(value) == b"a"     # a reset reader takes a new work unit
        coord.request_stop()
        coord.join(threads)


def test_reader_errors():
    with pytest.raises(TypeError, match="reads its work from a queue"):
        tf.TextLineReader().read(tf.constant(["a.txt"]))
    with pytest.raises(ValueError, match="record_bytes"):
        tf.FixedLengthRecordReader(0)
    with pytest.raises(NotImplementedError, match="serialize_state"):
        tf.WholeFileReader().serialize_state()
