"""Checkpoint files: format, atomic writes, checksums, and the ``checkpoint`` state file.

A checkpoint ``<prefix>`` (e.g. ``model.ckpt-100``) is two files:

* ``<prefix>.data-00000-of-00001``: the raw little-endian bytes of every tensor, in name
  order, each starting at a multiple of 16 bytes (zero padding between).
* ``<prefix>.index``: the line ``ENPUCKPT1 <crc32 of the rest, 8 hex digits>`` followed
  by JSON: ``{"data_file", "data_size", "data_crc32", "tensors": {name: {"dtype",
  "shape", "offset", "nbytes", "crc32"}}}``.

The data file is written before the index, each through a temporary file in the same
directory that is flushed, fsync'ed and renamed over the target (``os.replace``), so a
crash leaves either the old files or the new ones. Every byte is covered by a CRC-32: a
corrupted or truncated checkpoint raises ``errors.DataLossError`` naming it.

The ``checkpoint`` state file is TF's text format::

    model_checkpoint_path: "model.ckpt-200"
    all_model_checkpoint_paths: "model.ckpt-100"
    all_model_checkpoint_paths: "model.ckpt-200"
"""
import json
import os
import re
import tempfile
import zlib

import numpy as np

from estimator_npu import errors
from estimator_npu.engine import dtypes

DATA_SUFFIX = ".data-00000-of-00001"
INDEX_SUFFIX = ".index"
META_SUFFIX = ".meta"
_MAGIC = b"ENPUCKPT1"
_ALIGN = 16


