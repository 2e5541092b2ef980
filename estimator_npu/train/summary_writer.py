"""``FileWriter``: writes summaries and the graph to TensorBoard event files through
tensorboardX, plus ``FileWriterCache`` and ``summary_iterator`` (reads events back).

Event files are TFRecord files of ``Event`` protos (tensorboardX ships the protos), named
``events.out.tfevents.<time>.<host>`` in ``logdir``::

    with tf.summary.FileWriter(logdir, graph=sess.graph) as writer:
        writer.add_summary(sess.run(merged), global_step=step)
    for event in tf.train.summary_iterator(path):
        ...
"""
import atexit
import os
import struct
import threading
import time
import zlib

import numpy as np

from estimator_npu.train.summary_ops import Summary
from estimator_npu.utils import validation

_DEFAULT_BINS = None


def _default_bins():
    """TensorFlow's histogram bucket limits (exponential, 10% apart, mirrored)."""
    global _DEFAULT_BINS
    if _DEFAULT_BINS is None:
        v, pos = 1e-12, []
        while v < 1e20:
            pos.append(v)
            v *= 1.1
        _DEFAULT_BINS = [-x for x in reversed(pos)] + [0.0] + pos
    return _DEFAULT_BINS


def _png(img):
    """PNG bytes of a uint8 ``[h, w, c]`` image (c = 1, 3 or 4), no PIL needed."""
    h, w, c = img.shape
    color = {1: 0, 3: 2, 4: 6}[c]
    rows = np.concatenate([np.zeros((h, 1), np.uint8), img.reshape(h, w * c)], axis=1)

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    return (b"\x89PNG\r\n\x1a\n" +
            chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, color, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(rows.tobytes())) + chunk(b"IEND", b""))


