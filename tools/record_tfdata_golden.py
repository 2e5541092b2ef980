"""Records the golden files of tests/data/test_tf_files_golden.py with real TensorFlow.

Run with a TensorFlow 2.15 interpreter (never a dependency of the project):

    /tmp/tf215/bin/python tools/record_tfdata_golden.py tests/data/golden

Writes TFRecord files (plain, GZIP, ZLIB), files of serialized Examples and
SequenceExamples, a PNG and a JPEG image encoded by TF, and ``tfdata_golden.json``
with what TF's parsing, decoding and resizing ops return for them.
"""
import base64
import json
import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()


def records():
    out = [b"", b"a", b"hello tfrecord", bytes(range(256)) * 4]
    rng = np.random.RandomState(0)
    out += [rng.bytes(int(n)) for n in rng.randint(1, 300, size=6)]
    return out


def big_records():
    return [(b"%08d|" % i) * (40 + i % 50) for i in range(1200)]


def examples():
    rng = np.random.RandomState(1)
    out = []
    for i in range(5):
        feature = {
            "image": tf.train.Feature(float_list=tf.train.FloatList(
                value=rng.rand(6).astype(np.float32).tolist())),
            "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i * 37 - 50])),
            "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"ex%d" % i])),
            "tags": tf.train.Feature(int64_list=tf.train.Int64List(
                value=list(range(i)))),
        }
        if i % 2 == 0:
            feature["weight"] = tf.train.Feature(float_list=tf.train.FloatList(
                value=[0.5 * i]))
        out.append(tf.train.Example(features=tf.train.Features(feature=feature)))
    return out


def sequence_examples():
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


def image():
    y, x = np.mgrid[0:12, 0:16]
    img = np.stack([x * 16, y * 20, (x * y * 3) % 256], axis=-1)
    return img.astype(np.uint8)


def enc(value):
    a = np.asarray(value)
    if a.dtype.kind == "S":
        a = a.astype(object)
    if a.dtype == object:
        return {"dtype": "string", "shape": list(a.shape),
                "b64": [base64.b64encode(v).decode() for v in a.reshape(-1)]}
    return {"dtype": a.dtype.name, "shape": list(a.shape), "values": a.reshape(-1).tolist()}


def sparse(sp):
    return {"indices": enc(sp.indices), "values": enc(sp.values),
            "dense_shape": enc(sp.dense_shape)}


CSV_LINES = ["1,2.5,abc,7", '-3,,"q,""x""",8', "4,1e3,,9", "0,-0.5,z,10"]
TEXT = b"first\r\nsecond\n\nfourth \nlast-no-newline"


def record_text(out_dir):
    """decode_csv, CsvDataset, make_csv_dataset, TextLineDataset and tf.strings results."""
    with open(os.path.join(out_dir, "lines.txt"), "wb") as f:
        f.write(TEXT)
    with open(os.path.join(out_dir, "table.csv"), "w") as f:
        f.write("a,b,name,c\n" + "\n".join(CSV_LINES) + "\n")
    out = {}
    g = tf.Graph()
    with g.as_default():
        lines = tf.constant(CSV_LINES)
        csv = tf.io.decode_csv(lines, [[0], [-1.0], ["none"], [np.int64(0)]])
        csv_sel = tf.io.decode_csv(lines, [[0.0], ["d"]], select_cols=[1, 2])
        words = tf.constant(["hello  world", " a b ", "", "x"])
        ops = {
            "strings_split": tf.strings.split(words),
            "strings_split_sep": tf.strings.split(tf.constant(["a,,b", "c"]), sep=","),
            "string_split": tf.string_split(tf.constant(["a,b;c", ";;d"]), ",;"),
            "string_split_keep": tf.string_split(tf.constant(["a,,b"]), ",",
                                                 skip_empty=False),
            "to_number": tf.strings.to_number(tf.constant(["1.5", "-2", "1e-3", " 7"])),
            "to_int64": tf.strings.to_number(tf.constant(["12", "-9"]), tf.int64),
            "length": tf.strings.length(tf.constant(["", "ab", "\u00e9t\u00e9"])),
            "length_chars": tf.strings.length(tf.constant(["\u00e9t\u00e9"]),
                                              unit="UTF8_CHAR"),
            "join": tf.strings.join([tf.constant(["a", "b"]), tf.constant("-"),
                                     tf.constant(["c", "d"])], separator="+"),
        }
        text_ds = tf.data.TextLineDataset(os.path.join(out_dir, "lines.txt"))
        csv_ds = tf.data.experimental.CsvDataset(
            os.path.join(out_dir, "table.csv"), [[0], [0.0], [""], [0]], header=True)
        mk = tf.data.experimental.make_csv_dataset(
            os.path.join(out_dir, "table.csv"), batch_size=4, num_epochs=1, shuffle=False,
            label_name="c")
        t_next = tf.data.make_one_shot_iterator(text_ds).get_next()
        c_next = tf.data.make_one_shot_iterator(csv_ds).get_next()
        m_next = tf.data.make_one_shot_iterator(mk).get_next()
        with tf.Session() as sess:
            cv, cs, res = sess.run([csv, csv_sel, ops])
            text = []
            rows = []
            try:
                while True:
                    text.append(sess.run(t_next))
            except tf.errors.OutOfRangeError:
                pass
            try:
                while True:
                    rows.append(sess.run(c_next))
            except tf.errors.OutOfRangeError:
                pass
            feats, label = sess.run(m_next)
    out["decode_csv"] = [enc(v) for v in cv]
    out["decode_csv_select"] = [enc(v) for v in cs]
    for k, v in res.items():
        out[k] = sparse(v) if hasattr(v, "indices") else enc(v)
    out["text_lines"] = enc(np.array(text, dtype=object))
    out["csv_dataset"] = [[enc(c) for c in r] for r in rows]
    out["make_csv_dataset"] = {"features": {k: enc(v) for k, v in feats.items()},
                               "feature_order": list(feats), "label": enc(label)}
    return out