# ------------------------------------------------------------------ atomic files
def _fsync_dir(path):
    try:
        fd = os.open(path or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path, chunks):
    """Writes the byte chunks to ``path`` atomically (temp file, fsync, ``os.replace``)."""
    d = os.path.dirname(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp", dir=d or ".")
    except OSError as e:
        raise _naming(e, path) from None
    try:
        with os.fdopen(fd, "wb") as f:
            for c in chunks:
                f.write(c)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise _naming(e, path) from None
        raise
    _fsync_dir(d)


def _naming(error, path):
    """``error`` (an ``OSError``) with the file being written in its message."""
    if error.filename is not None and os.fspath(error.filename) == path:
        return error
    new = type(error)(error.errno, f"{error.strerror or error} (writing {path})", path)
    new.__cause__ = error
    return new


# ------------------------------------------------------------------ writing
def _raw(arr):
    if arr.dtype.kind in "OSU":
        raise TypeError(f"cannot checkpoint a tensor of dtype {arr.dtype}")
    arr = np.ascontiguousarray(arr)
    if arr.dtype.byteorder == ">":
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    return arr.reshape(-1).view(np.uint8)


def write_checkpoint(prefix, tensors):
    """Writes ``tensors`` (name -> numpy array) as checkpoint ``prefix``."""
    entries, chunks = {}, []
    offset, crc = 0, 0
    for name in sorted(tensors):
        arr = np.asarray(tensors[name])
        try:
            raw = _raw(arr)
        except TypeError as e:
            raise TypeError(f"Variable {name}: {e}") from None
        pad = (-offset) % _ALIGN
        if pad:
            chunks.append(bytes(pad))
            crc = zlib.crc32(bytes(pad), crc)
            offset += pad
        entries[name] = {"dtype": dtypes.as_dtype(arr.dtype).name, "shape": list(arr.shape),
                         "offset": offset, "nbytes": int(raw.nbytes),
                         "crc32": zlib.crc32(raw)}
        chunks.append(raw)
        crc = zlib.crc32(raw, crc)
        offset += raw.nbytes
    data_path = prefix + DATA_SUFFIX
    body = json.dumps({"data_file": os.path.basename(data_path), "data_size": offset,
                       "data_crc32": crc, "tensors": entries}, sort_keys=True).encode()
    atomic_write(data_path, chunks)
    header = _MAGIC + b" %08x\n" % zlib.crc32(body)
    atomic_write(prefix + INDEX_SUFFIX, [header, body])


# ------------------------------------------------------------------ reading
def checkpoint_exists(prefix):
    """True if checkpoint ``prefix`` has an index file (the last file a save writes)."""
    return isinstance(prefix, (str, os.PathLike)) and os.path.isfile(
        os.fspath(prefix) + INDEX_SUFFIX)


def _data_loss(prefix, what):
    return errors.DataLossError(None, None, f"Checkpoint {prefix} is corrupted: {what}")


class CheckpointReader:
    """Reads checkpoint ``prefix`` (``tf.train.NewCheckpointReader``).

    Raises:
        errors.NotFoundError: no such checkpoint.
        errors.DataLossError: the index is corrupted.
    """

    def __init__(self, prefix):
        self.prefix = os.fspath(prefix)
        path = self.prefix + INDEX_SUFFIX
        try:
            with open(path, "rb") as f:
                raw = f.read()
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, f"Unsuccessful TensorSliceReader "
                                       f"constructor: Failed to find any matching files for "
                                       f"{self.prefix}") from None
        header, _, body = raw.partition(b"\n")
        m = re.fullmatch(rb"ENPUCKPT1 ([0-9a-f]{8})", header)
        if m is None or int(m.group(1), 16) != zlib.crc32(body):
            raise _data_loss(self.prefix, f"index file {path} fails its checksum")
        try:
            index = json.loads(body)
            self._tensors = index["tensors"]
            self._data_size = int(index["data_size"])
            self._data_crc = int(index["data_crc32"])
            self._data_path = os.path.join(os.path.dirname(self.prefix), index["data_file"])
        except (ValueError, KeyError, TypeError) as e:
            raise _data_loss(self.prefix, f"unreadable index ({e})") from None

    def get_variable_to_shape_map(self):
        return {n: list(e["shape"]) for n, e in self._tensors.items()}

    def get_variable_to_dtype_map(self):
        return {n: dtypes.as_dtype(e["dtype"]) for n, e in self._tensors.items()}

    def has_tensor(self, name):
        return name in self._tensors

    def _entry(self, name):
        try:
            return self._tensors[name]
        except KeyError:
            raise errors.NotFoundError(None, None, f"Key {name} not found in checkpoint "
                                       f"{self.prefix}") from None

    def _array(self, name, buf, offset):
        e = self._tensors[name]
        dt = dtypes.as_dtype(e["dtype"]).np.newbyteorder("<")
        count = int(np.prod(e["shape"], dtype=np.int64))
        if count == 0:
            return np.empty(e["shape"], dt.newbyteorder("="))
        arr = np.frombuffer(buf, dtype=dt, count=count, offset=offset).reshape(e["shape"])
        return arr if dt.isnative else arr.astype(dt.newbyteorder("="))

    def get_tensor(self, name):
        """The value of tensor ``name`` (a fresh array), checked against its CRC."""
        e = self._entry(name)
        buf = bytearray(e["nbytes"])
        try:
            with open(self._data_path, "rb") as f:
                f.seek(e["offset"])
                n = f.readinto(buf)
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, f"Checkpoint {self.prefix}: data file "
                                       f"{self._data_path} is missing") from None
        if n != e["nbytes"] or zlib.crc32(buf) != e["crc32"]:
            raise _data_loss(self.prefix, f"tensor {name!r} fails its checksum")
        return self._array(name, buf, 0)

    def read_all(self):
        """Every tensor (read-only arrays over one buffer), after checking all checksums."""
        try:
            with open(self._data_path, "rb") as f:
                buf = f.read()
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, f"Checkpoint {self.prefix}: data file "
                                       f"{self._data_path} is missing") from None
        if len(buf) != self._data_size:
            raise _data_loss(self.prefix, f"data file {self._data_path} has {len(buf)} bytes, "
                             f"expected {self._data_size} (truncated?)")
        if zlib.crc32(buf) != self._data_crc:
            mv = memoryview(buf)
            for name, e in sorted(self._tensors.items()):
                if zlib.crc32(mv[e["offset"]:e["offset"] + e["nbytes"]]) != e["crc32"]:
                    raise _data_loss(self.prefix, f"tensor {name!r} fails its checksum")
            raise _data_loss(self.prefix, f"data file {self._data_path} fails its checksum")
        return {name: self._array(name, buf, e["offset"]) for name, e in self._tensors.items()}

    def debug_string(self):
        return "".join(f"{n} ({e['dtype']}) {e['shape']}\n"
                       for n, e in sorted(self._tensors.items())).encode()


NewCheckpointReader = CheckpointReader


def input_state_path(prefix):
    """The hidden file beside checkpoint ``prefix`` holding its iterator state
    (``<dir>/.<name>.input_state``; see ``data.iterator_state``)."""
    d, base = os.path.split(os.fspath(prefix))
    return os.path.join(d, "." + base + ".input_state")


def delete_checkpoint(prefix, meta_graph_suffix="meta"):
    """Removes every file of checkpoint ``prefix``: index, every data shard
    (``.data-<i>-of-<n>``), the meta graph (missing files are ignored)."""
    import glob
    shards = [p for p in glob.glob(glob.escape(prefix) + ".data-*")
              if re.search(r"\.data-\d{5}-of-\d{5}$", p)]
    for path in [prefix + INDEX_SUFFIX, prefix + "." + meta_graph_suffix,
                 prefix + META_SUFFIX, input_state_path(prefix)] + shards:
        try:
            os.remove(path)
        except FileNotFoundError:
            pass


def get_checkpoint_mtimes(checkpoint_prefixes):
    """Modification times (seconds) of the index files of the existing checkpoints."""
    return [os.path.getmtime(p + INDEX_SUFFIX) for p in checkpoint_prefixes
            if checkpoint_exists(p)]


