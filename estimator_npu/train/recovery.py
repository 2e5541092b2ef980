"""Recovery of a model_dir whose latest checkpoint is missing, partial or corrupt.

``latest_checkpoint`` keeps TF's contract (the state file's latest, or ``None``); the
restore path (the chief session creator, the Estimator, the Supervisor) asks
``latest_intact_checkpoint`` instead, which verifies the candidates newest first::

    candidates = [state file's latest] + [state file's others, checkpoints on disk] by step
    for prefix in candidates:
        verify(prefix)         # reads every byte through the checkpoint reader
        -> first that verifies is restored; a WARNING names each skipped one and why
    no candidate verifies but checkpoint files exist -> DataLossError listing them
    no checkpoint files at all -> None (a fresh start)

``restore_newest`` is the same search with the restore itself as the check of each
candidate (a restore reads and checks every byte it restores and changes nothing when a
check fails), so the checkpoint a session starts from is read once, not verified and then
read again; ``quick_check`` checks only the index and the data files' sizes (for a
look-ahead such as the Estimator's first global step, before the graph is built).

It relies only on the checkpoint reader's interface (``CheckpointReader(prefix)``,
``get_variable_to_shape_map``, ``get_tensor``/``read_all`` raising ``NotFoundError`` or
``DataLossError``) and on the file names TF uses (``<prefix>.index``,
``<prefix>.data-<i>-of-<n>``, ``<prefix>.meta``), so it works for any checkpoint format
written under those names.
"""
import glob
import os
import re

from estimator_npu import errors
from estimator_npu.train import checkpoint_io
from estimator_npu.utils import logging

_DATA_RE = re.compile(r"\.data-(\d{5})-of-(\d{5})$")
_FILE_RE = re.compile(r"^(?P<prefix>.+-\d+)(?P<ext>\.index|\.meta|\.data-\d{5}-of-\d{5})$")
_TEMP_RE = re.compile(r"^(?P<target>.+?)\.tmp[A-Za-z0-9_]*$")


def checkpoint_files(prefix):
    """Every existing file of checkpoint ``prefix`` (index, data shards, meta), sorted."""
    prefix = os.fspath(prefix)
    pattern = glob.escape(prefix)
    found = glob.glob(pattern + ".index") + glob.glob(pattern + ".meta") + [
        p for p in glob.glob(pattern + ".data-*") if _DATA_RE.search(p)]
    return sorted(set(found))


_verified = {}   # prefix -> the (file, size, mtime) signature last verified intact


def _signature(prefix):
    sig = []
    for path in checkpoint_files(prefix):
        try:
            st = os.stat(path)
        except OSError:
            return None
        sig.append((path, st.st_size, st.st_mtime_ns))
    return tuple(sig)


def verify_checkpoint(prefix):
    """Reads every tensor of checkpoint ``prefix`` (checking every checksum); files that
    were verified and have not changed since are not read again.

    Raises:
        errors.NotFoundError: the index or a data file is missing.
        errors.DataLossError: a file is truncated or corrupted.
    """
    prefix = os.fspath(prefix)
    if not os.path.isfile(prefix + ".index"):
        raise errors.NotFoundError(None, None, f"index file {prefix}.index is missing")
    sig = _signature(prefix)
    if sig is not None and _verified.get(prefix) == sig:
        return
    reader = checkpoint_io.CheckpointReader(prefix)
    shards = [p for p in checkpoint_files(prefix) if _DATA_RE.search(p)]
    if not shards:
        raise errors.NotFoundError(None, None, f"no data file {prefix}.data-*-of-* exists")
    check = getattr(reader, "verify", None) or getattr(reader, "read_all", None)
    if check is not None:
        check()
    else:
        for name in reader.get_variable_to_shape_map():
            reader.get_tensor(name)
    if sig is not None:
        _verified[prefix] = sig


def quick_check(prefix):
    """Checks the index of checkpoint ``prefix`` (every block checksum) and that every data
    file it names exists and is long enough, without reading the tensors.

    Raises:
        errors.NotFoundError: the index or a data file is missing.
        errors.DataLossError: the index is corrupted or a data file is too short.
    """
    prefix = os.fspath(prefix)
    if not os.path.isfile(prefix + ".index"):
        raise errors.NotFoundError(None, None, f"index file {prefix}.index is missing")
    reader = checkpoint_io.CheckpointReader(prefix)
    if not any(_DATA_RE.search(p) for p in checkpoint_files(prefix)):
        raise errors.NotFoundError(None, None, f"no data file {prefix}.data-*-of-* exists")
    for path, end in reader.data_ends().items():
        try:
            size = os.path.getsize(path)
        except OSError:
            raise errors.NotFoundError(None, None, f"Checkpoint {prefix}: data file {path} "
                                       "is missing") from None
        if size < end:
            raise errors.DataLossError(None, None, f"Checkpoint {prefix}: data file {path} "
                                       f"ends after {size} bytes but its tensors need "
                                       f"{end} (truncated?)")


