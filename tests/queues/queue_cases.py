"""Queue-based input pipelines built the same way under real TF (``tf.compat.v1``) and
estimator_npu, for the golden comparison: ``tools/record_queue_goldens.py`` records TF's
results into ``tests/queues/golden/queues_tf215.json``; ``test_queue_golden.py`` compares.

Every case is deterministic in TF: FIFO queues with one enqueue thread, producers with
``shuffle=False``, or results that do not depend on the order (sorted multisets, shapes,
counts). Each ``case(tf, workdir)`` returns JSON-able data: op and tensor names, static
shapes, the values of every run until ``OutOfRangeError`` and the error's class. No
import of either framework here: the module is passed in.
"""
import os

import numpy as np

CASES = {}


def case(build):
    CASES[build.__name__] = build
    return build


def _plain(x):
    """A JSON-able copy of a fetched value (bytes and str both become str)."""
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in sorted(x.items())}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.ndarray):
        if x.dtype == object or x.dtype.kind in "SU":
            return _plain(x.tolist())
        return x.tolist()
    if isinstance(x, bytes):
        return x.decode("latin-1")
    if isinstance(x, np.generic):
        return x.item()
    return x


def _shape(t):
    s = t.get_shape()
    return None if s.ndims is None else [d if d is None else int(d) for d in s.as_list()]


def _drain(tf, sess, fetch, limit=100):
    """Values of ``fetch`` until OutOfRangeError: ``(values, error class name)``."""
    out = []
    for _ in range(limit):
        try:
            out.append(_plain(sess.run(fetch)))
        except tf.errors.OutOfRangeError:
            return out, "OutOfRangeError"
    return out, None


def _session(tf):
    sess = tf.Session()
    sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess, coord)
    return sess, coord, threads


def _finish(sess, coord, threads):
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=10)
    sess.close()


@case
def fifo_many_up_to_close(tf, workdir):
    q = tf.FIFOQueue(10, [tf.int32, tf.float32], shapes=[[], [2]])
    enq = q.enqueue_many([[1, 2, 3, 4, 5], np.arange(10, dtype=np.float32).reshape(5, 2)])
    many, up_to, one = q.dequeue_many(2), q.dequeue_up_to(2), q.dequeue()
    names = [q.name, enq.name, many[0].name, up_to[1].name, one[0].name, q.size().name,
             q.close().name, q.close(cancel_pending_enqueues=True).name]
    shapes = [_shape(t) for t in many + up_to + one]
    with tf.Session() as sess:
        sess.run(enq)
        first = _plain(sess.run(many))
        size = int(sess.run(q.size()))
        sess.run(q.close())
        closed = bool(sess.run(q.is_closed()))
        after_many = _drain(tf, sess, many)
        rest = _drain(tf, sess, up_to)
        after_one = _drain(tf, sess, one)
        try:
            sess.run(q.enqueue([7, [0.0, 1.0]]))
            enqueue_closed = None
        except tf.errors.CancelledError:
            enqueue_closed = "CancelledError"
    return {"names": names, "shapes": shapes, "first": first, "size": size,
            "closed": closed, "after_many": after_many, "rest": rest,
            "after_one": after_one, "enqueue_closed": enqueue_closed}


@case
def named_and_padding_queues(tf, workdir):
    q = tf.FIFOQueue(4, [tf.int32, tf.float32], shapes=[[], []], names=["a", "b"])
    enq = q.enqueue({"a": 3, "b": 0.5})
    out = q.dequeue()
    p = tf.PaddingFIFOQueue(4, [tf.int64], shapes=[[None, 2]])
    enq_p = [p.enqueue([np.ones((k, 2), np.int64) * k]) for k in (1, 3)]
    batch = p.dequeue_many(2)
    with tf.Session() as sess:
        sess.run(enq)
        named = _plain(sess.run(out))
        for e in enq_p:
            sess.run(e)
        padded = _plain(sess.run(batch))
    return {"names": q.names, "named": named, "named_keys": sorted(out),
            "padded": padded, "padded_shape": _shape(batch)}


@case
def random_shuffle_queue_multiset(tf, workdir):
    q = tf.RandomShuffleQueue(20, 5, [tf.int32], shapes=[[]], seed=7)
    enq = q.enqueue_many([list(range(12))])
    up_to = q.dequeue_up_to(5)
    with tf.Session() as sess:
        sess.run(enq)
        size_before = int(sess.run(q.size()))
        sess.run(q.close())
        got, err = _drain(tf, sess, up_to)
    return {"sizes": [len(g) for g in got], "sorted": sorted(sum(got, [])), "error": err,
            "size_before": size_before, "shape": _shape(up_to)}


