"""PNG files laid out byte for byte as libpng (TF's ``encode_png``) writes them.

libpng's choices, reproduced here: per row the adaptive filter whose bytes (read as
signed) have the least absolute sum, ties to the earlier filter; zlib at the given level
with memLevel 9 and ``Z_FILTERED``; for images up to 16 kB of filtered data a smaller
deflate window, and then the smallest window written into the zlib header; IDAT chunks
of 8192 bytes.
"""
import struct
import zlib

import numpy as np


def _chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data +
            struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def _filtered_rows(raw, bpp):
    """Each row filtered as libpng's adaptive heuristic picks: the filter (None, Sub,
    Up, Average, Paeth) whose bytes, read as signed, have the least absolute sum; ties
    go to the earlier filter."""
    h = raw.shape[0]
    x = raw.astype(np.int16)
    up = np.vstack([np.zeros((1, x.shape[1]), np.int16), x[:-1]])
    left = np.hstack([np.zeros((h, bpp), np.int16), x[:, :-bpp]])
    upleft = np.hstack([np.zeros((h, bpp), np.int16), up[:, :-bpp]])
    p = left + up - upleft
    pa, pb, pc = np.abs(p - left), np.abs(p - up), np.abs(p - upleft)
    paeth = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, up, upleft))
    cands = np.stack([x, x - left, x - up, x - ((left + up) >> 1), x - paeth]) & 0xFF
    signed = np.where(cands < 128, cands, 256 - cands).sum(axis=2)
    best = np.argmin(signed, axis=0)
    rows = cands[best, np.arange(h)].astype(np.uint8)
    return np.hstack([best.astype(np.uint8)[:, None], rows])


def png_bytes(arr, level=6):
    """A PNG of ``arr`` [h, w, c] (uint8/uint16) laid out byte for byte as libpng (TF's
    encoder) writes it: adaptive filters, zlib level/memLevel 9/Z_FILTERED, the window
    libpng picks for small images, 8192-byte IDAT chunks."""
    h, w, c = arr.shape
    depth = 16 if arr.dtype == np.uint16 else 8
    color = {1: 0, 2: 4, 3: 2, 4: 6}[c]
    raw = np.ascontiguousarray(arr.astype(">u2") if depth == 16 else arr).view(
        np.uint8).reshape(h, w * c * depth // 8)
    data = _filtered_rows(raw, c * depth // 8).tobytes() if h and w else b""
    bits = 15
    raw_size = len(data)
    if raw_size <= 16384:
        half = 1 << (bits - 1)
        while raw_size + 262 <= half:
            half >>= 1
            bits -= 1
    z = zlib.compressobj(level, zlib.DEFLATED, max(bits, 9), 9, zlib.Z_FILTERED)
    stream = bytearray(z.compress(data) + z.flush())
    if raw_size <= 16384:  # libpng then writes the smallest window into the header
        cinfo = stream[0] >> 4
        half = 1 << (cinfo + 7)
        if raw_size <= half:
            while True:
                half >>= 1
                cinfo -= 1
                if not (cinfo > 0 and raw_size <= half):
                    break
            stream[0] = (cinfo << 4) | 8
            flg = stream[1] & 0xE0
            stream[1] = flg + 31 - ((stream[0] << 8) + flg) % 31
    stream = bytes(stream)
    ihdr = struct.pack(">IIBBBBB", w, h, depth, color, 0, 0, 0)
    return b"".join([b"\x89PNG\r\n\x1a\n", _chunk(b"IHDR", ihdr)] +
                    [_chunk(b"IDAT", stream[i:i + 8192])
                     for i in range(0, len(stream), 8192)] + [_chunk(b"IEND", b"")])
