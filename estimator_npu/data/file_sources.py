"""Datasets read from files: TFRecord records, text lines, fixed-length records.

Each element is a scalar string (a 0-d object array holding ``bytes``). Filenames may be
a str, a list of str, a string tensor (scalar or 1-D, e.g. the argument of an
``interleave`` function) or a ``Dataset`` of filenames::

    ds = TFRecordDataset(["a.tfrecord", "b.tfrecord"], compression_type="GZIP",
                         num_parallel_reads=2)      # records of a and b, alternating

The iterator of a file source survives an ``OpError``: after a corrupt record it moves
on to the next file, which is what ``ignore_errors`` relies on (TF does the same: the
rest of a corrupt file is skipped).
"""
import os

import numpy as np

from estimator_npu import errors
from estimator_npu.data import tfrecord
from estimator_npu.data.base import Node
from estimator_npu.data.structure import Spec
from estimator_npu.engine import dtypes
from estimator_npu.engine.shape import TensorShape
from estimator_npu.utils import validation


def scalar_string(value):
    a = np.empty((), dtype=object)
    a[()] = value
    return a


def _as_str(name):
    if isinstance(name, np.ndarray):
        name = name[()] if name.ndim == 0 else name
    if isinstance(name, bytes):
        return name.decode()
    if isinstance(name, (str, os.PathLike)):
        return os.fspath(name)
    raise TypeError(f"filenames must be strings, got {type(name).__name__}: {name!r}")


class Filenames:
    """The ``filenames`` argument of a file dataset: constants, a tensor or a dataset."""

    def __init__(self, filenames, what):
        from estimator_npu.data.dataset import Dataset
        from estimator_npu.data.structure import is_tensor_like
        self.node = None
        self.tensor = None
        self.names = None
        if isinstance(filenames, Dataset):
            spec = filenames._node.spec
            if spec.types != [dtypes.string] or spec.shapes[0].values not in (None, ()):
                raise TypeError(f"{what}: `filenames` must be a dataset of scalar strings, "
                                f"got {filenames!r}")
            self.node = filenames._node
        elif is_tensor_like(filenames):
            from estimator_npu.engine.ops.core import convert_to_tensor
            t = convert_to_tensor(filenames)
            if t.dtype != dtypes.string:
                raise TypeError(f"{what}: `filenames` must be a tf.string tensor, got "
                                f"dtype {t.dtype.name}")
            if t.shape.values is not None and len(t.shape.values) > 1:
                raise ValueError(f"{what}: `filenames` must be a scalar or a vector, got "
                                 f"shape {t.shape}")
            self.tensor = t
        else:
            if isinstance(filenames, (str, bytes, os.PathLike)):
                filenames = [filenames]
            elif isinstance(filenames, np.ndarray):
                filenames = filenames.reshape(-1).tolist()
            if not isinstance(filenames, (list, tuple)):
                raise TypeError(f"{what}: `filenames` must be a string, a list of strings, "
                                f"a string tensor or a dataset of strings, got "
                                f"{type(filenames).__name__}: {filenames!r}")
            self.names = [_as_str(n) for n in filenames]

    def inputs(self):
        return (self.node,) if self.node is not None else ()

    def captures(self):
        return [self.tensor] if self.tensor is not None else []

    def resolve(self, env):
        if self.names is not None:
            return iter(self.names)
        if self.tensor is not None:
            v = np.asarray(env.value(self.tensor))
            return iter([_as_str(n) for n in v.reshape(-1).tolist()])
        return (_as_str(e[0]) for e in self.node.elements(env))


class FileRecords:
    """An iterator over the records of several files, ``cycle`` files at a time
    (records taken in turn, one from each open file, as TF's parallel reads).

    An ``OpError`` raised while reading a file closes that file and is re-raised; the
    next ``next()`` continues with the other files.
    """

    def __init__(self, names, open_file, cycle=1):
        self._names = names
        self._open = open_file
        self._slots = [None] * max(1, cycle)
        self._index = 0
        self._num_open = 0
        self._end_of_input = False

    def __iter__(self):
        return self

    def __next__(self):
        # TF's interleave with block_length 1: a fixed cycle of slots; an exhausted (or
        # failed) file frees its slot, which the next file takes when the cycle returns.
        slots = self._slots
        while True:
            cur = slots[self._index]
            if cur is not None:
                try:
                    value = next(cur)
                except StopIteration:
                    self._close_current()
                    continue
                except errors.OpError:
                    self._close_current()
                    raise
                self._index = (self._index + 1) % len(slots)
                return value
            if not self._end_of_input:
                name = next(self._names, None)
                if name is None:
                    self._end_of_input = True
                else:
                    slots[self._index] = self._open(name)
                    self._num_open += 1
                continue
            if not self._num_open:
                raise StopIteration
            self._index = (self._index + 1) % len(slots)

    def _close_current(self):
        self._slots[self._index] = None
        self._num_open -= 1
        self._index = (self._index + 1) % len(self._slots)


