"""Checkpoint files: format, atomic writes, checksums, and the ``checkpoint`` state file.

A checkpoint ``<prefix>`` (e.g. ``model.ckpt-100``) is in TF's V2 tensor-bundle format
(see ``tensor_bundle``): ``<prefix>.data-00000-of-00001`` holds the tensors' bytes and
``<prefix>.index`` the LevelDB table of ``BundleEntryProto`` entries, so real TF reads
our checkpoints and we read TF's (any number of data shards).

The data file is written before the index, each through a temporary file in the same
directory that is flushed, fsync'ed and renamed over the target (``os.replace``), so a
crash leaves either the old files or the new ones. Every byte is checked on read (the
index's block crc32c's, every tensor's crc32c): a corrupted or truncated checkpoint
raises ``errors.DataLossError`` naming the file and the tensor.

Checkpoints of this project's earlier format (first index line ``ENPUCKPT1 <crc32>``,
then a JSON index) still load, with a one-line INFO.

The functions other modules build on (checkpoint recovery, warm start, ``Saver``):

* ``verify_checkpoint(prefix)``: reads and checks every byte of a checkpoint, returns
  its ``CheckpointReader``; raises ``NotFoundError`` (no index / a data file missing)
  or ``DataLossError`` (any check fails, or a file in neither format).
* ``read_checkpoint(prefix)``: ``{name: array}`` of every tensor, all checked (same
  errors).
* ``CheckpointReader(prefix)``: opens and checks the index only (same errors);
  ``get_tensor`` checks each tensor it returns; ``read_many(names, out)`` reads several,
  each once into a fresh array checked as it arrives, and returns them (copied into
  ``out``'s arrays where given) only when all have passed (``Saver.restore`` and warm
  start swap the fresh arrays into the variables).

The ``checkpoint`` state file is TF's text format::

    model_checkpoint_path: "model.ckpt-200"
    all_model_checkpoint_paths: "model.ckpt-100"
    all_model_checkpoint_paths: "model.ckpt-200"
"""
import json
import os
import re
import sys
import tempfile

import numpy as np

from estimator_npu import errors
from estimator_npu.engine import dtypes
from estimator_npu.train import legacy_checkpoint, sstable, tensor_bundle
from estimator_npu.utils import logging

DATA_SUFFIX = ".data-00000-of-00001"
INDEX_SUFFIX = ".index"
META_SUFFIX = ".meta"


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


def _drop_cached(path):
    """Lets the kernel drop the page cache of ``path`` (a file about to be replaced), so
    that writing its replacement reuses those pages instead of taking fresh memory (on a
    VM, first-touched memory can cost seconds per GB). The file itself is untouched."""
    advise = getattr(os, "posix_fadvise", None)
    if advise is None:
        return
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        advise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    except OSError:
        pass
    finally:
        os.close(fd)


_WRITEBACK_BYTES = 16 << 20     # start the disk write of every this many bytes written
_writeback = []                 # [sync_file_range or None], looked up once


def _start_writeback(fd, offset, nbytes):
    """Asks the kernel to start writing ``nbytes`` at ``offset`` of ``fd`` to disk now,
    without waiting (Linux ``sync_file_range(SYNC_FILE_RANGE_WRITE)``), so that the disk
    writes while the rest of the file is produced and the final ``fsync`` has little left
    to wait for. A hint only: nothing happens where the call is unavailable, and errors
    are left to that ``fsync``."""
    if not _writeback:
        fn = None
        if sys.platform.startswith("linux"):
            try:
                import ctypes
                fn = ctypes.CDLL(None, use_errno=True).sync_file_range
                fn.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint]
                fn.restype = ctypes.c_int
            except (OSError, AttributeError):
                fn = None
        _writeback.append(fn)
    if _writeback[0] is not None:
        _writeback[0](fd, offset, nbytes, 2)          # SYNC_FILE_RANGE_WRITE


