"""Summary ops and FileWriter: events read back from the file with an independent parser."""
import glob
import struct
import zlib

import numpy as np
import pytest
from tensorboardX.proto.event_pb2 import Event

import estimator_npu as tf
from estimator_npu import errors


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def _read_events(logdir):
    """Parses the TFRecord event file(s) of ``logdir`` (length, crc, data, crc)."""
    events = []
    for path in sorted(glob.glob(f"{logdir}/events.out.tfevents.*")):
        with open(path, "rb") as f:
            raw = f.read()
        pos = 0
        while pos < len(raw):
            (n,) = struct.unpack("<Q", raw[pos:pos + 8])
            events.append(Event.FromString(raw[pos + 12:pos + 12 + n]))
            pos += 12 + n + 4
    return events


def _png_pixels(data, h, w, c):
    """Pixels of an unfiltered 8-bit PNG: IDAT rows are a 0 filter byte + the row."""
    pos, idat = 8, b""
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        if data[pos + 4:pos + 8] == b"IDAT":
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    rows = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + w * c)
    assert not rows[:, 0].any()
    return rows[:, 1:].reshape(h, w, c)


def _by_step(events):
    out = {}
    for e in events:
        if e.HasField("summary"):
            for v in e.summary.value:
                out.setdefault(e.step, {})[v.tag] = v
    return out


def test_tags_follow_name_scopes_and_family(graph):
    x = tf.placeholder(tf.float32, [])
    a = tf.summary.scalar("loss", x)
    b = tf.summary.scalar("loss", x)
    with tf.name_scope("eval"):
        c = tf.summary.scalar("acc", x)
    d = tf.summary.scalar("lr", x, family="train")
    h = tf.summary.histogram("weights", tf.constant([1.0, 2.0]), collections=[])
    with tf.Session() as sess:
        tags = [sess.run(t, {x: 1.0}).tags()[0] for t in (a, b, c, d, h)]
    assert tags == ["loss", "loss_1", "eval/acc", "train/train/lr", "weights"]
    assert len(tf.get_collection(tf.GraphKeys.SUMMARIES)) == 4


def test_file_writer_round_trip(graph, tmp_path):
    x = tf.placeholder(tf.float32, [])
    w = tf.placeholder(tf.float32, [50])
    tf.summary.scalar("loss", x)
    tf.summary.scalar("twice", 2.0 * x)
    tf.summary.histogram("weights", w)
    images = np.linspace(0, 1, 2 * 4 * 5 * 3).reshape(2, 4, 5, 3)
    img = tf.summary.image("img", tf.constant(images, tf.float64), max_outputs=2,
                           collections=[])
    txt = tf.summary.text("note", tf.constant("hello"), collections=[])
    merged = tf.summary.merge_all()
    rng = np.random.default_rng(0)
    logdir = str(tmp_path / "logs")
    with tf.Session() as sess, tf.summary.FileWriter(logdir, graph=sess.graph) as writer:
        assert writer.get_logdir() == logdir
        for step in (0, 10, 20):
            writer.add_summary(sess.run(merged, {x: step / 10.0,
                                                 w: rng.standard_normal(50)}), step)
        writer.add_summary(sess.run(tf.summary.merge([img, txt])), 30)
        manual = tf.summary.Summary(value=[tf.summary.Summary.Value(tag="manual",
                                                                    simple_value=4.5)])
        writer.add_summary(manual, global_step=np.int64(40))
        writer.add_summary(manual.SerializeToString(), 50)
    events = _read_events(logdir)
    assert any(e.HasField("graph_def") for e in events)
    steps = _by_step(events)
    assert sorted(steps) == [0, 10, 20, 30, 40, 50]
    for step in (0, 10, 20):
        assert set(steps[step]) == {"loss", "twice", "weights"}
        assert steps[step]["loss"].simple_value == pytest.approx(step / 10.0)
        assert steps[step]["twice"].simple_value == pytest.approx(step / 5.0)
        histo = steps[step]["weights"].histo
        assert histo.num == 50 and sum(histo.bucket) == 50
    assert set(steps[30]) == {"img/image/0", "img/image/1", "note"}
    png = steps[30]["img/image/1"].image
    assert (png.height, png.width, png.colorspace) == (4, 5, 3)
    assert png.encoded_image_string.startswith(b"\x89PNG\r\n\x1a\n")
    np.testing.assert_array_equal(_png_pixels(png.encoded_image_string, 4, 5, 3),
                                  np.round(images[1] * 255 / images[1].max()))
    assert steps[30]["note"].tensor.string_val == [b"hello"]
    assert steps[40]["manual"].simple_value == 4.5 == steps[50]["manual"].simple_value
    # summary_iterator (CRC-checked reader) agrees with the independent parser
    path = glob.glob(f"{logdir}/events.out.tfevents.*")[0]
    assert [e.step for e in tf.train.summary_iterator(path)] == [e.step for e in events]