def _text_value(pb, tag, text):
    from tensorboardX.proto.plugin_text_pb2 import TextPluginData
    from tensorboardX.proto.summary_pb2 import SummaryMetadata
    from tensorboardX.proto.tensor_pb2 import TensorProto
    from tensorboardX.proto.tensor_shape_pb2 import TensorShapeProto
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name="text", content=TextPluginData(version=0).SerializeToString()))
    tensor = TensorProto(dtype="DT_STRING", string_val=[text.encode("utf-8")],
                         tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return pb.Summary.Value(tag=tag, metadata=meta, tensor=tensor)


def to_proto(summary):
    """A tensorboardX ``Summary`` proto from a ``Summary``, proto bytes, or a proto."""
    from tensorboardX.proto import summary_pb2 as pb
    if isinstance(summary, pb.Summary):
        return summary
    if isinstance(summary, (bytes, bytearray)):
        return pb.Summary.FromString(bytes(summary))
    if isinstance(summary, np.ndarray) and summary.dtype == object and summary.size == 1:
        return to_proto(summary.reshape(()).item())
    if not isinstance(summary, Summary):
        raise TypeError("add_summary expects the value of a summary op, a Summary, or "
                        f"serialized Summary bytes, got {type(summary).__name__}")
    values = []
    for v in summary.value:
        if v.kind == "scalar":
            values.append(pb.Summary.Value(tag=v.tag, simple_value=v.simple_value))
        elif v.kind == "histogram":
            from tensorboardX.summary import make_histogram
            values.append(pb.Summary.Value(tag=v.tag,
                                           histo=make_histogram(v.data, _default_bins())))
        elif v.kind == "image":
            h, w, c = v.data.shape
            values.append(pb.Summary.Value(tag=v.tag, image=pb.Summary.Image(
                height=h, width=w, colorspace=c, encoded_image_string=_png(v.data))))
        elif v.kind == "text":
            values.append(_text_value(pb, v.tag, v.data))
        elif v.kind == "proto":  # parsed from bytes (Summary.ParseFromString), kept as is
            values.append(v.data)
        else:
            raise ValueError(f"Summary value {v.tag!r} has unknown kind {v.kind!r}")
    return pb.Summary(value=values)


def from_proto(data):
    """``SummaryValue``s of serialized ``Summary`` bytes: scalars as ``simple_value``,
    the other kinds kept as their proto (``kind="proto"``)."""
    from tensorboardX.proto import summary_pb2 as pb
    from estimator_npu.train.summary_ops import SummaryValue
    out = []
    for v in pb.Summary.FromString(data).value:
        if v.WhichOneof("value") == "simple_value":
            out.append(SummaryValue(v.tag, simple_value=v.simple_value))
        else:
            out.append(SummaryValue(v.tag, kind="proto", data=v))
    return out


def graph_def(graph):
    """A TensorBoard ``GraphDef`` proto of ``graph`` (op names, types and inputs)."""
    from tensorboardX.proto.graph_pb2 import GraphDef
    from tensorboardX.proto.node_def_pb2 import NodeDef
    nodes = []
    for op in graph.get_operations():
        inputs = [t.op.name if t.value_index == 0 else f"{t.op.name}:{t.value_index}"
                  for t in op.inputs]
        inputs += ["^" + c.name for c in op.control_inputs]
        nodes.append(NodeDef(name=op.name, op=op.type, input=inputs))
    return GraphDef(node=nodes)


class FileWriter:
    """Writes ``Summary`` values and the graph to an event file in ``logdir``.

    Args:
        logdir: directory of the event file (created if missing).
        graph: optional graph to write (TensorBoard's graph tab).
        max_queue: events buffered before a write.
        flush_secs: seconds between automatic flushes.
        filename_suffix: appended to the event file name.
    """

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None,
                 filename_suffix=None, session=None):
        validation.check_type("logdir", logdir, (str, os.PathLike))
        from tensorboardX.writer import FileWriter as _TbxWriter
        self._logdir = os.fspath(logdir)
        self._writer = _TbxWriter(self._logdir, max_queue=max_queue, flush_secs=flush_secs,
                                  filename_suffix=filename_suffix or "")
        self._closed = False
        _write_synchronously(self._writer, flush_secs)
        if hasattr(graph, "as_graph_def"):  # TF's writer adds the meta graph with it
            from estimator_npu.train import meta_graph
            meta = meta_graph.meta_graph_def(graph)     # the graph serialized once
            self.add_graph(None, graph_def=meta.graph_def)
            self.add_meta_graph(meta)
        elif graph is not None:
            self.add_graph(graph)

    def get_logdir(self):
        return self._logdir

    def add_summary(self, summary, global_step=None):
        """Adds a summary (the value of a summary op, a ``Summary`` or proto bytes)."""
        proto = to_proto(summary)
        step = None if global_step is None else int(global_step)
        self._writer.add_summary(proto, step)

    def add_graph(self, graph, global_step=None, graph_def=None):
        from tensorboardX.proto.event_pb2 import Event
        self._writer.add_event(Event(graph_def=graph_def_bytes(
            graph if graph is not None else graph_def)),
                               None if global_step is None else int(global_step))

    def add_session_log(self, session_log, global_step=None):
        """Adds a ``SessionLog`` proto, or one built from a status name such as
        ``"START"``."""
        from tensorboardX.proto.event_pb2 import Event, SessionLog
        if isinstance(session_log, str):
            session_log = SessionLog(status=SessionLog.SessionStatus.Value(session_log))
        self._writer.add_event(Event(session_log=session_log),
                               None if global_step is None else int(global_step))

    def add_event(self, event):
        self._writer.add_event(event)

    def add_run_metadata(self, run_metadata, tag, global_step=None):
        """Accepted for TF1 compatibility; run metadata is not recorded."""

    def add_meta_graph(self, meta_graph_def, global_step=None):
        """Writes a ``meta_graph_def`` event (a ``MetaGraphDef`` or its bytes)."""
        from tensorboardX.proto.event_pb2 import Event
        data = meta_graph_def if isinstance(meta_graph_def, bytes) else \
            meta_graph_def.SerializeToString()
        self._writer.add_event(Event(meta_graph_def=data),
                               None if global_step is None else int(global_step))

    def flush(self):
        self._writer.flush()

    def close(self):
        if not self._closed:
            self._writer.close()
            self._closed = True

    def reopen(self):
        if self._closed:
            ew = getattr(self._writer, "event_writer", None)
            if isinstance(getattr(ew, "_worker", None), _NoWorker):
                ew._closed = False  # synchronous writing: no worker thread to restart
            else:
                self._writer.reopen()
            self._closed = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class _NoWorker:
    def stop(self):
        pass