def atomic_write(path, chunks):
    """Writes the byte chunks to ``path`` atomically (temp file, fsync, ``os.replace``);
    the disk write of each ``_WRITEBACK_BYTES`` starts as soon as they are written."""
    d = os.path.dirname(path)
    _drop_cached(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp", dir=d or ".")
    except OSError as e:
        raise _naming(e, path) from None
    try:
        with os.fdopen(fd, "wb") as f:
            written = started = 0
            for c in chunks:
                f.write(c)
                written += memoryview(c).nbytes
                if written - started >= _WRITEBACK_BYTES:
                    f.flush()
                    _start_writeback(f.fileno(), started, written - started)
                    started = written
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
def write_checkpoint(prefix, tensors, shard_of=None, num_shards=1):
    """Writes ``tensors`` (name -> numpy array, or ``tensor_bundle.Slices`` for a
    partitioned variable) as TF V2 checkpoint ``prefix``: the data files first (tensor
    ``name`` in ``<prefix>.data-<shard_of[name]>-of-<num_shards>``, default shard 0), then
    the index, each atomically."""
    shards, index = tensor_bundle.stream_shards(tensors, shard_of, num_shards)
    for i, chunks in enumerate(shards):
        atomic_write(tensor_bundle.data_filename(prefix, i, num_shards), chunks)
    atomic_write(prefix + INDEX_SUFFIX, [index()])


# ------------------------------------------------------------------ reading
def checkpoint_exists(prefix):
    """True if checkpoint ``prefix`` has an index file (the last file a save writes)."""
    return isinstance(prefix, (str, os.PathLike)) and os.path.isfile(
        os.fspath(prefix) + INDEX_SUFFIX)


def _open_index(prefix):
    path = prefix + INDEX_SUFFIX
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"Unsuccessful TensorSliceReader "
                                   f"constructor: Failed to find any matching files for "
                                   f"{prefix} (no index file {path})") from None
    if raw.startswith(b"ENPUCKPT1 "):
        logging.info("Reading checkpoint %s in estimator_npu's earlier JSON-index format "
                     "(the next save writes TF's tensor-bundle format)", prefix)
        return legacy_checkpoint.LegacyIndex(prefix, raw)
    if tensor_bundle.is_bundle_index(raw):
        return tensor_bundle.BundleReader(prefix, raw)
    raise errors.DataLossError(
        None, None, f"Checkpoint index file {path} is in no known format: expected TF's "
        f"tensor-bundle index (an sstable ending in magic 0x{sstable.MAGIC:016x}) or "
        f"estimator_npu's earlier JSON index (first line 'ENPUCKPT1 <crc32>'), found "
        f"{len(raw)} bytes starting {raw[:16]!r} and ending {raw[-8:]!r} "
        "(truncated or not a checkpoint?)")


class CheckpointReader:
    """Reads checkpoint ``prefix`` (``tf.train.NewCheckpointReader``).

    The index is read and checked on construction; every tensor is checked against its
    crc32c when it is read.

    Raises:
        errors.NotFoundError: no such checkpoint.
        errors.DataLossError: the index is corrupted or in no known format.
    """

    def __init__(self, prefix):
        self.prefix = os.fspath(prefix)
        self._index = _open_index(self.prefix)

    @property
    def format_name(self):
        """``"tensor-bundle V2"`` or ``"estimator_npu JSON-index"``."""
        return self._index.format_name

    def get_variable_to_shape_map(self):
        return {n: self._index.shape(n) for n in self._index.entries}

    def get_variable_to_dtype_map(self):
        out = {}
        for n in self._index.entries:
            name = self._index.dtype_name(n)
            out[n] = dtypes.bfloat16 if name == "bfloat16" else dtypes.as_dtype(name) \
                if name in ("float16", "float32", "float64", "int8", "int16", "int32",
                            "int64", "uint8", "uint16", "bool", "string", "complex64") \
                else name
        return out

    def has_tensor(self, name):
        return name in self._index.entries

    def keys(self):
        """Sorted tensor names."""
        return sorted(self._index.entries)

    def data_files(self):
        """The data file paths the index refers to."""
        return sorted({self._index.data_path(n) for n in self._index.entries})

    def data_ends(self):
        """``{data file path: the offset where its last tensor ends}``: the least size of
        each complete data file."""
        ends = {}
        # a bundle's slices of partitioned tensors too (``_entry``), not only its names
        for n, e in getattr(self._index, "_entry", self._index.entries).items():
            end = e["offset"] + e["nbytes"] if isinstance(e, dict) else e.offset + e.size
            path = self._index.data_path(n)
            ends[path] = max(ends.get(path, 0), int(end))
        return ends

    def get_tensor(self, name):
        """The value of tensor ``name`` (a fresh array; a numpy scalar when 0-d), checked
        against its checksum.

        Raises:
            errors.NotFoundError: no tensor ``name`` (the message lists the nearest
                names) or its data file is missing.
            errors.DataLossError: the bytes fail their checksum or are truncated.
        """
        if name not in self._index.entries:
            raise errors.NotFoundError(None, None, f"Key {name} not found in checkpoint "
                                       f"{self.prefix}{nearest_keys_hint(name, self.keys())}")
        self.check_covered(name)
        value = self._index.read(name)
        # a 0-d tensor comes back as a numpy scalar (np.int64, np.float32, bytes), as TF's
        # reader returns it: Estimator.get_variable_value("global_step") is an integer
        return value[()] if getattr(value, "ndim", 1) == 0 else value

    def check_covered(self, name, index=None):
        """Raises ``ValueError`` (as TF's reader) when the slices tensor ``name`` is saved
        as leave part of it (or of its ``index`` region) unstored."""
        uncovered = getattr(self._index, "uncovered", None)
        mask = uncovered(name) if uncovered else None
        if mask is not None and (index is None or mask[index].any()):
            raise ValueError(f"Does not have sufficient slices for partitioned tensor {name} "
                             f"in checkpoint {self.prefix}: its slices cover "
                             f"{mask.size - int(mask.sum())} of its {mask.size} elements")

    def read_all(self):
        """Every tensor (fresh arrays), after checking all checksums."""
        return self._index.read_all()

    def read_many(self, names, out=None):
        """``{name: value}`` of tensors ``names`` (fresh arrays, each read once), all
        checked before any is returned or written. Where ``out[name]`` is a writable array
        of the tensor's shape and dtype the checked value is copied into it (and it is the
        value returned). Raises as ``get_tensor``."""
        missing = [n for n in names if n not in self._index.entries]
        if missing:
            raise errors.NotFoundError(None, None, f"Key {missing[0]} not found in checkpoint "
                                       f"{self.prefix}"
                                       f"{nearest_keys_hint(missing[0], self.keys())}")
        if hasattr(self._index, "read_many"):
            return self._index.read_many(names, out)
        values = {n: self._index.read(n) for n in names}     # the earlier JSON format
        for n, dest in (out or {}).items():
            v = values.get(n)
            if (isinstance(dest, np.ndarray) and v is not None and dest.shape == v.shape
                    and dest.dtype == v.dtype and dest.flags.writeable):
                np.copyto(dest, v)
                values[n] = dest
        return values

    def verify(self):
        """Reads and checks every byte of the checkpoint, keeping no value."""
        if hasattr(self._index, "verify"):
            self._index.verify()
        else:
            self._index.read_all()

    def close(self):
        """Closes the data files the reader keeps open between reads (reads reopen them)."""
        close = getattr(self._index, "close", None)
        if close is not None:
            close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def debug_string(self):
        """TF's listing: ``name (DT_FLOAT) [2,3]`` per tensor, sorted (bytes)."""
        def line(n):
            name = self._index.dtype_name(n)
            tf_name = _TF_DT_NAMES.get(name, "DT_" + name.upper())
            return f"{n} ({tf_name}) [{','.join(str(d) for d in self._index.shape(n))}]\n"
        return "".join(line(n) for n in self.keys()).encode()


