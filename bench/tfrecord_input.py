"""TFRecord input throughput (issue 20, acceptance 6), run by ``bench/input_pipeline.py
--tfrecord`` (or directly: ``python bench/tfrecord_input.py``).

Workload: 20,000 serialized ``tf.train.Example``s (784 float32 ``image`` + int64
``label``, ~3.2 kB each) in one TFRecord file. Times, alternately in this process:

* reading: a plain Python loop over the file's records (read the file, unpack each
  length, slice out the data; no crc check) against ``tf_record_iterator`` and
  ``TFRecordDataset`` (which verify both crc32c of every record). Target >= 0.7x.
* parsing a batch of 128: a Python loop that parses each record with the protobuf
  runtime and stacks the values, against ``parse_example`` after ``batch`` (the
  vectorised path), and the whole pipeline ``TFRecordDataset.batch(128).map(
  parse_example)`` pulled with ``sess.run(get_next)``.
"""
import os
import struct
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import estimator_npu as tf  # noqa: E402
from _common import alternate, print_table  # noqa: E402

N, D, BATCH = 20000, 784, 128
FEATURES = {"image": tf.io.FixedLenFeature([D], tf.float32),
            "label": tf.io.FixedLenFeature([], tf.int64)}


def write_file(path, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.random((N, D), dtype=np.float32)
    y = rng.integers(0, 10, N)
    with tf.io.TFRecordWriter(path) as w:
        for i in range(N):
            w.write(tf.train.Example(features=tf.train.Features(feature={
                "image": tf.train.Feature(float_list=tf.train.FloatList(value=x[i])),
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[y[i]]))}))
                .SerializeToString())


def plain_loop(path):
    with open(path, "rb") as f:
        data = f.read()
    out, pos, unpack = [], 0, struct.unpack_from
    while pos < len(data):
        (n,) = unpack("<Q", data, pos)
        out.append(data[pos + 12:pos + 12 + n])
        pos += 16 + n
    return out


def our_iterator(path):
    return list(tf.python_io.tf_record_iterator(path))


def our_dataset(path):
    return list(tf.data.TFRecordDataset(path).as_numpy_iterator())


def python_parse(records):
    xs = np.empty((len(records), D), np.float32)
    ys = np.empty(len(records), np.int64)
    for i, r in enumerate(records):
        f = tf.train.Example.FromString(r).features.feature
        xs[i] = f["image"].float_list.value
        ys[i] = f["label"].int64_list.value[0]
    return xs, ys


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "data.tfrecord")
        write_file(path)
        size = os.path.getsize(path)
        assert len(our_iterator(path)) == len(plain_loop(path)) == N
        t = alternate([("plain", lambda: plain_loop(path)),
                       ("iterator", lambda: our_iterator(path)),
                       ("dataset", lambda: our_dataset(path))], n=1, reps=7)
        rows = [("plain Python loop (no crc)", f"{N / t['plain']:,.0f}", "1.00x"),
                ("tf_record_iterator (crc checked)", f"{N / t['iterator']:,.0f}",
                 f"{t['plain'] / t['iterator']:.2f}x"),
                ("TFRecordDataset elements (crc checked)", f"{N / t['dataset']:,.0f}",
                 f"{t['plain'] / t['dataset']:.2f}x")]
        print(f"reading {N} records, {size / 1e6:.1f} MB; records/s, median")
        print_table(rows, ["case", "records/s", "vs plain loop (target >= 0.7x)"])

        records = plain_loop(path)[:BATCH]
        batch_t = tf.constant(np.array(records, dtype=object), dtype=tf.string)
        parsed = tf.io.parse_example(batch_t, FEATURES)
        g = tf.get_default_graph()
        ds = tf.data.TFRecordDataset(path).repeat().batch(BATCH).map(
            lambda s: tf.io.parse_example(s, FEATURES))
        nxt = ds.make_one_shot_iterator().get_next()
        with tf.Session(graph=g) as sess:
            want = python_parse(records)
            got = sess.run(parsed)
            assert (got["image"] == want[0]).all() and (got["label"] == want[1]).all()
            t = alternate([("python", lambda: python_parse(records)),
                           ("parse_example", lambda: sess.run(parsed)),
                           ("pipeline", lambda: sess.run(nxt))], n=20, reps=7)
        rows = [("Python loop: protobuf parse + stack", f"{t['python'] * 1e6:,.0f}", "1.00x"),
                ("parse_example after batch", f"{t['parse_example'] * 1e6:,.0f}",
                 f"{t['python'] / t['parse_example']:.2f}x"),
                ("TFRecordDataset.batch.map(parse_example)", f"{t['pipeline'] * 1e6:,.0f}",
                 f"{t['python'] / t['pipeline']:.2f}x")]
        print(f"\nparsing a batch of {BATCH} Examples ({D} floats + label); µs per batch")
        print_table(rows, ["case", "µs/batch", "speed vs Python loop"])


if __name__ == "__main__":
    main()