def _write_synchronously(tbx_writer, flush_secs):
    """Makes tensorboardX's event writer write each event when it is added (flushing to
    disk every ``flush_secs``), as TF's does: its background thread and queue would
    otherwise make ``flush()`` return before the last events reach the file, and a hook
    that writes at the end (the final checkpoint's session log) would lose them.
    Leaves the writer as it is when its internals are not the expected ones."""
    ew = getattr(tbx_writer, "event_writer", None)
    worker = getattr(ew, "_worker", None)
    records = getattr(ew, "_ev_writer", None)
    if worker is None or records is None or not hasattr(worker, "stop"):
        return
    worker.stop()  # writes what is queued, then ends the thread
    ew._worker = _NoWorker()
    lock = threading.Lock()
    state = {"next_flush": time.monotonic() + flush_secs}

    def add_event(event):
        if ew._closed:
            return
        with lock:
            records.write_event(event)
            now = time.monotonic()
            if now >= state["next_flush"]:
                records.flush()
                state["next_flush"] = now + flush_secs

    def flush():
        if not ew._closed:
            with lock:
                records.flush()
    ew.add_event = add_event
    ew.flush = flush


def graph_def_bytes(graph):
    """The serialized TF ``GraphDef`` of ``graph`` (TF's op types and attrs)."""
    if hasattr(graph, "SerializeToString"):
        return graph.SerializeToString()
    return graph.as_graph_def().SerializeToString()


class FileWriterCache:
    """One shared ``FileWriter`` per log directory."""

    _cache = {}
    _lock = threading.RLock()

    @staticmethod
    def get(logdir):
        from estimator_npu.engine.graph import get_default_graph
        logdir = os.fspath(logdir)
        with FileWriterCache._lock:
            w = FileWriterCache._cache.get(logdir)
            if w is None:
                w = FileWriterCache._cache[logdir] = FileWriter(logdir,
                                                                graph=get_default_graph())
            return w

    @staticmethod
    def clear():
        with FileWriterCache._lock:
            for w in FileWriterCache._cache.values():
                w.close()
            FileWriterCache._cache.clear()

    @staticmethod
    def flush_all():
        """Flushes every cached writer; also run at exit, so that a script that ends with
        an exception (no hook ``end()`` flushes then, as in TF) leaves all its events on
        disk, as TF's buffered event files do at the end of the process."""
        with FileWriterCache._lock:
            for w in FileWriterCache._cache.values():
                if not w._closed:
                    w.flush()


atexit.register(FileWriterCache.flush_all)


def summary_iterator(path, partial_tail_ok=False):
    """Yields the ``Event`` protos of an event file, checking each record's CRC.

    Args:
        path: the event file.
        partial_tail_ok: end quietly at an incomplete last record, for files another
            writer is still appending to (early-stopping hooks read live eval dirs).

    Raises:
        errors.DataLossError: a truncated or corrupted record.
    """
    from estimator_npu import errors
    from tensorboardX.crc32c import crc32c
    from tensorboardX.proto.event_pb2 import Event

    def masked(data):
        c = crc32c(data)
        return (((c >> 15) | (c << 17)) + 0xa282ead8) & 0xFFFFFFFF
    with open(path, "rb") as f:
        while True:
            header = f.read(12)
            if not header:
                return
            if len(header) < 12:
                if partial_tail_ok:
                    return
                raise errors.DataLossError(None, None, f"Truncated record in {path}")
            length, hcrc = struct.unpack("<QI", header)
            data, dcrc = f.read(length), f.read(4)
            if partial_tail_ok and masked(header[:8]) == hcrc and \
                    (len(data) < length or len(dcrc) < 4):
                return
            if masked(header[:8]) != hcrc or len(dcrc) < 4 or \
                    masked(data) != struct.unpack("<I", dcrc)[0]:
                raise errors.DataLossError(None, None, f"Corrupted record in {path}")
            yield Event.FromString(data)


__all__ = ["FileWriter", "FileWriterCache", "summary_iterator", "to_proto", "graph_def"]
