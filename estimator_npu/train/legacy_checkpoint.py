"""Reading checkpoints in this project's earlier format (before TF's tensor bundle).

``<prefix>.index`` is the line ``ENPUCKPT1 <crc32 of the rest, 8 hex digits>`` followed
by JSON ``{"data_file", "data_size", "data_crc32", "tensors": {name: {"dtype", "shape",
"offset", "nbytes", "crc32"}}}``; ``<prefix>.data-00000-of-00001`` holds the raw bytes.
Only reading is supported: the next save writes TF's format.
"""
import json
import os
import re
import zlib

import numpy as np

from estimator_npu import errors
from estimator_npu.engine import dtypes


def data_loss(prefix, what):
    return errors.DataLossError(None, None, f"Checkpoint {prefix} is corrupted: {what}")


INDEX_SUFFIX = ".index"


class LegacyIndex:
    """The earlier estimator_npu format: ``ENPUCKPT1 <crc32>`` + JSON, one data file."""

    format_name = "estimator_npu JSON-index"

    def __init__(self, prefix, raw):
        self.prefix = prefix
        path = prefix + INDEX_SUFFIX
        header, _, body = raw.partition(b"\n")
        m = re.fullmatch(rb"ENPUCKPT1 ([0-9a-f]{8})", header)
        if m is None or int(m.group(1), 16) != zlib.crc32(body):
            raise data_loss(prefix, f"index file {path} fails its checksum")
        try:
            index = json.loads(body)
            self._tensors = index["tensors"]
            self._data_size = int(index["data_size"])
            self._data_path = os.path.join(os.path.dirname(prefix), index["data_file"])
        except (ValueError, KeyError, TypeError) as e:
            raise data_loss(prefix, f"unreadable index {path} ({e})") from None
        self.entries = self._tensors

    def shape(self, name):
        return list(self._tensors[name]["shape"])

    def dtype_name(self, name):
        return self._tensors[name]["dtype"]

    def data_path(self, name):
        return self._data_path

    def read(self, name, f=None):
        e = self._tensors[name]
        buf = bytearray(e["nbytes"])
        try:
            with open(self._data_path, "rb") as fh:
                if os.fstat(fh.fileno()).st_size != self._data_size:
                    raise data_loss(self.prefix, f"data file {self._data_path} has "
                                     f"{os.fstat(fh.fileno()).st_size} bytes, expected "
                                     f"{self._data_size} (truncated?)")
                fh.seek(e["offset"])
                n = fh.readinto(buf)
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, f"Checkpoint {self.prefix}: data file "
                                       f"{self._data_path} is missing") from None
        if n != e["nbytes"] or zlib.crc32(buf) != e["crc32"]:
            raise data_loss(self.prefix, f"tensor {name!r} in data file {self._data_path} "
                             "fails its checksum")
        dt = dtypes.as_dtype(e["dtype"]).np.newbyteorder("<")
        arr = np.frombuffer(buf, dtype=dt).reshape(e["shape"])
        return arr.astype(dt.newbyteorder("="))

    def read_all(self):
        return {name: self.read(name) for name in sorted(self._tensors)}


__all__ = ["LegacyIndex"]
