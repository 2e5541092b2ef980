"""TFRecord files: TensorFlow's record framing, written and read byte for byte.

A TFRecord file is a sequence of records, each framed as::

    uint64 length              little-endian
    uint32 masked_crc32c(length bytes)
    byte   data[length]
    uint32 masked_crc32c(data)

where ``masked(c) = ((c >> 15 | c << 17) + 0xa282ead8) mod 2**32``. The whole stream may
be compressed with GZIP or ZLIB (deflate, zlib's default level and memLevel 9, as TF).
Every crc is checked on read; a mismatch, or a record cut short inside its data, raises
``errors.DataLossError`` naming the file and the byte offset (of the uncompressed
stream). As in TF, a file that ends inside a record's 12-byte header ends the file::

    with TFRecordWriter("train.tfrecord", "GZIP") as w:
        w.write(example.SerializeToString())
    for record in tf_record_iterator("train.tfrecord", "GZIP"):
        ...
"""
import os
import struct
import zlib

import google_crc32c

from estimator_npu import errors
from estimator_npu.utils import validation

_MASK_DELTA = 0xA282EAD8
_LEN = struct.Struct("<Q")
_CRC = struct.Struct("<I")
_HEADER = struct.Struct("<QI")
_crc32c = google_crc32c.value


def masked_crc32c(data):
    """TF's masked crc32c of ``data`` (bytes-like)."""
    c = _crc32c(data)
    return (((c >> 15) | (c << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def frame(record):
    """The bytes of one framed record."""
    header = _LEN.pack(len(record))
    return b"".join((header, _CRC.pack(masked_crc32c(header)), record,
                     _CRC.pack(masked_crc32c(record))))


# ---------------------------------------------------------------- options
class TFRecordCompressionType:
    """``tf.io.TFRecordCompressionType`` (TF1's ``tf.python_io`` enum)."""
    NONE = 0
    ZLIB = 1
    GZIP = 2


_BY_NAME = {"": "", "NONE": "", "GZIP": "GZIP", "ZLIB": "ZLIB"}
_BY_ENUM = {0: "", 1: "ZLIB", 2: "GZIP"}


def compression_name(value, what="compression_type"):
    """Normalises a compression argument (None, '', 'GZIP', 'ZLIB', an enum value or
    ``TFRecordOptions``) to ``''``, ``'GZIP'`` or ``'ZLIB'``."""
    if value is None:
        return ""
    if isinstance(value, TFRecordOptions):
        return value.compression_type
    if isinstance(value, bytes):
        value = value.decode()
    if isinstance(value, str) and value.upper() in _BY_NAME:
        return _BY_NAME[value.upper()]
    if isinstance(value, int) and not isinstance(value, bool) and value in _BY_ENUM:
        return _BY_ENUM[value]
    raise ValueError(f"{what} must be one of '', 'ZLIB', 'GZIP' (or None), got {value!r}")


class TFRecordOptions:
    """``tf.io.TFRecordOptions``: compression of a TFRecord file.

    Args:
        compression_type: ``None``/``''``, ``'ZLIB'``, ``'GZIP'`` or a
            ``TFRecordCompressionType`` value.
        flush_mode, input_buffer_size, output_buffer_size, window_bits,
        compression_level, compression_method, mem_level, compression_strategy: zlib
            settings; ``None`` keeps TF's defaults (level 6 via -1, memLevel 9).
    """

    compression_type_map = {TFRecordCompressionType.ZLIB: "ZLIB",
                            TFRecordCompressionType.GZIP: "GZIP",
                            TFRecordCompressionType.NONE: ""}

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
                 output_buffer_size=None, window_bits=None, compression_level=None,
                 compression_method=None, mem_level=None, compression_strategy=None):
        self.compression_type = compression_name(compression_type)
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        return compression_name(options)

    def _compressor(self):
        level = -1 if self.compression_level is None else self.compression_level
        wbits = self.window_bits if self.window_bits is not None else zlib.MAX_WBITS
        if self.compression_type == "GZIP":
            wbits += 16
        mem = 9 if self.mem_level is None else self.mem_level
        strategy = (zlib.Z_DEFAULT_STRATEGY if self.compression_strategy is None
                    else self.compression_strategy)
        return zlib.compressobj(level, zlib.DEFLATED, wbits, mem, strategy)


# ---------------------------------------------------------------- writing
class TFRecordWriter:
    """``tf.io.TFRecordWriter(path, options=None)``: writes records to a TFRecord file.

    ``options`` is a ``TFRecordOptions`` or a compression name. Usable as a context
    manager; ``close()`` finishes the compressed stream.
    """

    def __init__(self, path, options=None):
        path = os.fspath(path)
        if not isinstance(path, str):
            path = path.decode()
        if not isinstance(options, TFRecordOptions):
            options = TFRecordOptions(compression_name(options, "options"))
        self._path = path
        self._options = options
        try:
            self._file = open(path, "wb")
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, f"{path}; No such file or "
                                       "directory") from None
        except OSError as e:
            raise errors.UnknownError(None, None, f"{path}; {e.strerror}") from None
        self._z = options._compressor() if options.compression_type else None

    def write(self, record):
        """Appends one record (bytes, or a str encoded as UTF-8)."""
        if self._file is None:
            raise errors.FailedPreconditionError(None, None,
                                                 f"{self._path}: the writer is closed")
        if isinstance(record, str):
            record = record.encode()
        data = frame(bytes(record) if not isinstance(record, bytes) else record)
        self._file.write(self._z.compress(data) if self._z is not None else data)

    def flush(self):
        """Flushes the written records to the file (a sync flush of the compressor)."""
        if self._file is None:
            return
        if self._z is not None:
            self._file.write(self._z.flush(zlib.Z_SYNC_FLUSH))
        self._file.flush()

    def close(self):
        if self._file is None:
            return
        if self._z is not None:
            self._file.write(self._z.flush(zlib.Z_FINISH))
        self._file.close()
        self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass


# ---------------------------------------------------------------- reading
def _open(path):
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    except IsADirectoryError:
        raise errors.FailedPreconditionError(None, None, f"{path}; Is a directory") from None
    except OSError as e:
        raise errors.UnknownError(None, None, f"{path}; {e.strerror}") from None


def _chunks(path, compression, buffer_size):
    """The (decompressed) bytes of ``path`` in chunks."""
    size = buffer_size if buffer_size and buffer_size > 0 else 256 << 10
    with _open(path) as f:
        if not compression:
            while True:
                b = f.read(size)
                if not b:
                    return
                yield b
            return
        wbits = zlib.MAX_WBITS + (16 if compression == "GZIP" else 0)
        d = zlib.decompressobj(wbits)
        while True:
            b = f.read(size)
            if not b:
                break
            try:
                out = d.decompress(b)
            except zlib.error as e:
                raise errors.DataLossError(None, None, f"{path}: the {compression} "
                                           f"stream is corrupt ({e})") from None
            if out:
                yield out
        tail = d.flush()
        if tail:
            yield tail
        if not d.eof:
            raise errors.DataLossError(None, None, f"{path}: the {compression} stream "
                                       "ends before its end marker (truncated file)")


def read_records(path, compression="", buffer_size=None, with_offsets=False):
    """Yields the records of one TFRecord file (``(offset, record)`` with offsets).

    Raises:
        NotFoundError: the file does not exist.
        DataLossError: a crc mismatch or a record cut short, naming file and offset.
    """
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = path.decode()
    buf = b""
    pos = 0        # read position inside ``buf``
    base = 0       # stream offset of buf[0]
    chunks = _chunks(path, compression, buffer_size)
    eof = False
    header_unpack = _HEADER.unpack_from
    crc_unpack = _CRC.unpack_from
    while True:
        if len(buf) - pos < 12:
            if eof:
                return  # like TF: a partial header ends the file
            buf, base, pos, eof = _refill(chunks, buf, base, pos, 12)
            continue
        length, hcrc = header_unpack(buf, pos)
        end = pos + 16 + length
        if len(buf) < end and not eof:
            if masked_crc32c(buf[pos:pos + 8]) != hcrc:
                _corrupt(path, base + pos, "length")
            buf, base, pos, eof = _refill(chunks, buf, base, pos, 16 + length)
            continue
        if masked_crc32c(buf[pos:pos + 8]) != hcrc:
            _corrupt(path, base + pos, "length")
        if len(buf) < end:
            raise errors.DataLossError(
                None, None, f"{path}: truncated record at byte offset {base + pos}: the "
                f"record needs {16 + length} bytes but the file ends after "
                f"{len(buf) - pos}")
        data = buf[pos + 12:end - 4]
        if _crc32c(data) != _unmask(crc_unpack(buf, end - 4)[0]):
            _corrupt(path, base + pos + 12, "data")
        if with_offsets:
            yield base + pos, data
        else:
            yield data
        pos = end


def _unmask(m):
    r = (m - _MASK_DELTA) & 0xFFFFFFFF
    return ((r >> 17) | (r << 15)) & 0xFFFFFFFF


def _refill(chunks, buf, base, pos, need):
    """Drops consumed bytes and reads chunks until ``need`` bytes are available."""
    parts = [buf[pos:]]
    have = len(parts[0])
    base += pos
    eof = False
    while have < need:
        b = next(chunks, None)
        if b is None:
            eof = True
            break
        parts.append(b)
        have += len(b)
    return b"".join(parts), base, 0, eof


def _corrupt(path, offset, what):
    raise errors.DataLossError(
        None, None, f"{path}: corrupted record at byte offset {offset} (the crc32c of the "
        f"record's {what} does not match)")


def tf_record_iterator(path, options=None):
    """``tf.python_io.tf_record_iterator(path, options)``: the records of one file."""
    return read_records(path, compression_name(options, "options"))


def check_buffer_size(buffer_size):
    if buffer_size is None:
        return None
    return validation.check_non_negative_int("buffer_size", buffer_size)


__all__ = ["TFRecordWriter", "TFRecordOptions", "TFRecordCompressionType",
           "tf_record_iterator", "read_records", "masked_crc32c", "frame"]
