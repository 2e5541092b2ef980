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
import itertools
import os
import struct
import threading

import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine import tf_protos as pb
from estimator_npu.train import sstable
from estimator_npu.train.bundle_files import _CHUNK, _DataFile, _loss

INDEX_SUFFIX = ".index"
BUNDLE_VERSION = 1
_PARALLEL_BYTES = 8 << 20   # reads at least this large are shared by threads
try:
    _WORKERS = max(1, min(4, len(os.sched_getaffinity(0))))
except (AttributeError, OSError):
    _WORKERS = max(1, min(4, os.cpu_count() or 1))

_DT_BY_NAME = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6,
               "string": 7, "complex64": 8, "int64": 9, "bool": 10, "bfloat16": 14,
               "uint16": 17, "complex128": 18, "float16": 19, "uint32": 22, "uint64": 23}
_NAME_BY_DT = {v: k for k, v in _DT_BY_NAME.items()}
_DT_NAMES = {v: n for n, v in pb.DATA_TYPES}


def data_filename(prefix, shard, num_shards):
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def _ordered_num(n):
    """TF's ``OrderedCode::WriteNumIncreasing``: the byte count, then big-endian bytes."""
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([len(raw)]) + raw


_SIGNED_HEADER = [(0, 0), (0x80, 0), (0xC0, 0), (0xE0, 0), (0xF0, 0), (0xF8, 0), (0xFC, 0),
                  (0xFE, 0), (0xFF, 0), (0xFF, 0x80), (0xFF, 0xC0)]


def _ordered_signed(v):
    """TF's ``OrderedCode::WriteSignedNumIncreasing``: n bytes of two's complement whose
    first n bits (n - 1 ones, a zero; inverted for negatives) give the length."""
    x = ~v if v < 0 else v
    n = next(k for k in range(1, 11) if k == 10 or x < 1 << (7 * k - 1))
    buf = bytearray(v.to_bytes(10, "big", signed=True)[10 - n:])
    buf[0] ^= _SIGNED_HEADER[n][0]
    if n > 1:
        buf[1] ^= _SIGNED_HEADER[n][1]
    return bytes(buf)


def slice_key(name, extents):
    """The index key of a slice of tensor ``name`` (TF's ``EncodeTensorNameSlice``):
    ``extents`` is ``[(start, length or -1 for the whole dimension)]``."""
    raw = b"".join(b"\x00\xff" if c == 0 else b"\xff\x00" if c == 0xFF else bytes([c])
                   for c in name.encode("utf-8"))
    out = [_ordered_num(0), raw, b"\x00\x01", _ordered_num(len(extents))]
    for start, length in extents:
        out += [_ordered_signed(int(start)), _ordered_signed(int(length))]
    return b"".join(out)


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


class Slices:
    """A tensor saved as slices (the parts of a partitioned variable): ``full_shape`` and
    ``parts``, ``[(offset, array)]``. The index holds the full tensor's entry (dtype,
    full shape, the slices' extents) and one entry per slice under TF's slice key.
    ``shards``: the data file of each part (default: the tensor's), as TF's sharded
    Saver puts each part in the shard of its device."""

    def __init__(self, full_shape, parts, shards=None):
        self.full_shape = [int(d) for d in full_shape]
        self.parts = [(list(map(int, off)), np.asarray(a)) for off, a in parts]
        self.shards = None if shards is None else [int(s) for s in shards]
        if not self.parts:
            raise ValueError("Slices: a sliced tensor needs at least one part")


def encode(tensors):
    """``(data chunks, index table bytes)`` of a one-shard bundle holding ``tensors``."""
    chunks, finish = stream(tensors)
    chunks = list(chunks)
    return chunks, finish()


def stream(tensors):
    """``(chunks, finish)``: an iterator over the data file's bytes of a one-shard bundle
    holding ``tensors`` (name -> array or ``Slices``), and a function returning the index
    table's bytes once the iterator is exhausted (see ``stream_shards``)."""
    shards, finish = stream_shards(tensors)
    return shards[0], finish