@case
def string_input_producer_epochs(tf, workdir):
    fq = tf.train.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=False,
                                        capacity=4)
    x = fq.dequeue()
    names = {"queue": fq.name, "dequeue": x.name,
             "locals": [v.name for v in tf.local_variables()],
             "runners": [qr.name for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)],
             "summaries": [s.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)]}
    sess, coord, threads = _session(tf)
    values, err = _drain(tf, sess, x)
    _finish(sess, coord, threads)
    return {"names": names, "values": values, "error": err, "threads": len(threads)}


@case
def shuffled_producer_is_a_permutation_per_epoch(tf, workdir):
    fq = tf.train.range_input_producer(6, num_epochs=3, shuffle=True, seed=3)
    x = fq.dequeue()
    sess, coord, threads = _session(tf)
    values, err = _drain(tf, sess, x)
    _finish(sess, coord, threads)
    epochs = [sorted(values[i:i + 6]) for i in range(0, len(values), 6)]
    return {"count": len(values), "epochs": epochs, "error": err}


@case
def slice_producer_batch_smaller_final(tf, workdir):
    data = tf.constant(np.arange(7, dtype=np.int32))
    pairs = tf.constant(np.arange(14, dtype=np.float32).reshape(7, 2))
    row, pair = tf.train.slice_input_producer([data, pairs], num_epochs=1, shuffle=False)
    batch = tf.train.batch([row, pair], batch_size=3, allow_smaller_final_batch=True)
    names = [row.name, pair.name, batch[0].name, batch[1].name,
             [s.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)],
             [qr.name for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)]]
    sess, coord, threads = _session(tf)
    values, err = _drain(tf, sess, batch)
    _finish(sess, coord, threads)
    return {"names": names, "shapes": [_shape(t) for t in batch], "values": values,
            "error": err}


@case
def batch_drops_partial_final_batch(tf, workdir):
    row = tf.train.slice_input_producer([tf.constant(np.arange(7, dtype=np.int32))],
                                        num_epochs=1, shuffle=False)[0]
    batch = tf.train.batch([row], batch_size=3)
    sess, coord, threads = _session(tf)
    values, err = _drain(tf, sess, batch)
    _finish(sess, coord, threads)
    return {"name": batch.name, "shape": _shape(batch), "values": values, "error": err}


@case
def batch_enqueue_many_dict_dynamic_pad(tf, workdir):
    x = tf.constant(np.arange(10, dtype=np.int32).reshape(5, 2))
    y = tf.constant(np.arange(5, dtype=np.int32))
    out = tf.train.batch({"x": x, "y": y}, batch_size=2, enqueue_many=True, capacity=8)
    seqs = tf.train.string_input_producer(["ab", "cde", "f"], num_epochs=1, shuffle=False)
    s = seqs.dequeue()
    chars = tf.string_split([s], delimiter="").values
    padded = tf.train.batch([chars], batch_size=2, dynamic_pad=True,
                            allow_smaller_final_batch=True)
    sess, coord, threads = _session(tf)
    first = _plain(sess.run(out))
    pad_values, err = _drain(tf, sess, padded)
    _finish(sess, coord, threads)
    return {"keys": sorted(out), "shapes": {k: _shape(v) for k, v in out.items()},
            "first": first, "padded": pad_values, "padded_shape": _shape(padded),
            "error": err}


@case
def shuffle_batch_one_epoch(tf, workdir):
    row = tf.train.slice_input_producer([tf.constant(np.arange(20, dtype=np.int32))],
                                        num_epochs=1, shuffle=False)[0]
    batch = tf.train.shuffle_batch([row], batch_size=6, capacity=12, min_after_dequeue=4,
                                   seed=5, allow_smaller_final_batch=True)
    names = [batch.name, [s.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)][-1]]
    sess, coord, threads = _session(tf)
    values, err = _drain(tf, sess, batch)
    _finish(sess, coord, threads)
    return {"names": names, "shape": _shape(batch), "sizes": [len(v) for v in values],
            "sorted": sorted(sum(values, [])), "error": err}