class _NotDamage(Exception):
    """A restore failed on a checkpoint that verifies intact (carries that error)."""

    def __init__(self, error):
        super().__init__(str(error))
        self.error = error


def _restoring(restore):
    def check(prefix):
        try:
            restore(prefix)
        except (errors.NotFoundError, errors.DataLossError, OSError, ValueError) as e:
            # damage is skipped; anything else (the graph does not match the checkpoint)
            # is the caller's error, raised as it is
            verify_checkpoint(prefix)
            raise _NotDamage(e) from None
    return check


def restore_newest(checkpoint_dir, restore, latest_filename=None, warn=True):
    """``find`` in which the check of each candidate is ``restore(prefix)`` itself.

    ``restore`` must read and check every byte it restores and change nothing when it
    raises (``Saver.restore`` does both). A candidate whose restore fails is verified:
    damaged, it is skipped as ``find`` skips it; intact, the restore's error is raised.

    Returns:
        The ``Recovery``; ``path`` is the checkpoint restored (``None``: no checkpoint,
        nothing restored).
    Raises:
        errors.DataLossError: as ``find``; or what ``restore`` raised on an intact
            checkpoint.
    """
    try:
        return find(checkpoint_dir, latest_filename, warn, check=_restoring(restore))
    except _NotDamage as e:
        raise e.error from None


def _reason(error):
    text = getattr(error, "message", None) or str(error)
    return f"{type(error).__name__}: {text}"


def _step(prefix):
    m = re.search(r"-(\d+)$", prefix)
    return int(m.group(1)) if m else -1


def checkpoints_on_disk(checkpoint_dir):
    """Prefixes ``<dir>/<name>-<step>`` that have at least one checkpoint file."""
    out = set()
    try:
        names = os.listdir(checkpoint_dir)
    except OSError:
        return []
    for name in names:
        m = _FILE_RE.match(name)
        if m:
            out.add(os.path.join(checkpoint_dir, m.group("prefix")))
    return sorted(out, key=lambda p: (_step(p), p))


def _read_state(checkpoint_dir, latest_filename):
    """``(state or None, problem or None)``: an unreadable state file is a problem."""
    try:
        return checkpoint_io.get_checkpoint_state(checkpoint_dir, latest_filename), None
    except (ValueError, OSError, UnicodeDecodeError) as e:
        return None, f"the state file is unreadable ({e})"


class Recovery:
    """The outcome of ``find``: ``path`` to restore (or ``None``), ``skipped`` as
    ``[(prefix, reason)]``, ``kept`` (intact older checkpoints, oldest first)."""

    def __init__(self, path, skipped, kept):
        self.path = path
        self.skipped = skipped
        self.kept = kept


def find(checkpoint_dir, latest_filename=None, warn=True, check=None):
    """Finds the newest intact checkpoint of ``checkpoint_dir`` (see the module docstring).

    ``check(prefix)`` raises ``NotFoundError`` / ``DataLossError`` / ``OSError`` for a
    damaged candidate (default ``verify_checkpoint``: every byte).

    Raises:
        errors.DataLossError: checkpoint files exist but none is intact; the message lists
            them and how to proceed.
    """
    checkpoint_dir = os.fspath(checkpoint_dir)
    state, problem = _read_state(checkpoint_dir, latest_filename)
    named = []
    if state is not None:
        named = [state.model_checkpoint_path]
    others = list(state.all_model_checkpoint_paths) if state is not None else []
    # A checkpoint without its index that the state file does not name is a save that
    # was interrupted before it completed (the index is written last but the state file):
    # never a candidate.
    listed = set(named) | set(others)
    on_disk = [p for p in checkpoints_on_disk(checkpoint_dir)
               if p in listed or os.path.isfile(p + ".index")]
    # The state file's latest first; then every other candidate, newest step first.
    candidates = list(named)
    for p in sorted(set(others) | set(on_disk), key=lambda p: (_step(p), p), reverse=True):
        if p not in candidates:
            candidates.append(p)
    if state is None and problem is None and on_disk:
        # No state file, yet checkpoints on disk: never start from step 0 over them.
        problem = "the 'checkpoint' state file is missing"
    skipped = []
    for prefix in candidates:
        if state is not None and prefix not in named and _step(prefix) > _step(named[0]) \
                and prefix not in others:
            continue  # a newer save that never reached the state file
        try:
            (check or verify_checkpoint)(prefix)
        except (errors.NotFoundError, errors.DataLossError, OSError) as e:
            skipped.append((prefix, _reason(e)))
            continue
        kept = [p for p in sorted(set(others) | set(on_disk), key=lambda p: (_step(p), p))
                if _step(p) < _step(prefix) and p not in dict(skipped)]
        result = Recovery(prefix, skipped, kept + [prefix])
        if warn and (skipped or problem):
            _warn(checkpoint_dir, result, problem)
        return result
    files = sorted(f for p in on_disk for f in checkpoint_files(p))
    if files or skipped or problem:
        listing = "\n".join(f"  {p}: {why}" for p, why in skipped) or "  (none verified)"
        what = ("\n  state file: " + problem) if problem else ""
        raise errors.DataLossError(
            None, None,
            f"No intact checkpoint in {checkpoint_dir}, although its state file or checkpoint "
            f"files name some; refusing to start training from step 0 over them.{what}\nCheckpoints tried:\n"
            f"{listing}\nFiles: {', '.join(os.path.basename(f) for f in files) or 'none'}\n"
            f"To proceed: restore the missing or damaged files from a backup, or move them "
            f"(and the 'checkpoint' state file) out of {checkpoint_dir} to start from "
            f"scratch, or pass another model_dir.")
    return Recovery(None, [], [])