_TF_DT_NAMES = {"float32": "DT_FLOAT", "float64": "DT_DOUBLE", "float16": "DT_HALF",
                "string": "DT_STRING", "bool": "DT_BOOL", "bfloat16": "DT_BFLOAT16"}


def nearest_keys_hint(name, keys, n=5):
    """``"; nearest keys: a, b"`` for a missing ``name`` (empty if nothing is close)."""
    import difflib
    close = difflib.get_close_matches(name, list(keys), n=n, cutoff=0.5)
    if not close:
        base = name.rsplit("/", 1)[-1]
        close = [k for k in keys if k.rsplit("/", 1)[-1] == base][:n]
    return f"; nearest keys that exist: {', '.join(close)}" if close else ""


def verify_checkpoint(prefix):
    """Reads every byte of checkpoint ``prefix`` and checks it.

    Returns:
        The ``CheckpointReader``.
    Raises:
        errors.NotFoundError: no index file, or a data file is missing.
        errors.DataLossError: a checksum fails, a file is truncated, or the index is in
            no known format. Messages name the file (and the tensor).
    """
    reader = CheckpointReader(prefix)
    try:
        reader.verify()
    finally:
        reader.close()
    return reader


def read_checkpoint(prefix):
    """``{name: numpy array}`` of every tensor of ``prefix``, all checked (errors as
    ``verify_checkpoint``)."""
    with CheckpointReader(prefix) as reader:
        return reader.read_all()


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
        # As TF: save_relative_paths makes an absolute path relative to save_dir; then,
        # with a relative save_dir, a relative path (relative to the cwd, like save_dir
        # itself) is stored relative to save_dir ("rel_dir/model.ckpt-3" becomes
        # "model.ckpt-3", which get_checkpoint_state joins back); otherwise the path is
        # stored as the saver was given it (MonitoredTrainingSession's: absolute)
        if save_relative_paths and os.path.isabs(p):
            p = os.path.relpath(p, save_dir)
        if not os.path.isabs(save_dir) and not os.path.isabs(p):
            p = os.path.relpath(p, save_dir)
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
           "verify_checkpoint", "read_checkpoint", "nearest_keys_hint",
           "NewCheckpointReader", "delete_checkpoint", "get_checkpoint_mtimes",
           "CheckpointState", "update_checkpoint_state", "get_checkpoint_state",
           "latest_checkpoint", "load_checkpoint", "list_variables", "load_variable"]