PARALLEL_SIZES = {"a": 1, "b": 3, "c": 2, "d": 2, "e": 4}


def record_parallel_reads():
    """The record order of num_parallel_reads / interleave over files of these sizes."""
    import tempfile
    tmp = tempfile.mkdtemp()
    files = []
    for k, n in PARALLEL_SIZES.items():
        files.append(os.path.join(tmp, f"{k}.tfrecord"))
        with tf.io.TFRecordWriter(files[-1]) as w:
            for j in range(n):
                w.write(f"{k}{j}".encode())
    out = {}
    g = tf.Graph()
    with g.as_default():
        cases = {f"num_parallel_reads={n}": tf.data.TFRecordDataset(files, num_parallel_reads=n)
                 for n in (2, 3)}
        cases["interleave(cycle_length=3, block_length=2)"] = \
            tf.data.Dataset.from_tensor_slices(files).interleave(
                tf.data.TFRecordDataset, cycle_length=3, block_length=2)
        nexts = {k: tf.data.make_one_shot_iterator(v).get_next() for k, v in cases.items()}
        with tf.Session() as sess:
            for k, t in nexts.items():
                got = []
                try:
                    while True:
                        got.append(sess.run(t).decode())
                except tf.errors.OutOfRangeError:
                    out[k] = got
    return out


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    golden = {"tensorflow": tf.__version__}
    recs = records()
    golden["records_b64"] = [base64.b64encode(r).decode() for r in recs]
    for name, ctype in (("plain", None), ("gzip", "GZIP"), ("zlib", "ZLIB")):
        opts = tf.io.TFRecordOptions(compression_type=ctype) if ctype else None
        with tf.io.TFRecordWriter(os.path.join(out_dir, f"{name}.tfrecord"), opts) as w:
            for r in recs:
                w.write(r)
    # > 256 kB uncompressed: crosses TF's zlib input/output buffer boundaries.
    big = big_records()
    with tf.io.TFRecordWriter(os.path.join(out_dir, "big.gz.tfrecord"),
                              tf.io.TFRecordOptions(compression_type="GZIP")) as w:
        for r in big:
            w.write(r)
    exs = examples()
    with tf.io.TFRecordWriter(os.path.join(out_dir, "examples.tfrecord")) as w:
        for e in exs:
            w.write(e.SerializeToString())
    seqs = sequence_examples()
    with tf.io.TFRecordWriter(os.path.join(out_dir, "sequence_examples.tfrecord")) as w:
        for e in seqs:
            w.write(e.SerializeToString())
    # Map entries are serialized in the protobuf runtime's hash-table order, which
    # differs between protobuf versions; the deterministic form (keys sorted) does not.
    golden["examples_deterministic_hex"] = [e.SerializeToString(deterministic=True).hex()
                                            for e in exs]
    golden["sequence_examples_deterministic_hex"] = [
        e.SerializeToString(deterministic=True).hex() for e in seqs]
    img = image()
    golden["image"] = enc(img)

    features = {"image": tf.io.FixedLenFeature([2, 3], tf.float32),
                "label": tf.io.FixedLenFeature([], tf.int64),
                "name": tf.io.FixedLenFeature([], tf.string),
                "weight": tf.io.FixedLenFeature([1], tf.float32, default_value=[-1.0]),
                "tags": tf.io.VarLenFeature(tf.int64)}
    serialized = tf.constant([e.SerializeToString() for e in exs])
    batch = tf.io.parse_example(serialized, features)
    single = tf.io.parse_single_example(serialized[3], features)
    ctx, seq = tf.io.parse_single_sequence_example(
        tf.constant(seqs[2].SerializeToString()),
        context_features={"length": tf.io.FixedLenFeature([], tf.int64),
                          "id": tf.io.FixedLenFeature([], tf.string)},
        sequence_features={"tokens": tf.io.FixedLenSequenceFeature([], tf.int64),
                           "vec": tf.io.FixedLenSequenceFeature([2], tf.float32),
                           "ragged": tf.io.VarLenFeature(tf.string)})
    tensors = {"f32_scalar": tf.constant(1.5), "i64_matrix": tf.constant([[1, -2], [3, 4]],
                                                                         tf.int64),
               "strings": tf.constant([b"ab", b"", b"c"]),
               "u8": tf.constant([[0, 255, 7]], tf.uint8),
               "f16": tf.constant([2.0, -0.5], tf.float16), "bools": tf.constant([True, False])}
    serialized_tensors = {k: tf.io.serialize_tensor(v) for k, v in tensors.items()}
    raw = tf.io.decode_raw(tf.constant([b"\x01\x00\x02\x00", b"\xff\xff\x00\x80"]), tf.int16)
    noise = np.random.RandomState(2).randint(0, 256, size=(64, 96, 3)).astype(np.uint8)
    golden["noise_image_seed2_shape"] = [64, 96, 3]
    extra_png = {"noise.png": tf.image.encode_png(tf.constant(noise)),
                 "gray.png": tf.image.encode_png(tf.constant(img[..., :1])),
                 "rgba.png": tf.image.encode_png(tf.constant(
                     np.concatenate([img, img[..., :1]], axis=-1)))}
    png = tf.image.encode_png(tf.constant(img))
    jpg = tf.image.encode_jpeg(tf.constant(img), quality=90)
    resize_in = tf.constant(img[None].astype(np.float32))
    resized = {
        "bilinear": tf.image.resize_images(resize_in, [7, 9]),
        "bilinear_align": tf.image.resize_images(resize_in, [7, 9], align_corners=True),
        "nearest": tf.image.resize_images(resize_in, [7, 9],
                                          method=tf.image.ResizeMethod.NEAREST_NEIGHBOR),
        "bilinear_up": tf.image.resize_bilinear(resize_in, [20, 30]),
    }
    with tf.Session() as sess:
        b, s, c, q = sess.run([batch, single, ctx, seq])
        st, rw, png_b, jpg_b, rs, ex_png = sess.run([serialized_tensors, raw, png, jpg,
                                                     resized, extra_png])
        for fname, data in ex_png.items():
            with open(os.path.join(out_dir, fname), "wb") as f:
                f.write(data)
        with open(os.path.join(out_dir, "image.png"), "wb") as f:
            f.write(png_b)
        with open(os.path.join(out_dir, "image.jpg"), "wb") as f:
            f.write(jpg_b)
        contents = tf.placeholder(tf.string, [])
        decoded = {
            "png": tf.image.decode_png(contents),
            "png_gray": tf.image.decode_png(contents, channels=1),
            "image_png": tf.image.decode_image(contents),
        }
        jdec = {
            "jpeg": tf.image.decode_jpeg(contents),
            "jpeg_accurate": tf.image.decode_jpeg(contents, dct_method="INTEGER_ACCURATE"),
            "jpeg_gray": tf.image.decode_jpeg(contents, channels=1,
                                              dct_method="INTEGER_ACCURATE"),
        }
        dp = sess.run(decoded, {contents: png_b})
        dj = sess.run(jdec, {contents: jpg_b})
    golden["parse_example"] = {k: (sparse(v) if hasattr(v, "indices") else enc(v))
                               for k, v in b.items()}
    golden["parse_single_example_3"] = {k: (sparse(v) if hasattr(v, "indices") else enc(v))
                                        for k, v in s.items()}
    golden["sequence_context"] = {k: enc(v) for k, v in c.items()}
    golden["sequence_features"] = {k: (sparse(v) if hasattr(v, "indices") else enc(v))
                                   for k, v in q.items()}
    golden["serialize_tensor_hex"] = {k: bytes(v).hex() for k, v in st.items()}
    golden["tensors"] = {k: enc(sess_v) for k, sess_v in
                         tf.Session().run(tensors).items()}
    golden["decode_raw"] = enc(rw)
    golden["decoded_png"] = {k: enc(v) for k, v in dp.items()}
    golden["decoded_jpeg"] = {k: enc(v) for k, v in dj.items()}
    golden["resize"] = {k: enc(v) for k, v in rs.items()}
    golden["text"] = record_text(out_dir)
    golden["parallel_reads"] = record_parallel_reads()
    with open(os.path.join(out_dir, "tfdata_golden.json"), "w") as f:
        json.dump(golden, f, indent=0, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/golden")
