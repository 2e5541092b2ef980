"""The data files of a tensor bundle on the reading side: ``_DataFile`` reads byte ranges
with positional reads and takes their crc32c piece by piece (``tensor_bundle.BundleReader``
verifies them against the index's entries)."""
import os
import threading

import google_crc32c
import numpy as np

from estimator_npu import errors

_CHUNK = 1 << 20      # crc32c and write in pieces that stay in the CPU cache
_PREADV = hasattr(os, "preadv")
_crc_extend = google_crc32c.extend      # (crc, bytes) -> crc; no Python layer per piece


def _loss(msg):
    return errors.DataLossError(None, None, msg)


class _DataFile:
    """One open data file of a bundle, read with positional reads (``os.preadv``: no
    shared file position, so threads may share it) in ``_CHUNK`` pieces, each piece's
    checksum taken while it is still in the CPU cache."""

    def __init__(self, prefix, path, name):
        self.prefix, self.path = prefix, path
        try:
            self.fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0)
                              | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, f"Checkpoint {prefix}: data file {path} "
                                       f"is missing (needed for tensor {name!r})") from None
        self.size = os.fstat(self.fd).st_size
        self._seek_lock = None if _PREADV else threading.Lock()

    def _truncated(self, name, end, offset, size):
        return _loss(f"Checkpoint {self.prefix}: data file {self.path} ends after "
                     f"{end} bytes but tensor {name!r} needs bytes up to "
                     f"{offset + size} (truncated?)")

    def _pread(self, view, offset):
        if _PREADV:
            return os.preadv(self.fd, [view], offset)
        with self._seek_lock:                   # no preadv: seek + read, one at a time
            os.lseek(self.fd, offset, os.SEEK_SET)
            return os.readv(self.fd, [view])

    def _read_crc(self, buf, offset, size, name, reuse):
        if offset + size > self.size:
            raise self._truncated(name, self.size, offset, size)
        chunk, extend, pread = _CHUNK, _crc_extend, self._pread
        n = crc = 0
        while n < size:
            want = min(chunk, size - n)
            at = 0 if reuse else n
            k = pread(buf[at:at + want], offset + n)
            if not k:
                raise self._truncated(name, offset + n, offset, size)
            crc = extend(crc, buf[at:at + k])
            n += k
        return crc

    def read(self, offset, size, name, buf=None):
        """``(buf, crc32c of its bytes)``: ``size`` bytes at ``offset`` read into ``buf``
        (a uint8 array; default a fresh one)."""
        if buf is None:
            buf = np.empty(size, np.uint8)
        return buf, self._read_crc(buf, offset, size, name, False)

    def checksum(self, offset, size, name, scratch=None):
        """The crc32c of ``size`` bytes at ``offset``, read through ``scratch`` (a uint8
        buffer of ``_CHUNK`` bytes, reused piece after piece; default a new one)."""
        if scratch is None or scratch.nbytes < _CHUNK:
            scratch = np.empty(_CHUNK, np.uint8)
        return self._read_crc(scratch, offset, size, name, True)

    def close(self):
        fd, self.fd = self.fd, -1
        if fd >= 0:
            os.close(fd)
