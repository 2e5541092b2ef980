"""The LevelDB table ("sstable") file layout TF uses for a checkpoint's ``.index`` file.

A table is a sequence of blocks followed by a 48-byte footer::

    [data block 0][trailer] ... [data block N][trailer] [meta-index block][trailer]
    [index block][trailer] [footer: meta-index handle, index handle, zero padding to
    40 bytes, magic 0xdb4775248b80fb57 as little-endian fixed64]

A block holds key/value entries with prefix compression (``varint32 shared``,
``varint32 unshared``, ``varint32 value length``, the unshared key bytes, the value),
a full key every ``restart_interval`` entries, then the restart offsets (fixed32 each)
and their count (fixed32). Each block's 5-byte trailer is the compression type (0:
none) and the masked crc32c of the block and that type byte. The index block maps a
separator key (>= the block's last key, < the next block's first key) to each data
block's handle (``varint64 offset``, ``varint64 size``).

``build_table`` and ``read_table`` write and read such files with TF's options
(256 KiB blocks, restart interval 16, no compression); every block checksum is verified
on read. Errors are ``TableError`` (a ``ValueError``): the caller names the file.
"""
import struct

import google_crc32c

MAGIC = 0xdb4775248b80fb57
FOOTER_SIZE = 48
BLOCK_SIZE = 262144
RESTART_INTERVAL = 16
_MASK_DELTA = 0xa282ead8


class TableError(ValueError):
    """The bytes are not a valid table (bad magic, checksum, or structure)."""


def crc32c(data, crc=0):
    return google_crc32c.extend(crc, data) if crc else google_crc32c.value(data)


def mask(crc):
    """LevelDB/TF's masked crc32c (stored checksums are masked)."""
    return ((((crc >> 15) | (crc << 17)) & 0xffffffff) + _MASK_DELTA) & 0xffffffff


def unmask(masked):
    rot = (masked - _MASK_DELTA) & 0xffffffff
    return ((rot >> 17) | (rot << 15)) & 0xffffffff


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7f) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def read_varint(buf, pos, limit=None):
    limit = len(buf) if limit is None else limit
    result = shift = 0
    while True:
        if pos >= limit or shift > 63:
            raise TableError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7f) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


# ------------------------------------------------------------------ writing
class _Block:
    def __init__(self, restart_interval):
        self.interval = restart_interval
        self.reset()

    def reset(self):
        self.buf, self.restarts, self.count, self.last = bytearray(), [0], 0, b""

    def add(self, key, value):
        shared = 0
        if self.count < self.interval:
            n = min(len(key), len(self.last))
            while shared < n and key[shared] == self.last[shared]:
                shared += 1
        else:
            self.restarts.append(len(self.buf))
            self.count = 0
        self.buf += varint(shared) + varint(len(key) - shared) + varint(len(value))
        self.buf += key[shared:]
        self.buf += value
        self.last = key
        self.count += 1

    def size_estimate(self):
        return len(self.buf) + 4 * len(self.restarts) + 4

    def finish(self):
        return bytes(self.buf) + struct.pack(f"<{len(self.restarts) + 1}I", *self.restarts,
                                              len(self.restarts))


def _separator(start, limit):
    """A short key k with start <= k < limit (bytewise), like LevelDB's comparator."""
    n = min(len(start), len(limit))
    i = 0
    while i < n and start[i] == limit[i]:
        i += 1
    if i < n and start[i] < 0xff and start[i] + 1 < limit[i]:
        return start[:i] + bytes([start[i] + 1])
    return start


def _successor(key):
    for i, b in enumerate(key):
        if b != 0xff:
            return key[:i] + bytes([b + 1])
    return key