def _entry_plan(name, arr, shard):
    arr = np.asarray(arr)
    try:
        dt = dtype_enum(arr)
    except TypeError as e:
        raise TypeError(f"Variable {name}: {e}") from None
    if dt == 7:
        parts, crc = _string_bytes(arr)
        return [dt, arr.shape, shard, 0, sum(len(p) for p in parts), crc, parts, None]
    raw = _raw(arr)
    return [dt, arr.shape, shard, 0, raw.nbytes, None, None, raw]


def stream_shards(tensors, shard_of=None, num_shards=1):
    """``(chunks of each data file, finish)`` of a bundle holding ``tensors`` (name ->
    array or ``Slices``) in ``num_shards`` data files, tensor ``name`` in shard
    ``shard_of[name]`` (default 0). Each data file holds its tensors in name order (a
    sliced tensor's slices in the order given), as TF's writer; ``finish()`` returns the
    index table's bytes once every iterator is exhausted.

    Each tensor's crc32c is computed chunk by chunk (``_CHUNK`` bytes) just before the
    chunk is handed on, so writing it reads it from the CPU cache: one pass over memory.
    """
    header = pb.BundleHeaderProto(num_shards=num_shards,
                                  version=pb.VersionDef(producer=BUNDLE_VERSION))
    plans = [[] for _ in range(num_shards)]
    index = []      # (key bytes, plan item or a finished entry proto)
    for name in sorted(tensors, key=lambda n: n.encode("utf-8")):
        value = tensors[name]
        shard = int((shard_of or {}).get(name, 0))
        sliced = isinstance(value, Slices)
        shards = (value.shards or [shard] * len(value.parts)) if sliced else [shard]
        if not all(0 <= s < num_shards for s in shards):
            raise ValueError(f"Variable {name}: shard {shards} is not one of {num_shards}")
        if sliced:
            full = pb.BundleEntryProto(shape=_shape_proto(value.full_shape),
                                       shard_id=shards[0])
            for (offset, arr), shard in zip(value.parts, shards):
                item = _entry_plan(name, arr, shard)
                ext = list(zip(offset, arr.shape))
                full.dtype = item[0]
                full.slices.add().extent.extend(
                    [pb.TensorSliceProto.Extent(start=o, length=n) for o, n in ext])
                plans[shard].append(item)
                index.append((slice_key(name, ext), item))
            index.append((name.encode("utf-8"), full))
        else:
            item = _entry_plan(name, value, shard)
            plans[shard].append(item)
            index.append((name.encode("utf-8"), item))
    for plan in plans:
        offset = 0
        for item in plan:
            item[3] = offset
            offset += item[4]

    def chunks(plan):
        for item in plan:
            if item[6] is not None:
                yield from item[6]
                continue
            raw, crc = item[7], 0
            for pos in range(0, raw.nbytes, _CHUNK):
                piece = raw[pos:pos + _CHUNK]
                crc = sstable.crc32c(piece, crc)
                yield piece
            item[5] = sstable.mask(crc)
            item[7] = None

    def finish():
        items = [(b"", header.SerializeToString())]
        for key, item in sorted(index, key=lambda kv: kv[0]):
            if isinstance(item, list):
                dt, shape, shard, off, size, crc = item[:6]
                if crc is None:
                    raise RuntimeError("the data chunks were not all written")
                item = pb.BundleEntryProto(dtype=dt, shape=_shape_proto(shape),
                                           shard_id=shard, offset=off, size=size, crc32c=crc)
            items.append((key, item.SerializeToString()))
        return sstable.build_table(items)
    return [chunks(plan) for plan in plans], finish


