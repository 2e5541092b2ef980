"""TF1's reader ops: ``tf.TFRecordReader``, ``tf.TextLineReader``,
``tf.FixedLengthRecordReader``, ``tf.WholeFileReader``, ``tf.IdentityReader``.

A reader is a per-session resource that takes work units (filenames) from a queue and
produces ``(key, value)`` records, reading the files with the data layer's record code
(``data.tfrecord``, ``data.file_sources``)::

    filename_queue = tf.train.string_input_producer(["data_batch_1.bin"])
    reader = tf.FixedLengthRecordReader(record_bytes=1 + 32 * 32 * 3)
    key, value = reader.read(filename_queue)    # key b"data_batch_1.bin:0", ...

``read`` dequeues the next filename when the current file is done; once the queue is
closed and empty it raises ``OutOfRangeError``. ``read_up_to(queue, n)`` returns up to
``n`` records of one file. Keys are TF's: ``file:offset`` (TFRecord, the record's byte
offset), ``file:line`` (text, 1-based, header lines counted), ``file:index`` (fixed
length), the filename (whole file, identity).
"""
import collections
import threading

import numpy as np

from estimator_npu import errors
from estimator_npu.data import file_sources, tfrecord
from estimator_npu.engine import dtypes
from estimator_npu.engine.ops.core import convert_to_tensor, make_op
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.shape import TensorShape
from estimator_npu.queues.queue_ops import HANDLE, runtime_name
from estimator_npu.utils import validation

OPS = OpFamily(__name__)  # this family's op definitions (data)

ReaderReadV2 = collections.namedtuple("ReaderReadV2", ["key", "value"])
ReaderReadUpToV2 = collections.namedtuple("ReaderReadUpToV2", ["keys", "values"])


def _text(work):
    return work.decode() if isinstance(work, bytes) else str(work)


def _records_tfrecord(attrs, path):
    for offset, rec in tfrecord.read_records(path, attrs["compression_type"],
                                             with_offsets=True):
        yield f"{path}:{offset}", rec


def _records_text(attrs, path):
    skip = attrs["skip_header_lines"]
    for i, line in enumerate(file_sources.text_lines(path), 1):
        if i > skip:
            yield f"{path}:{i}", line


def _records_fixed(attrs, path):
    records = file_sources.fixed_length_records(
        path, attrs["record_bytes"], attrs["header_bytes"], attrs["footer_bytes"],
        attrs["encoding"], hop_bytes=attrs["hop_bytes"], strict=False)
    for i, rec in enumerate(records):
        yield f"{path}:{i}", rec


def _records_whole(attrs, path):
    yield path, b"".join(tfrecord._chunks(path, "", None))


def _records_identity(attrs, work):
    yield work, work


_READERS = {"TFRecordReaderV2": _records_tfrecord, "TextLineReaderV2": _records_text,
            "FixedLengthRecordReaderV2": _records_fixed, "WholeFileReaderV2": _records_whole,
            "IdentityReaderV2": _records_identity}


class ReaderState:
    """One reader in one session: the file in progress and the counters."""

    def __init__(self, op, name):
        self.op = op
        self.name = name
        self._records = _READERS[op.type]
        self._attrs = op.attrs
        self._lock = threading.Lock()
        self._work = None
        self.produced = 0
        self.completed = 0

    def _next_work(self, op, queue):
        work = queue.dequeue(op)[0]
        work = work.item() if isinstance(work, np.ndarray) else work
        if op.type != "IdentityReaderV2":
            work = _text(work)
        self._work = self._records(self._attrs, work)

    def read(self, op, queue, n=None):
        """One ``(key, value)`` (``n=None``) or up to ``n`` of them from one file."""
        want = 1 if n is None else int(n)
        keys, values = [], []
        with self._lock:
            while not keys:
                if self._work is None:
                    self._next_work(op, queue)
                try:
                    while len(keys) < want:
                        key, value = next(self._work)
                        keys.append(key.encode() if isinstance(key, str) else key)
                        values.append(value.encode() if isinstance(value, str) else value)
                except StopIteration:
                    self._work = None
                    self.completed += 1
                except errors.OpError as e:
                    self._work = None
                    raise type(e)(None, op, e.message) from None
            self.produced += len(keys)
        if n is None:
            return file_sources.scalar_string(keys[0]), file_sources.scalar_string(values[0])
        return np.array(keys, dtype=object), np.array(values, dtype=object)

    def reset(self):
        with self._lock:
            self._work = None
            self.produced = self.completed = 0

    def close(self):
        self._work = None


def _reader_kernel(op, ctx):
    state = ctx.resource(("queues.Reader", op), lambda: ReaderState(op, runtime_name(ctx, op)))
    return lambda: state


for _t in _READERS:
    OPS.define(_t, kernel=_reader_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)


def _read_kernel(op, ctx):
    if op.type == "ReaderReadV2":
        return lambda reader, queue: reader.read(op, queue)
    return lambda reader, queue, n: reader.read(op, queue, n)


def _reset_kernel(op, ctx):
    return lambda reader: reader.reset()


OPS.define("ReaderReadV2", kernel=_read_kernel, grad=NOT_DIFFERENTIABLE, stateful=True,
           input_source=True)
OPS.define("ReaderReadUpToV2", kernel=_read_kernel, grad=NOT_DIFFERENTIABLE, stateful=True,
           input_source=True)
