"""File I/O as ``tf.io.gfile`` / ``tf.gfile`` do it, on the local filesystem.

Failures raise TF's error classes, as TF's file system layer does: a missing file or folder
is ``errors.NotFoundError``, an existing target ``errors.AlreadyExistsError``, any other OS
failure ``errors.UnknownError`` / ``PermissionDeniedError`` (each naming the path). A
``GFile`` opened in text mode reads ``str`` and writes ``str`` or ``bytes``; in binary mode
it reads ``bytes``.
"""
import collections
import errno
import glob as _glob
import os
import shutil

from estimator_npu import errors


def _text(path):
    path = os.fspath(path)
    return path.decode("utf-8") if isinstance(path, bytes) else path


def _raise_for(e, path):
    message = f"{path}; {e.strerror or e}"
    if isinstance(e, FileNotFoundError) or e.errno == errno.ENOENT:
        raise errors.NotFoundError(None, None, message) from e
    if isinstance(e, FileExistsError) or e.errno == errno.EEXIST:
        raise errors.AlreadyExistsError(None, None, message) from e
    if isinstance(e, PermissionError):
        raise errors.PermissionDeniedError(None, None, message) from e
    raise errors.UnknownError(None, None, message) from e


class GFile:
    """A file object: ``GFile(name, mode='r')``; ``read(n=-1)``, ``readline``,
    ``readlines``, iteration, ``write``, ``seek``, ``tell``, ``size``, ``flush``,
    ``close``, and ``with``. The file opens on first use, as TF's does."""

    def __init__(self, name, mode="r"):
        if mode.replace("b", "").replace("+", "") not in ("r", "w", "a"):
            raise errors.InvalidArgumentError(None, None,
                                              f"mode {mode!r} not supported; use r, w or a "
                                              "(optionally with b or +)")
        self.name = _text(name)
        self.mode = mode
        self._binary = "b" in mode
        self._file = None

    def _open(self):
        if self._file is None:
            try:
                self._file = open(self.name, self.mode.replace("b", "") + "b")
            except OSError as e:
                _raise_for(e, self.name)
        return self._file

    def _out(self, data):
        return data if self._binary else data.decode("utf-8")

    def size(self):
        """The file's length in bytes."""
        return stat(self.name).length

    def read(self, n=-1):
        """Reads ``n`` bytes (all when ``n`` is -1)."""
        return self._out(self._open().read(n))

    def readline(self):
        return self._out(self._open().readline())

    def readlines(self):
        return [self._out(line) for line in self._open().readlines()]

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    next = __next__

    def write(self, file_content):
        """Writes ``str`` (as UTF-8) or ``bytes``."""
        if isinstance(file_content, str):
            file_content = file_content.encode("utf-8")
        self._open().write(bytes(file_content))

    def seek(self, offset=None, whence=0, position=None):
        if position is not None:
            offset = position
        self._open().seek(offset, whence)

    def tell(self):
        return self._open().tell()

    def seekable(self):
        return True

    def flush(self):
        if self._file is not None:
            self._file.flush()

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def __del__(self):
        # ``tf.gfile.GFile(path).read()`` without ``with`` is common; close quietly.
        try:
            self.close()
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass

    def __enter__(self):
        self._open()
        return self

    def __exit__(self, *exc):
        self.close()


FileStatistics = collections.namedtuple("FileStatistics", "length mtime_nsec is_directory")


def exists(path):
    return os.path.exists(_text(path))


def isdir(path):
    return os.path.isdir(_text(path))


def makedirs(path):
    """Creates ``path`` and its missing parents; an existing folder is fine."""
    path = _text(path)
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        _raise_for(e, path)


def mkdir(path):
    """Creates one folder (an existing folder is fine, as in TF); ``NotFoundError`` if its
    parent does not exist, ``AlreadyExistsError`` if a file has the name."""
    path = _text(path)
    if os.path.isdir(path):
        return
    try:
        os.mkdir(path)
    except OSError as e:
        _raise_for(e, path)


def listdir(path):
    """The entry names of a folder (no ``.``/``..``), sorted."""
    path = _text(path)
    if not os.path.isdir(path):
        raise errors.NotFoundError(None, None, f"Could not find directory {path}")
    return sorted(os.listdir(path))


def glob(pattern):
    """The paths matching a pattern (or each of a list of patterns), sorted."""
    patterns = [pattern] if isinstance(pattern, (str, bytes, os.PathLike)) else pattern
    out = []
    for p in patterns:
        out += _glob.glob(_text(p))
    return sorted(out)


def remove(path):
    """Deletes a file; ``NotFoundError`` if it is missing."""
    path = _text(path)
    try:
        os.remove(path)
    except OSError as e:
        _raise_for(e, path)


def rmtree(path):
    """Deletes a folder and everything in it; ``NotFoundError`` if it is missing."""
    path = _text(path)
    if not os.path.exists(path):
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory")
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)
    except OSError as e:
        _raise_for(e, path)


def copy(oldpath, newpath, overwrite=False):
    """Copies a file; ``AlreadyExistsError`` if ``newpath`` exists and not ``overwrite``."""
    oldpath, newpath = _text(oldpath), _text(newpath)
    if not overwrite and os.path.exists(newpath):
        raise errors.AlreadyExistsError(None, None, f"file already exists: {newpath}")
    try:
        shutil.copyfile(oldpath, newpath)
    except OSError as e:
        _raise_for(e, oldpath)


def rename(oldname, newname, overwrite=False):
    """Renames a file or folder; ``AlreadyExistsError`` if ``newname`` exists and not
    ``overwrite``."""
    oldname, newname = _text(oldname), _text(newname)
    if not overwrite and os.path.exists(newname):
        raise errors.AlreadyExistsError(None, None, f"file already exists: {newname}")
    try:
        os.replace(oldname, newname)
    except OSError as e:
        _raise_for(e, oldname)


def stat(path):
    """``FileStatistics(length, mtime_nsec, is_directory)``."""
    path = _text(path)
    try:
        st = os.stat(path)
    except OSError as e:
        _raise_for(e, path)
    return FileStatistics(st.st_size, st.st_mtime_ns, os.path.isdir(path))


def walk(top, topdown=True, onerror=None):
    """``(folder, subfolder names, file names)`` for ``top`` and every folder below it;
    nothing for a missing ``top``."""
    top = _text(top)
    for dirpath, dirnames, filenames in os.walk(top, topdown=topdown, onerror=onerror):
        dirnames.sort()
        yield dirpath, dirnames, sorted(filenames)


def join(path, *paths):
    return os.path.join(_text(path), *[_text(p) for p in paths])