@case
def batch_join_and_maybe_batch(tf, workdir):
    a = tf.train.slice_input_producer([tf.constant(np.arange(4, dtype=np.int32))],
                                      num_epochs=1, shuffle=False)[0]
    b = tf.train.slice_input_producer([tf.constant(np.arange(10, 14, dtype=np.int32))],
                                      num_epochs=1, shuffle=False)[0]
    joined = tf.train.batch_join([[a], [b]], batch_size=8)
    keep = tf.constant([True, False, True, True, False])
    kept = tf.train.maybe_batch([tf.constant(np.arange(5, dtype=np.int32))], keep, 3,
                                enqueue_many=True)
    sess, coord, threads = _session(tf)
    got = sorted(_plain(sess.run(joined)))
    kept_value = _plain(sess.run(kept))
    _finish(sess, coord, threads)
    return {"joined": got, "joined_name": joined.name, "kept": kept_value,
            "runner_ops": [len(qr.enqueue_ops)
                           for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)]}


def _write_files(workdir):
    os.makedirs(workdir, exist_ok=True)
    paths = {}
    for name, data in (("t1.txt", b"h1\nl1\n\nl3\r\nl4"), ("t2.txt", b"h2\nm1\n"),
                       ("f1.bin", b"HH" + bytes(range(10)) + b"F")):
        paths[name] = os.path.join(workdir, name)
        with open(paths[name], "wb") as f:
            f.write(data)
    return paths


def _read_all(tf, files, make_reader, up_to=None):
    with tf.Graph().as_default():
        q = tf.train.string_input_producer(files, shuffle=False, num_epochs=1)
        reader = make_reader()
        kv = reader.read(q) if up_to is None else reader.read_up_to(q, up_to)
        counts = [reader.num_records_produced(), reader.num_work_units_completed()]
        sess, coord, threads = _session(tf)
        values, err = _drain(tf, sess, list(kv))
        produced = _plain(sess.run(counts))
        _finish(sess, coord, threads)
        return {"op": reader.reader_ref.op.type, "read": kv[0].op.type,
                "fields": list(kv._fields), "shapes": [_shape(t) for t in kv],
                "values": values, "error": err, "counts": produced,
                "serialize": reader.supports_serialize}


def _relative(result, workdir):
    text = repr(result).replace(workdir + os.sep, "")
    return eval(text)  # noqa: S307 - our own repr of plain data


@case
def readers(tf, workdir):
    p = _write_files(workdir)
    t, f = [p["t1.txt"], p["t2.txt"]], [p["f1.bin"]]
    out = {
        "text": _read_all(tf, t, lambda: tf.TextLineReader()),
        "text_skip": _read_all(tf, t, lambda: tf.TextLineReader(skip_header_lines=1)),
        "text_up_to": _read_all(tf, t, lambda: tf.TextLineReader(), up_to=3),
        "fixed": _read_all(tf, f, lambda: tf.FixedLengthRecordReader(
            3, header_bytes=2, footer_bytes=1)),
        "fixed_hop": _read_all(tf, f, lambda: tf.FixedLengthRecordReader(
            3, header_bytes=2, footer_bytes=1, hop_bytes=2)),
        "whole": _read_all(tf, [p["t2.txt"], p["f1.bin"]], lambda: tf.WholeFileReader()),
        "identity": _read_all(tf, [p["t2.txt"]], lambda: tf.IdentityReader()),
    }
    path = os.path.join(workdir, "r.tfrecord")
    with tf.python_io.TFRecordWriter(path) as w:
        for rec in (b"abc", b"defgh", b""):
            w.write(rec)
    out["tfrecord"] = _read_all(tf, [path, path], lambda: tf.TFRecordReader())
    return _relative(out, workdir)


@case
def match_filenames_once_feeds_a_reader(tf, workdir):
    p = _write_files(workdir)
    pattern = os.path.join(workdir, "t*.txt")
    files = tf.train.match_filenames_once(pattern)
    queue = tf.train.string_input_producer(files, shuffle=False, num_epochs=1)
    key, value = tf.TextLineReader(skip_header_lines=1).read(queue)
    matched = tf.matching_files([os.path.join(workdir, "*.bin"), p["t2.txt"]])
    out = {"variable": files.name, "shape": _shape(files),
           "locals": [v.name for v in tf.local_variables()]}
    sess, coord, threads = _session(tf)
    out["files"] = _plain(sess.run(files))
    out["matched"] = _plain(sess.run(matched))
    out["values"], out["error"] = _drain(tf, sess, [key, value])
    _finish(sess, coord, threads)
    return _relative(out, workdir)


def run_case(tf, name, workdir):
    with tf.Graph().as_default():
        return CASES[name](tf, workdir)