def build_table(items, block_size=BLOCK_SIZE, restart_interval=RESTART_INTERVAL):
    """The bytes of a table holding ``items`` ((bytes key, bytes value), keys strictly
    increasing)."""
    out = bytearray()
    data, index = _Block(restart_interval), _Block(1)

    def emit(block_bytes):
        handle = varint(len(out)) + varint(len(block_bytes))
        out.extend(block_bytes)
        out.append(0)
        out.extend(struct.pack("<I", mask(crc32c(b"\0", crc32c(block_bytes)))))
        return handle
    pending = None                              # (last key, handle) awaiting a separator
    prev = None
    for key, value in items:
        if prev is not None and key <= prev:
            raise ValueError(f"table keys must be strictly increasing: {key!r} after {prev!r}")
        if pending is not None:
            index.add(_separator(pending[0], key), pending[1])
            pending = None
        data.add(key, value)
        prev = key
        if data.size_estimate() >= block_size:
            pending = (key, emit(data.finish()))
            data.reset()
    if data.buf:
        pending = (prev, emit(data.finish()))
    if pending is not None:
        index.add(_successor(pending[0]), pending[1])
    meta_handle = emit(_Block(restart_interval).finish())
    index_handle = emit(index.finish())
    footer = meta_handle + index_handle
    out.extend(footer + bytes(40 - len(footer)) + struct.pack("<Q", MAGIC))
    return bytes(out)


# ------------------------------------------------------------------ reading
def _block(buf, handle_bytes, what):
    off, pos = read_varint(handle_bytes, 0)
    size, _ = read_varint(handle_bytes, pos)
    end = off + size
    if end + 5 > len(buf) - FOOTER_SIZE:
        raise TableError(f"{what} block at offset {off} (size {size}) runs past the end "
                         f"of the file ({len(buf)} bytes; truncated?)")
    contents = bytes(buf[off:end])
    ctype = buf[end]
    stored = struct.unpack_from("<I", buf, end + 1)[0]
    if mask(crc32c(bytes([ctype]), crc32c(contents))) != stored:
        raise TableError(f"{what} block at offset {off} fails its checksum")
    if ctype != 0:
        raise TableError(f"{what} block at offset {off} uses compression type {ctype}; "
                         "only uncompressed tables are supported")
    return contents


def _entries(block, what):
    if len(block) < 4:
        raise TableError(f"{what} block is too short")
    n_restarts = struct.unpack_from("<I", block, len(block) - 4)[0]
    limit = len(block) - 4 - 4 * n_restarts
    if limit < 0:
        raise TableError(f"{what} block has a bad restart array")
    pos, key = 0, b""
    while pos < limit:
        shared, pos = read_varint(block, pos, limit)
        unshared, pos = read_varint(block, pos, limit)
        vlen, pos = read_varint(block, pos, limit)
        if shared > len(key) or pos + unshared + vlen > limit:
            raise TableError(f"{what} block has a corrupted entry at byte {pos}")
        key = key[:shared] + block[pos:pos + unshared]
        pos += unshared
        yield key, block[pos:pos + vlen]
        pos += vlen


def is_table(buf):
    """True if ``buf`` ends with the table magic number."""
    return len(buf) >= FOOTER_SIZE and struct.unpack_from("<Q", buf, len(buf) - 8)[0] == MAGIC


def read_table(buf):
    """Every (key, value) of the table ``buf`` in order, after checking every block."""
    if len(buf) < FOOTER_SIZE:
        raise TableError(f"file is too short to be a table ({len(buf)} bytes)")
    if not is_table(buf):
        raise TableError("not an sstable (bad magic number)")
    footer = bytes(buf[len(buf) - FOOTER_SIZE:])
    _, pos = read_varint(footer, 0)
    _, pos = read_varint(footer, pos)
    _block(buf, footer[:pos], "metaindex")  # checked too: every byte of the file is
    index_start = pos
    _, pos = read_varint(footer, pos)
    _, pos = read_varint(footer, pos)
    if any(footer[pos:40]):
        raise TableError("footer padding is not zero (corrupted footer)")
    index = _block(buf, footer[index_start:pos], "index")
    out = []
    for _, handle in _entries(index, "index"):
        out.extend(_entries(_block(buf, handle, "data"), "data"))
    return out


__all__ = ["TableError", "build_table", "read_table", "is_table", "crc32c", "mask", "unmask"]