class _FileNode(Node):
    """A source node yielding scalar strings read from each file."""

    what = "file dataset"

    def __init__(self, filenames, compression_type, buffer_size, num_parallel_reads=None):
        self._files = Filenames(filenames, self.what)
        self.inputs = self._files.inputs()
        self._compression = tfrecord.compression_name(compression_type)
        self._buffer = tfrecord.check_buffer_size(buffer_size)
        self._cycle = 1
        if num_parallel_reads is not None:
            n = validation.check_int("num_parallel_reads", num_parallel_reads)
            if n != -1 and n < 1:
                raise ValueError(f"num_parallel_reads must be a positive int or AUTOTUNE "
                                 f"(-1), got {n}")
            self._cycle = os.cpu_count() or 1 if n == -1 else n
        self.spec = Spec(None, [dtypes.string], [TensorShape([])])

    def captures(self):
        return self._files.captures()

    def read(self, path):
        raise NotImplementedError

    def iterate(self, env):
        def open_file(path):
            return iter(self.read(path))
        return FileRecords(self._files.resolve(env), open_file, self._cycle)


class TFRecordNode(_FileNode):
    what = "TFRecordDataset"

    def read(self, path):
        for rec in tfrecord.read_records(path, self._compression, self._buffer):
            yield (scalar_string(rec),)


class TextLineNode(_FileNode):
    """Lines without their line ending (``\\n`` or ``\\r\\n``)."""

    what = "TextLineDataset"

    def read(self, path):
        for line in text_lines(path, self._compression, self._buffer):
            yield (scalar_string(line),)


class FixedLengthRecordNode(_FileNode):
    """Records of ``record_bytes`` bytes between a header and a footer."""

    what = "FixedLengthRecordDataset"

    def __init__(self, filenames, record_bytes, header_bytes, footer_bytes, buffer_size,
                 compression_type):
        super().__init__(filenames, compression_type, buffer_size)
        self._record = validation.check_positive_int("record_bytes", record_bytes)
        self._header = validation.check_non_negative_int("header_bytes", header_bytes or 0)
        self._footer = validation.check_non_negative_int("footer_bytes", footer_bytes or 0)

    def read(self, path):
        for rec in fixed_length_records(path, self._record, self._header, self._footer,
                                        self._compression, self._buffer):
            yield (scalar_string(rec),)


def text_lines(path, compression="", buffer_size=None):
    """The lines of one text file as bytes, without their line ending (``\\n`` or
    ``\\r\\n``); also what ``tf.TextLineReader`` reads."""
    rest = b""
    for chunk in tfrecord._chunks(path, compression, buffer_size):
        lines = (rest + chunk).split(b"\n")
        rest = lines.pop()
        for line in lines:
            yield line[:-1] if line.endswith(b"\r") else line
    if rest:
        yield rest[:-1] if rest.endswith(b"\r") else rest


def fixed_length_records(path, record_bytes, header_bytes=0, footer_bytes=0, compression="",
                         buffer_size=None, hop_bytes=None, strict=True):
    """The ``record_bytes``-long records of one file between its header and footer, one
    every ``hop_bytes`` (default: back to back). ``strict``: bytes left over after the last
    whole record are a ``DataLossError`` (``FixedLengthRecordDataset``); otherwise they are
    skipped, as ``tf.FixedLengthRecordReader`` does."""
    data = b"".join(tfrecord._chunks(path, compression, buffer_size))
    body = data[header_bytes:len(data) - footer_bytes]
    n = record_bytes
    hop = hop_bytes or n
    if strict and len(body) % n:
        raise errors.DataLossError(
            None, None, f"{path}: the {len(body)} bytes between header and footer are "
            f"not a whole number of {n}-byte records (excess {len(body) % n} bytes at "
            f"byte offset {header_bytes + len(body) - len(body) % n})")
    for i in range(0, len(body) - n + 1, hop):
        yield body[i:i + n]


class IgnoreErrorsNode(Node):
    """``ignore_errors()``: drops the elements whose computation raised an ``OpError``."""

    def __init__(self, node):
        self.inputs = (node,)
        self.spec = node.spec

    def iterate(self, env):
        it = iter(self.inputs[0].elements(env))
        while True:
            try:
                yield next(it)
            except StopIteration:
                return
            except errors.OpError:
                continue
