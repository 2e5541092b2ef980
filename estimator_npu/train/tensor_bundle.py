"""TF's V2 checkpoint format ("tensor bundle"): ``<prefix>.index`` + ``<prefix>.data-*``.

* ``<prefix>.data-SSSSS-of-NNNNN``: the tensors' bytes, little-endian, back to back in
  key order. A string tensor is stored as the varint64 length of every element, the
  masked crc32c of those lengths (each taken as a little-endian uint32) as fixed32, then
  the element bytes.
* ``<prefix>.index``: a LevelDB table (``sstable``) mapping the empty key to a
  ``BundleHeaderProto`` (number of shards, endianness, version) and every tensor name to
  a ``BundleEntryProto`` (dtype, shape, shard id, offset, size, masked crc32c of the
  tensor's bytes).

``write_bundle`` writes one shard; ``BundleReader`` reads any number of shards and
checks every byte it returns (block checksums of the index, per-tensor crc32c).
Problems raise ``errors.DataLossError`` / ``errors.NotFoundError`` naming the file and,
where there is one, the tensor.
"""
import os
import struct

import numpy as np

from estimator_npu import errors
from estimator_npu.engine import dtypes
from estimator_npu.engine import tf_protos as pb
from estimator_npu.train import sstable

INDEX_SUFFIX = ".index"
BUNDLE_VERSION = 1
_CHUNK = 1 << 24

_DT_BY_NAME = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6,
               "string": 7, "complex64": 8, "int64": 9, "bool": 10, "bfloat16": 14,
               "uint16": 17, "complex128": 18, "float16": 19, "uint32": 22, "uint64": 23}
_NAME_BY_DT = {v: k for k, v in _DT_BY_NAME.items()}
_DT_NAMES = {v: n for n, v in pb.DATA_TYPES}


def data_filename(prefix, shard, num_shards):
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def _np_dtype(name):
    if name in ("uint32", "uint64", "complex128"):
        return np.dtype(name)
    d = dtypes.as_dtype(name) if name != "bfloat16" else dtypes.bfloat16
    if d is None:
        raise TypeError("bfloat16 tensors need the ml_dtypes package "
                        "(pip install 'estimator-npu[bf16]')")
    return d.np


def dtype_enum(arr):
    """TF's ``DataType`` number for a numpy array's element type."""
    if arr.dtype.kind in "OSU":
        return 7
    name = "bfloat16" if arr.dtype.name == "bfloat16" else arr.dtype.name
    try:
        return _DT_BY_NAME[name]
    except KeyError:
        raise TypeError(f"cannot checkpoint a tensor of dtype {arr.dtype}") from None


# ------------------------------------------------------------------ writing
def _string_bytes(arr):
    flat = [x.encode("utf-8") if isinstance(x, str) else bytes(x) for x in arr.reshape(-1)]
    lengths = b"".join(sstable.varint(len(s)) for s in flat)
    crc = 0
    for s in flat:
        n = len(s)
        crc = sstable.crc32c(struct.pack("<I", n) if n <= 0xffffffff else
                             struct.pack("<Q", n), crc)
    length_crc = struct.pack("<I", sstable.mask(crc))
    crc = sstable.crc32c(length_crc, crc)
    for s in flat:
        crc = sstable.crc32c(s, crc)
    return [lengths, length_crc] + flat, sstable.mask(crc)


def _raw(arr):
    arr = np.ascontiguousarray(arr)
    if arr.dtype.byteorder == ">":
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    return arr.reshape(-1).view(np.uint8)


def _shape_proto(shape):
    return pb.TensorShapeProto(dim=[pb.TensorShapeProto.Dim(size=int(d)) for d in shape])


def encode(tensors):
    """``(data chunks, index table bytes)`` of a one-shard bundle holding ``tensors``."""
    chunks, items, offset = [], [], 0
    header = pb.BundleHeaderProto(num_shards=1, version=pb.VersionDef(producer=BUNDLE_VERSION))
    items.append((b"", header.SerializeToString()))
    for name in sorted(tensors, key=lambda n: n.encode("utf-8")):
        arr = np.asarray(tensors[name])
        try:
            dt = dtype_enum(arr)
        except TypeError as e:
            raise TypeError(f"Variable {name}: {e}") from None
        if dt == 7:
            parts, crc = _string_bytes(arr)
            size = sum(len(p) for p in parts)
        else:
            raw = _raw(arr)
            parts, size, crc = [raw], raw.nbytes, sstable.mask(sstable.crc32c(raw))
        entry = pb.BundleEntryProto(dtype=dt, shape=_shape_proto(arr.shape), offset=offset,
                                    size=size, crc32c=crc)
        items.append((name.encode("utf-8"), entry.SerializeToString()))
        chunks.extend(parts)
        offset += size
    return chunks, sstable.build_table(items)


# ------------------------------------------------------------------ reading
def _loss(msg):
    return errors.DataLossError(None, None, msg)