OPS.define("ReaderNumRecordsProducedV2",
           kernel=lambda op, ctx: lambda reader: np.int64(reader.produced),
           grad=NOT_DIFFERENTIABLE, stateful=True)
OPS.define("ReaderNumWorkUnitsCompletedV2",
           kernel=lambda op, ctx: lambda reader: np.int64(reader.completed),
           grad=NOT_DIFFERENTIABLE, stateful=True)
OPS.define("ReaderResetV2", kernel=_reset_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)


def _queue_ref(queue):
    ref = getattr(queue, "queue_ref", queue)
    if getattr(ref, "dtype", None) is not HANDLE:
        raise TypeError(f"A reader reads its work from a queue (a tf.FIFOQueue, e.g. from "
                        f"tf.train.string_input_producer), got {queue!r}")
    return ref


class ReaderBase:
    """A reader op and the ops that read from it."""

    _op_type = None

    def __init__(self, reader_ref, supports_serialize=False):
        self._reader_ref = reader_ref
        self._supports_serialize = supports_serialize

    @classmethod
    def _make(cls, name, **attrs):
        op = make_op(cls._op_type, [], [(HANDLE, TensorShape([]))], attrs,
                     name=name or cls._op_type)
        return op.outputs[0]

    @property
    def reader_ref(self):
        return self._reader_ref

    @property
    def supports_serialize(self):
        return self._supports_serialize

    def read(self, queue, name=None):
        """``(key, value)``: the next record, taking a new file from ``queue`` as needed."""
        op = make_op("ReaderReadV2", [self._reader_ref, _queue_ref(queue)],
                     [(dtypes.string, TensorShape([]))] * 2, {"waits_for_input": True},
                     name=name or "ReaderReadV2")
        return ReaderReadV2(*op.outputs)

    def read_up_to(self, queue, num_records, name=None):
        """``(keys, values)``: up to ``num_records`` records of the current file."""
        n = convert_to_tensor(num_records, dtype=dtypes.int64)
        op = make_op("ReaderReadUpToV2", [self._reader_ref, _queue_ref(queue), n],
                     [(dtypes.string, TensorShape([None]))] * 2, {"waits_for_input": True},
                     name=name or "ReaderReadUpToV2")
        return ReaderReadUpToV2(*op.outputs)

    def num_records_produced(self, name=None):
        return make_op("ReaderNumRecordsProducedV2", [self._reader_ref],
                       [(dtypes.int64, TensorShape([]))],
                       name=name or "ReaderNumRecordsProducedV2").outputs[0]

    def num_work_units_completed(self, name=None):
        return make_op("ReaderNumWorkUnitsCompletedV2", [self._reader_ref],
                       [(dtypes.int64, TensorShape([]))],
                       name=name or "ReaderNumWorkUnitsCompletedV2").outputs[0]

    def reset(self, name=None):
        return make_op("ReaderResetV2", [self._reader_ref], [], name=name or "ReaderResetV2")

    def serialize_state(self, name=None):
        raise NotImplementedError("estimator_npu does not implement "
                                  "ReaderBase.serialize_state (yet)")

    def restore_state(self, state, name=None):
        raise NotImplementedError("estimator_npu does not implement ReaderBase.restore_state "
                                  "(yet)")


class TFRecordReader(ReaderBase):
    """The records of TFRecord files (``options``: a ``TFRecordOptions`` for compression)."""

    _op_type = "TFRecordReaderV2"

    def __init__(self, name=None, options=None):
        compression = tfrecord.compression_name(
            None if options is None else getattr(options, "compression_type", options))
        super().__init__(self._make(name, compression_type=compression))


class TextLineReader(ReaderBase):
    """The lines of text files, after the first ``skip_header_lines`` of each."""

    _op_type = "TextLineReaderV2"

    def __init__(self, skip_header_lines=None, name=None):
        skip = validation.check_non_negative_int("skip_header_lines", skip_header_lines or 0)
        super().__init__(self._make(name, skip_header_lines=skip))


class FixedLengthRecordReader(ReaderBase):
    """``record_bytes``-long records between ``header_bytes`` and ``footer_bytes`` of each
    file (one every ``hop_bytes`` when given); a short remainder is skipped."""

    _op_type = "FixedLengthRecordReaderV2"

    def __init__(self, record_bytes, header_bytes=None, footer_bytes=None, hop_bytes=None,
                 name=None, encoding=None):
        attrs = dict(record_bytes=validation.check_positive_int("record_bytes", record_bytes),
                     header_bytes=validation.check_non_negative_int("header_bytes",
                                                                    header_bytes or 0),
                     footer_bytes=validation.check_non_negative_int("footer_bytes",
                                                                    footer_bytes or 0),
                     hop_bytes=validation.check_non_negative_int("hop_bytes", hop_bytes or 0),
                     encoding=tfrecord.compression_name(encoding, "encoding"))
        super().__init__(self._make(name, **attrs))


class WholeFileReader(ReaderBase):
    """One record per file: its name and its whole contents."""

    _op_type = "WholeFileReaderV2"

    def __init__(self, name=None):
        super().__init__(self._make(name), supports_serialize=True)


class IdentityReader(ReaderBase):
    """One record per work unit: the work unit as key and value."""

    _op_type = "IdentityReaderV2"

    def __init__(self, name=None):
        super().__init__(self._make(name), supports_serialize=True)


__all__ = ["ReaderBase", "TFRecordReader", "TextLineReader", "FixedLengthRecordReader",
           "WholeFileReader", "IdentityReader"]
