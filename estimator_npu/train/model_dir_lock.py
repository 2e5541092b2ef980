"""One trainer per model_dir: an advisory ``fcntl.flock`` held for the whole training run.

    with model_dir_lock.hold(model_dir):     # raises ModelDirLockedError if held elsewhere
        train ...

The lock is the file ``<model_dir>/.estimator_npu.lock``; its content names the holder
(pid, host, start time, command). The kernel drops a ``flock`` when its process dies, so a
file left by a killed trainer is simply taken over (with a WARNING naming the old holder).
The holder removes the file when it releases the lock, so a finished model_dir holds only
TF's files. Holding is re-entrant within a process (the Estimator and the monitored session
it creates both ask for it). Evaluation and prediction never lock.
"""
import contextlib
import datetime
import errno
import json
import os
import socket
import sys
import threading

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows has no fcntl: no locking
    fcntl = None

from estimator_npu.utils import logging

LOCK_NAME = ".estimator_npu.lock"

_held = {}            # realpath of model_dir -> [fd, count, path]
_guard = threading.Lock()


class ModelDirLockedError(RuntimeError):
    """Another process is training into the same model_dir."""


def _holder_text(path):
    try:
        with open(path, "r", encoding="utf-8") as f:
            info = json.loads(f.read() or "{}")
    except (OSError, ValueError):
        return None
    if not isinstance(info, dict) or not info:
        return None
    return (f"pid {info.get('pid')} on host {info.get('host')}, started "
            f"{info.get('start_time')} ({info.get('command', '?')})")


def _acquire(model_dir):
    path = os.path.join(model_dir, LOCK_NAME)
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            os.close(fd)
            if e.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise
            holder = _holder_text(path) or "another process (no holder information)"
            raise ModelDirLockedError(
                f"model_dir {model_dir} is already used for training by {holder}; two "
                f"trainers would overwrite each other's checkpoints. Wait for it to finish, "
                f"stop it, or pass another model_dir (lock file {path}).") from None
        # The holder removes the file when it releases: make sure we locked the file
        # that is still there, not one unlinked meanwhile.
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    stale = _holder_text(path)
    if stale:
        logging.warning("Taking over the lock of model_dir %s left by %s, which no longer "
                        "holds it (the process ended without releasing it).", model_dir,
                        stale)
    info = {"pid": os.getpid(), "host": socket.gethostname(),
            "start_time": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            "command": " ".join(sys.argv)[:200]}
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps(info).encode(), 0)
    return fd, path


def acquire(model_dir):
    """Takes (or re-enters) the training lock of ``model_dir``; returns the lock path.

    Raises:
        ModelDirLockedError: another process holds it; the message names the model_dir
            and the holder (pid, host, start time).
    """
    model_dir = os.fspath(model_dir)
    os.makedirs(model_dir, exist_ok=True)
    key = os.path.realpath(model_dir)
    with _guard:
        entry = _held.get(key)
        if entry is not None:
            entry[1] += 1
            return entry[2]
        if fcntl is None:
            _held[key] = [None, 1, None]
            return None
        fd, path = _acquire(model_dir)
        _held[key] = [fd, 1, path]
        return path


def release(model_dir):
    """Releases one ``acquire``; the last one removes the lock file and unlocks."""
    key = os.path.realpath(os.fspath(model_dir))
    with _guard:
        entry = _held.get(key)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] > 0:
            return
        del _held[key]
        fd, path = entry[0], entry[2]
        if fd is None:
            return
        try:
            os.remove(path)   # while still locked: a waiting process re-checks the inode
        except OSError:
            pass
        os.close(fd)


def is_held(model_dir):
    """Whether this process holds the lock of ``model_dir``."""
    return os.path.realpath(os.fspath(model_dir)) in _held


@contextlib.contextmanager
def hold(model_dir):
    """Holds the lock of ``model_dir`` for the ``with`` block (``model_dir`` None: none)."""
    if model_dir is None:
        yield None
        return
    path = acquire(model_dir)
    try:
        yield path
    finally:
        release(model_dir)


__all__ = ["LOCK_NAME", "ModelDirLockedError", "acquire", "release", "is_held", "hold"]