class BundleReader:
    """The entries of a tensor-bundle checkpoint ``prefix``, read from its index file.

    Raises:
        errors.DataLossError: the index file fails a check (names the file).
    """

    format_name = "tensor-bundle V2"

    def __init__(self, prefix, index_bytes):
        self.prefix = prefix
        self.index_path = prefix + INDEX_SUFFIX
        try:
            items = sstable.read_table(index_bytes)
        except sstable.TableError as e:
            raise _loss(f"Checkpoint index file {self.index_path} is corrupted: {e}") from None
        if not items or items[0][0] != b"":
            raise _loss(f"Checkpoint index file {self.index_path} has no bundle header")
        header = pb.BundleHeaderProto()
        try:
            header.ParseFromString(items[0][1])
        except Exception as e:  # protobuf DecodeError
            raise _loss(f"Checkpoint index file {self.index_path}: unreadable bundle "
                        f"header ({e})") from None
        if header.endianness != 0:
            raise _loss(f"Checkpoint {prefix} is big-endian; only little-endian bundles "
                        "are supported")
        self.num_shards = max(1, header.num_shards)
        self.entries = {}
        for key, value in items[1:]:
            e = pb.BundleEntryProto()
            name = key.decode("utf-8", "replace")
            try:
                e.ParseFromString(value)
            except Exception as ex:
                raise _loss(f"Checkpoint index file {self.index_path}: entry for tensor "
                            f"{name!r} is not parseable ({ex})") from None
            if e.slices:
                raise _loss(f"Checkpoint {prefix}: tensor {name!r} is stored as "
                            "partitioned slices, which are not supported")
            if e.shard_id >= self.num_shards:
                raise _loss(f"Checkpoint index file {self.index_path}: tensor {name!r} "
                            f"names shard {e.shard_id} of {self.num_shards}")
            self.entries[name] = e

    def shape(self, name):
        return [int(d.size) for d in self.entries[name].shape.dim]

    def dtype_name(self, name):
        dt = self.entries[name].dtype
        return _NAME_BY_DT.get(dt, _DT_NAMES.get(dt, str(dt)).lower())

    def data_path(self, name):
        return data_filename(self.prefix, self.entries[name].shard_id, self.num_shards)

    def _read(self, f, name, path, out_len):
        e = self.entries[name]
        f.seek(e.offset)
        buf = bytearray(out_len)
        n = f.readinto(buf)
        if n != out_len:
            raise _loss(f"Checkpoint {self.prefix}: data file {path} ends after "
                        f"{e.offset + n} bytes but tensor {name!r} needs bytes up to "
                        f"{e.offset + out_len} (truncated?)")
        return buf

    def read(self, name, f=None):
        """The value of tensor ``name`` as a fresh numpy array, checked against its crc."""
        e = self.entries[name]
        path = self.data_path(name)
        dname = self.dtype_name(name)
        if dname not in _DT_BY_NAME:
            raise _loss(f"Checkpoint {self.prefix}: tensor {name!r} has dtype {dname}, "
                        "which this reader does not support")
        close = f is None
        if f is None:
            try:
                f = open(path, "rb")
            except FileNotFoundError:
                raise errors.NotFoundError(None, None, f"Checkpoint {self.prefix}: data file "
                                           f"{path} is missing (needed for tensor "
                                           f"{name!r})") from None
        try:
            shape = self.shape(name)
            if dname == "string":
                buf = self._read(f, name, path, e.size)
                return self._strings(name, path, buf, shape)
            dt = _np_dtype(dname).newbyteorder("<")
            arr = np.empty(shape, dt)
            if arr.nbytes != e.size:
                raise _loss(f"Checkpoint index file {self.index_path}: tensor {name!r} of "
                            f"shape {shape} and dtype {dname} needs {arr.nbytes} bytes but "
                            f"its entry says {e.size}")
            if arr.nbytes:
                f.seek(e.offset)
                view = arr.reshape(-1).view(np.uint8)
                n = f.readinto(view)
                if n != arr.nbytes:
                    raise _loss(f"Checkpoint {self.prefix}: data file {path} ends after "
                                f"{e.offset + n} bytes but tensor {name!r} needs bytes up "
                                f"to {e.offset + e.size} (truncated?)")
                if sstable.mask(sstable.crc32c(view)) != e.crc32c:
                    raise self._crc_error(name, path)
            elif e.crc32c not in (0, sstable.mask(0)):
                raise self._crc_error(name, path)
            return arr if dt.isnative else arr.astype(dt.newbyteorder("="))
        finally:
            if close:
                f.close()

    def _crc_error(self, name, path):
        return _loss(f"Checkpoint {self.prefix} is corrupted: tensor {name!r} in data file "
                     f"{path} fails its crc32c checksum")

    def _strings(self, name, path, buf, shape):
        count = int(np.prod(shape, dtype=np.int64))
        pos, lengths = 0, []
        try:
            for _ in range(count):
                n, pos = sstable.read_varint(buf, pos)
                lengths.append(n)
        except sstable.TableError:
            raise _loss(f"Checkpoint {self.prefix}: string tensor {name!r} in {path} has "
                        "corrupted lengths") from None
        if pos + 4 + sum(lengths) != len(buf):
            raise _loss(f"Checkpoint {self.prefix}: string tensor {name!r} in {path} has "
                        f"{len(buf)} bytes, its lengths add up to {pos + 4 + sum(lengths)}")
        out = np.empty(count, dtype=object)
        start = pos + 4
        for i, n in enumerate(lengths):
            out[i] = bytes(buf[start:start + n])
            start += n
        _, crc = _string_bytes(out)
        if crc != self.entries[name].crc32c:
            raise self._crc_error(name, path)
        return out.reshape(shape)

    def read_all(self):
        """Every tensor, each verified; data files opened once each."""
        out, files = {}, {}
        try:
            for name in sorted(self.entries, key=lambda n: (self.entries[n].shard_id,
                                                            self.entries[n].offset)):
                path = self.data_path(name)
                if path not in files:
                    try:
                        files[path] = open(path, "rb")
                    except FileNotFoundError:
                        raise errors.NotFoundError(
                            None, None, f"Checkpoint {self.prefix}: data file {path} is "
                            f"missing (needed for tensor {name!r})") from None
                out[name] = self.read(name, files[path])
        finally:
            for f in files.values():
                f.close()
        return out


def is_bundle_index(raw):
    return sstable.is_table(raw)


__all__ = ["BundleReader", "encode", "data_filename", "is_bundle_index", "dtype_enum"]