# ------------------------------------------------------------------ state file
class CheckpointState:
    """The content of a ``checkpoint`` state file."""

    def __init__(self, model_checkpoint_path="", all_model_checkpoint_paths=(),
                 all_model_checkpoint_timestamps=(), last_preserved_timestamp=0.0):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)
        self.all_model_checkpoint_timestamps = list(all_model_checkpoint_timestamps)
        self.last_preserved_timestamp = last_preserved_timestamp

    def to_text(self):
        lines = [f"model_checkpoint_path: {json.dumps(self.model_checkpoint_path)}"]
        lines += [f"all_model_checkpoint_paths: {json.dumps(p)}"
                  for p in self.all_model_checkpoint_paths]
        lines += [f"all_model_checkpoint_timestamps: {t!r}"
                  for t in self.all_model_checkpoint_timestamps]
        if self.last_preserved_timestamp:
            lines.append(f"last_preserved_timestamp: {self.last_preserved_timestamp!r}")
        return "\n".join(lines) + "\n"

    @classmethod
    def from_text(cls, text, path="checkpoint"):
        st = cls()
        for line in text.splitlines():
            line = line.strip()
            if not line:
                continue
            key, sep, value = line.partition(":")
            if not sep:
                raise ValueError(f"Invalid checkpoint state file {path}: {line!r}")
            value = value.strip()
            try:
                parsed = json.loads(value)
            except ValueError:
                raise ValueError(f"Invalid checkpoint state file {path}: {line!r}") from None
            if key == "model_checkpoint_path":
                st.model_checkpoint_path = parsed
            elif key == "all_model_checkpoint_paths":
                st.all_model_checkpoint_paths.append(parsed)
            elif key == "all_model_checkpoint_timestamps":
                st.all_model_checkpoint_timestamps.append(float(parsed))
            elif key == "last_preserved_timestamp":
                st.last_preserved_timestamp = float(parsed)
        return st

    def __repr__(self):
        return f"CheckpointState({self.to_text()!r})"


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                            latest_filename=None, all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None, save_relative_paths=True):
    """Atomically writes ``<save_dir>/<latest_filename or 'checkpoint'>``."""
    paths = list(all_model_checkpoint_paths or [])
    if model_checkpoint_path not in paths:
        paths.append(model_checkpoint_path)

    def rel(p):
        if save_relative_paths and os.path.isabs(p):
            return os.path.relpath(p, save_dir)
        if not save_relative_paths and not os.path.isabs(p):
            return os.path.abspath(os.path.join(save_dir, p))
        return p
    st = CheckpointState(rel(model_checkpoint_path), [rel(p) for p in paths],
                         list(all_model_checkpoint_timestamps or []),
                         last_preserved_timestamp or 0.0)
    path = os.path.join(save_dir, latest_filename or "checkpoint")
    atomic_write(path, [st.to_text().encode()])


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The ``CheckpointState`` of ``checkpoint_dir`` (relative paths made absolute against
    the directory), or ``None`` if it has no state file."""
    path = os.path.join(checkpoint_dir, latest_filename or "checkpoint")
    try:
        with open(path, "r", encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return None
    if not text.strip():
        raise ValueError(f"Invalid checkpoint state loaded from {checkpoint_dir}: the state "
                         f"file {path} is empty")
    st = CheckpointState.from_text(text, path)
    if not st.model_checkpoint_path:
        raise ValueError(f"Invalid checkpoint state loaded from {checkpoint_dir}: the state "
                         f"file {path} names no model_checkpoint_path")

    def full(p):
        return p if os.path.isabs(p) else os.path.join(checkpoint_dir, p)
    st.model_checkpoint_path = full(st.model_checkpoint_path)
    st.all_model_checkpoint_paths = [full(p) for p in st.all_model_checkpoint_paths]
    return st


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest checkpoint named by the state file, or ``None``."""
    st = get_checkpoint_state(checkpoint_dir, latest_filename)
    if st is not None and checkpoint_exists(st.model_checkpoint_path):
        return st.model_checkpoint_path
    return None


def _resolve(ckpt_dir_or_file):
    if os.path.isdir(ckpt_dir_or_file):
        path = latest_checkpoint(ckpt_dir_or_file)
        if path is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given "
                             f"directory {ckpt_dir_or_file}")
        return path
    return ckpt_dir_or_file


def load_checkpoint(ckpt_dir_or_file):
    """A ``CheckpointReader`` for a checkpoint prefix or the latest one in a directory."""
    return CheckpointReader(_resolve(ckpt_dir_or_file))


def list_variables(ckpt_dir_or_file):
    """Sorted ``(name, shape)`` of every tensor of a checkpoint (prefix or directory)."""
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return [(n, shapes[n]) for n in sorted(shapes)]


def load_variable(ckpt_dir_or_file, name):
    """The value of tensor ``name`` (a trailing ``:0`` is ignored) in a checkpoint."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


__all__ = ["atomic_write", "write_checkpoint", "checkpoint_exists", "CheckpointReader",
           "NewCheckpointReader", "delete_checkpoint", "get_checkpoint_mtimes",
           "CheckpointState", "update_checkpoint_state", "get_checkpoint_state",
           "latest_checkpoint", "load_checkpoint", "list_variables", "load_variable"]