# ------------------------------------------------------------------ reading
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
        self._slots, self._files, self._lock, self._swap = {}, {}, threading.Lock(), False
        # entries: the tensors a reader lists (a partitioned variable by its full name);
        # _entry also holds the slices those are stored in (TF's Saver of partitioned
        # variables), under names "<tensor>[<start>:<stop>,...]"
        self.entries, self._entry, self.sliced, pieces = {}, {}, {}, {}
        for key, value in items[1:]:
            e = pb.BundleEntryProto()
            name = key.decode("utf-8", "replace")
            try:
                e.ParseFromString(value)
            except Exception as ex:
                raise _loss(f"Checkpoint index file {self.index_path}: entry for tensor "
                            f"{name!r} is not parseable ({ex})") from None
            if e.shard_id >= self.num_shards:
                raise _loss(f"Checkpoint index file {self.index_path}: tensor {name!r} "
                            f"names shard {e.shard_id} of {self.num_shards}")
            if key[:1] == b"\x00":             # one slice of a partitioned tensor
                pieces[key] = e
                continue
            self.entries[name] = self._entry[name] = e
        for name, e in self.entries.items():
            if e.slices:
                self.sliced[name] = [self._piece(name, e, sl, pieces) for sl in e.slices]
        if pieces:
            raise _loss(f"Checkpoint index file {self.index_path}: {len(pieces)} tensor "
                        "slice(s) that no tensor's entry lists")

    def _piece(self, name, e, sl, pieces):
        """``(numpy index, piece name)`` of slice ``sl`` of tensor ``name``; its entry
        (found under TF's key for the slice) is moved from ``pieces`` to ``_entry``."""
        full = [int(d.size) for d in e.shape.dim]
        if len(sl.extent) != len(full):
            raise _loss(f"Checkpoint index file {self.index_path}: a slice of tensor "
                        f"{name!r} has {len(sl.extent)} dimensions, the tensor {len(full)}")
        bounds = []
        for ext, size in zip(sl.extent, full):
            length = ext.length if ext.HasField("length") else -1
            stop = size if length < 0 else ext.start + length
            if not 0 <= ext.start <= stop <= size:
                raise _loss(f"Checkpoint index file {self.index_path}: a slice of tensor "
                            f"{name!r} lies outside its shape {full}")
            bounds.append((int(ext.start), length, int(stop)))
        key = slice_key(name, [(b[0], b[1]) for b in bounds])
        piece = pieces.pop(key, None)
        label = f"{name}[{','.join(f'{b[0]}:{b[2]}' for b in bounds)}]"
        want = [b[2] - b[0] for b in bounds]
        if piece is None:
            raise _loss(f"Checkpoint index file {self.index_path}: slice {label} of tensor "
                        f"{name!r} has no entry")
        if [int(d.size) for d in piece.shape.dim] != want or piece.dtype != e.dtype:
            raise _loss(f"Checkpoint index file {self.index_path}: slice {label} of tensor "
                        f"{name!r} is stored with another shape or dtype")
        self._entry[label] = piece
        return tuple(slice(b[0], b[2]) for b in bounds), label

    def uncovered(self, name):
        """For a tensor saved as slices that do not cover it (TF's partitioned linear
        models save each part's slot as a slice of its own full tensor), the boolean mask
        of the elements no slice holds; ``None`` when every element is stored."""
        if name not in self.sliced:
            return None
        mask = np.ones(self.shape(name), bool)
        for idx, _ in self.sliced[name]:
            mask[idx] = False
        return mask if mask.any() else None

    def shape(self, name):
        return [int(d.size) for d in self._entry[name].shape.dim]

    def dtype_name(self, name):
        dt = self._entry[name].dtype
        return _NAME_BY_DT.get(dt, _DT_NAMES.get(dt, str(dt)).lower())

    def data_path(self, name):
        return data_filename(self.prefix, self._entry[name].shard_id, self.num_shards)

    def _check_dtype(self, name):
        dname = self.dtype_name(name)
        if dname not in _DT_BY_NAME:
            raise _loss(f"Checkpoint {self.prefix}: tensor {name!r} has dtype {dname}, "
                        "which this reader does not support")
        return dname

    def _layout(self, name):
        """``(numpy dtype, shape)`` of tensor ``name`` (dtype ``None``: strings), after
        checking its entry's size against them."""
        e = self._entry[name]
        dname = self._check_dtype(name)
        shape = self.shape(name)
        if dname == "string":
            return None, shape
        dt = _np_dtype(dname).newbyteorder("<")
        need = dt.itemsize * int(np.prod(shape, dtype=np.int64))
        if need != e.size:
            raise _loss(f"Checkpoint index file {self.index_path}: tensor {name!r} of "
                        f"shape {shape} and dtype {dname} needs {need} bytes but its "
                        f"entry says {e.size}")
        return dt, shape

    def _check_crc(self, name, crc):
        e = self._entry[name]
        if sstable.mask(crc) != e.crc32c and (e.size or e.crc32c not in (0, sstable.mask(0))):
            raise self._crc_error(name, self.data_path(name))

    def read(self, name, f=None):
        """The value of tensor ``name`` as a fresh numpy array, checked against its crc."""
        return self.read_many([name])[name]

    def _slot(self, name):
        """``(data path, offset, size, numpy dtype or None (strings), shape tuple)`` of
        tensor ``name``, computed (and its entry's size checked) once per reader."""
        slot = self._slots.get(name)
        if slot is None:
            e = self._entry[name]
            dt, shape = self._layout(name)
            if dt is not None and not dt.isnative:
                dt = dt.newbyteorder("=")       # big-endian host: swapped after reading
                self._swap = True
            slot = self._slots[name] = (self.data_path(name), int(e.offset), int(e.size),
                                        dt, tuple(shape))
        return slot

    def _file(self, path, name):
        """The open data file ``path``, opened once per reader (thread-safe)."""
        df = self._files.get(path)
        if df is None:
            with self._lock:
                df = self._files.get(path)
                if df is None:
                    df = self._files[path] = _DataFile(self.prefix, path, name)
        return df

    def close(self):
        """Closes the data files this reader holds open (a later read reopens them)."""
        with self._lock:
            files, self._files = self._files, {}
        for df in files.values():
            df.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def read_many(self, names, out=None, check_only=False):
        """``{name: value}`` of tensors ``names``, each read once, into a fresh array, and
        checked against its crc32c piece by piece as it arrives (each piece while it is
        still in the CPU cache); no value is returned or written before every one of them
        has passed, so a caller that installs the values only when this returns (as
        ``Saver.restore`` swaps them into the variables) changes nothing on an error.

        Where ``out[name]`` is a writable array of the tensor's shape and (native) dtype,
        the checked value is then copied into it and that array is returned (one copy
        more than installing the fresh array). ``check_only``: check every byte through
        one reused buffer, keep nothing, return ``None``.

        The data files stay open in the reader between calls (``close`` closes them);
        reads are positional, so several threads may read through one reader.

        Raises:
            errors.NotFoundError: a data file is missing (names it and a tensor).
            errors.DataLossError: a data file is truncated or a tensor fails its crc32c
                (names the file and the tensor).
        """
        if self.sliced and any(n in self.sliced for n in names):
            return self._read_sliced(names, out, check_only)
        slot = self._slot
        order = sorted(names, key=lambda n: slot(n)[:2]) if len(names) > 1 else names
        values, jobs = {}, []
        for name in order:
            path, offset, size, dt, shape = slot(name)
            df = self._file(path, name)
            if dt is None:
                value = self._strings(name, path, bytes(df.read(offset, size, name)[0]),
                                      shape)
            else:
                value = None if check_only else np.empty(shape, dt)
                jobs.append((name, df, offset, size,
                             None if check_only else value.reshape(-1).view(np.uint8)))
            if not check_only:
                values[name] = value
        self._run(jobs)
        if check_only:
            return None
        if self._swap:
            for value in values.values():
                if value.dtype.kind != "O" and value.dtype.itemsize > 1:
                    value.byteswap(inplace=True)
        for name, dest in (out or {}).items():
            value = values.get(name)
            if value is not None and value.dtype.kind != "O" and _fits(
                    dest, value.dtype, value.shape):
                np.copyto(dest, value)
                values[name] = dest
        return values

    def _read_sliced(self, names, out, check_only):
        """``read_many`` where some of ``names`` are stored as slices: every slice is read
        (and checked) with the other tensors, then each such tensor is put together."""
        whole = [n for n in names if n not in self.sliced]
        pieces = [label for n in names if n in self.sliced for _, label in self.sliced[n]]
        got = self.read_many(whole + pieces, out=out, check_only=check_only)
        if check_only:
            return None
        for n in names:
            if n in self.sliced:
                parts = [(idx, got.pop(label)) for idx, label in self.sliced[n]]
                value = np.zeros(self.shape(n), parts[0][1].dtype if parts else
                                 _np_dtype(self._check_dtype(n)))
                for idx, part in parts:
                    value[idx] = part
                got[n] = value
        return got

    def _run(self, jobs):
        """Reads and checks ``jobs`` (``(name, data file, offset, size, destination uint8
        view or None: check only)``, in file order). A large read is shared by up to
        ``_WORKERS`` threads, each taking the next tensor in file order and checking it
        piece by piece on its own core while the others read (the reads release the
        GIL), so the time is about the larger of reading and checksumming rather than
        their sum. A failure is raised for the first failing tensor in file order, after
        every thread has stopped."""
        check = self._check_crc

        def one(job, scratch):
            # reads one job into its array (or checksums it in ``scratch[0]``, made once)
            name, df, offset, size, dest = job
            if dest is None:
                if scratch[0] is None:
                    scratch[0] = np.empty(_CHUNK, np.uint8)
                check(name, df.checksum(offset, size, name, scratch[0]))
            else:
                check(name, df.read(offset, size, name, dest)[1])

        workers = min(_WORKERS, len(jobs))
        if workers < 2 or sum(j[3] for j in jobs) < _PARALLEL_BYTES:
            scratch = [None]
            for job in jobs:
                one(job, scratch)
            return
        claim, failed = itertools.count(), {}

        def work():
            scratch = [None]
            try:
                while not failed:
                    i = next(claim)         # atomic: each job is taken by one thread
                    if i >= len(jobs):
                        return
                    try:
                        one(jobs[i], scratch)
                    except BaseException as e:      # raised by the caller's thread
                        failed[i] = e
            except BaseException as e:              # e.g. MemoryError in the loop
                failed[-1] = e
        threads = [threading.Thread(target=work, daemon=True) for _ in range(workers - 1)]
        for t in threads:
            t.start()
        try:
            work()
        finally:
            for t in threads:
                t.join()
        if failed:
            raise failed[min(failed)]

    def verify(self):
        """Checks every byte of every tensor, without keeping any value."""
        self.read_many(list(self._entry), check_only=True)

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
        if crc != self._entry[name].crc32c:
            raise self._crc_error(name, path)
        return out.reshape(shape)

    def read_all(self):
        """Every tensor (fresh arrays), each verified before any is returned."""
        return self.read_many(list(self.entries))


def _fits(dest, dt, shape):
    """Whether a value of ``dt``/``shape`` can be copied into ``dest`` as it is."""
    return (isinstance(dest, np.ndarray) and dest.flags.writeable
            and dest.flags.c_contiguous and dest.dtype == dt and dest.dtype.isnative
            and list(dest.shape) == list(shape))


def is_bundle_index(raw):
    return sstable.is_table(raw)


__all__ = ["BundleReader", "Slices", "encode", "stream", "stream_shards", "data_filename", "is_bundle_index", "dtype_enum"]