def _warn(checkpoint_dir, result, problem):
    parts = [f"skipped {p} ({why})" for p, why in result.skipped]
    if problem:
        parts.insert(0, problem)
    logging.warning("Checkpoint recovery in %s: %s; resuming from the newest intact "
                    "checkpoint %s.", checkpoint_dir, "; ".join(parts), result.path)


def latest_intact_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest intact checkpoint (``find(...).path``)."""
    return find(checkpoint_dir, latest_filename).path


# ------------------------------------------------------------------ orphans
_SIDE_RE = re.compile(r"^\.(?P<prefix>.+-\d+)\.input_state$")


def remove_orphans(checkpoint_dir, restored):
    """Removes what an interrupted rotation left of checkpoints older than ``restored``:
    files of a prefix whose index is gone (rotation deletes the index first) and that the
    state file does not name. Returns the prefixes cleaned."""
    state, _ = _read_state(checkpoint_dir, None)
    listed = set() if state is None else (
        {state.model_checkpoint_path} | set(state.all_model_checkpoint_paths))
    try:
        names = os.listdir(checkpoint_dir)
    except OSError:
        return []
    prefixes = set()
    for name in names:
        m = _FILE_RE.match(name) or _SIDE_RE.match(name)
        if m:
            prefixes.add(os.path.join(checkpoint_dir, m.group("prefix")))
    cleaned = []
    for prefix in sorted(prefixes):
        if (_step(prefix) < _step(restored) and prefix not in listed
                and not os.path.isfile(prefix + ".index")):
            checkpoint_io.delete_checkpoint(prefix)
            cleaned.append(prefix)
    if cleaned:
        logging.info("Removed the leftovers of an interrupted checkpoint rotation in %s: %s",
                     checkpoint_dir, ", ".join(os.path.basename(p) for p in cleaned))
    return cleaned


# ------------------------------------------------------------------ temp files
def temp_files(directory):
    """Temporary files an interrupted atomic write left in ``directory``: names
    ``<target>.tmp<suffix>`` whose target is a checkpoint file or a state file."""
    out = []
    try:
        names = os.listdir(directory)
    except OSError:
        return out
    for name in names:
        m = _TEMP_RE.match(name)
        if not m:
            continue
        target = m.group("target")
        if _FILE_RE.match(target) or target == "checkpoint" or target.endswith(
                (".index", ".meta")) or _DATA_RE.search(target):
            path = os.path.join(directory, name)
            if os.path.isfile(path):
                out.append(path)
    return sorted(out)


def remove_temp_files(directory):
    """Removes ``temp_files(directory)``; logs what was removed; returns the paths."""
    removed = []
    for path in temp_files(directory):
        try:
            os.remove(path)
        except OSError:
            continue
        removed.append(path)
    if removed:
        logging.info("Removed %d temporary file(s) of an interrupted save in %s: %s",
                     len(removed), directory, ", ".join(os.path.basename(p) for p in removed))
    return removed


__all__ = ["checkpoint_files", "verify_checkpoint", "quick_check", "restore_newest",
           "checkpoints_on_disk", "Recovery", "find",
           "latest_intact_checkpoint", "remove_orphans", "temp_files", "remove_temp_files"]