def test_merge_duplicate_tags_and_bad_values(graph):
    x = tf.placeholder(tf.float32, [3])
    a = tf.summary.scalar("s", tf.constant(1.0), collections=[])
    dup = tf.summary.merge([a, a])
    h = tf.summary.histogram("h", x, collections=[])
    with tf.Session() as sess:
        with pytest.raises(errors.InvalidArgumentError, match="Duplicate tag s"):
            sess.run(dup)
        with pytest.raises(errors.InvalidArgumentError, match="Nan in summary histogram for: h"):
            sess.run(h, {x: [1.0, np.nan, 2.0]})
    with pytest.raises(ValueError, match="must be a scalar"):
        tf.summary.scalar("v", tf.constant([1.0, 2.0]))
    assert tf.summary.merge_all(key="nothing_here") is None
    with pytest.raises(TypeError, match="add_summary expects"):
        tf.summary.FileWriter.add_summary(object.__new__(tf.summary.FileWriter), 3.0)


def test_file_writer_cache(graph, tmp_path):
    try:
        w1 = tf.summary.FileWriterCache.get(str(tmp_path))
        assert tf.summary.FileWriterCache.get(str(tmp_path)) is w1
    finally:
        tf.summary.FileWriterCache.clear()
    assert any(e.HasField("graph_def") for e in _read_events(str(tmp_path)))


def test_parse_from_string_and_value_add(graph, tmp_path):
    """TF's cifar10_eval: ``s = tf.Summary(); s.ParseFromString(sess.run(summary_op));
    s.value.add(tag=..., simple_value=...)``, then written; bytes parse as well."""
    x = tf.placeholder(tf.float32, [])
    tf.summary.scalar("loss", x)
    tf.summary.histogram("w", tf.constant([1.0, 2.0, 3.0]))
    merged = tf.summary.merge_all()
    logdir = str(tmp_path / "eval")
    with tf.Session() as sess, tf.summary.FileWriter(logdir) as writer:
        s = tf.Summary()
        s.ParseFromString(sess.run(merged, {x: 2.5}))
        added = s.value.add(tag="Precision @ 1", simple_value=0.75)
        assert added.simple_value == 0.75 and s.tags() == ["loss", "w", "Precision @ 1"]
        writer.add_summary(s, 7)
        again = tf.Summary.FromString(s.SerializeToString())  # bytes: histogram kept
        assert again.tags() == s.tags() and again.value[0].simple_value == 2.5
        again.ParseFromString(tf.Summary(value=[tf.Summary.Value(tag="a", simple_value=1)])
                              .SerializeToString())
        assert again.tags() == ["a"]
        writer.add_summary(tf.Summary.FromString(s.SerializeToString()), 8)
        with pytest.raises(TypeError, match="ParseFromString expects"):
            s.ParseFromString(3.0)
    steps = _by_step(_read_events(logdir))
    for step in (7, 8):
        assert steps[step]["loss"].simple_value == 2.5
        assert steps[step]["Precision @ 1"].simple_value == 0.75
        assert steps[step]["w"].histo.num == 3
