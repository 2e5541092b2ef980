"""Vectorised parsing of a batch of Examples that share one byte layout.

Records written by one pipeline usually differ only in their values: same keys, same
lengths, so every byte outside the value payloads (tags, lengths, keys) is the same in
every record. Then each fixed-length feature is the same byte range of every record::

    layout = walk(records[0])                 # key -> (kind, payload start, end)
    assert all(r[gap] == records[0][gap] for r in records for gap in structure)
    image = frombuffer(join(r[s:e] for r in records), '<f4')   # [N, 784], no parse

Protobuf parsing depends only on the structure bytes, so when those match record 0
the payload columns are the same fields in every record. int64 values take this path
when every varint is one byte (0..127). Anything else (a missing key, another dtype,
sequence features, different lengths) returns ``None`` and the caller parses each
record, which also produces the precise error messages.
"""
import numpy as np

_LEN = 2  # protobuf wire type of length-delimited fields


def _varint(b, i):
    result = shift = 0
    while True:
        if i >= len(b):
            raise ValueError("truncated varint")
        c = b[i]
        result |= (c & 0x7F) << shift
        i += 1
        if c < 0x80:
            return result, i
        shift += 7


def _fields(b, start, end):
    """``(field number, payload start, payload end)`` of length-delimited fields."""
    i = start
    while i < end:
        tag, i = _varint(b, i)
        if tag & 7 != _LEN:
            raise ValueError("unexpected wire type")
        n, i = _varint(b, i)
        if i + n > end:
            raise ValueError("field past the end")
        yield tag >> 3, i, i + n
        i += n


def walk(record):
    """``{key: (kind, [(start, end), ...])}`` of one serialized Example, or ``None``
    when its layout is not the plain one this module handles."""
    try:
        top = list(_fields(record, 0, len(record)))
        if len(top) != 1 or top[0][0] != 1:
            return None if top else {}
        out = {}
        for num, s, e in _fields(record, top[0][1], top[0][2]):
            if num != 1:
                return None
            entry = list(_fields(record, s, e))
            if [f[0] for f in entry] != [1, 2]:
                return None
            key = bytes(record[entry[0][1]:entry[0][2]]).decode()
            feat = list(_fields(record, entry[1][1], entry[1][2]))
            if len(feat) != 1:
                return None
            kind, ls, le = feat[0]
            values = list(_fields(record, ls, le))
            if any(v[0] != 1 for v in values) or (kind != 1 and len(values) > 1):
                return None
            out[key] = (kind, [(v[1], v[2]) for v in values])
        return out
    except ValueError:
        return None


_FLOAT, _INT64, _BYTES = 2, 3, 1
_KIND_OF = {"float32": _FLOAT, "int64": _INT64, "string": _BYTES}


def parse_dense(records, dense):
    """The dense outputs of ``parse_examples`` for ``records``, or ``None``."""
    n = len(records)
    if n < 2 or any(d.sequence for d in dense):
        return None
    records = [r.encode() if isinstance(r, str) else r for r in records]
    length = len(records[0])
    if any(len(r) != length for r in records):
        return None
    layout = walk(records[0])
    if layout is None:
        return None
    plans = []
    for d in dense:
        entry = layout.get(d.key)
        if entry is None or entry[0] != _KIND_OF[d.dtype.name]:
            return None
        kind, spans = entry
        step = int(np.prod(d.shape, dtype=np.int64))
        if kind == _BYTES:
            if len(spans) != step:
                return None
        else:
            if len(spans) != 1:
                if step == 0 and not spans:
                    spans = [(0, 0)]
                else:
                    return None
            s, e = spans[0]
            if (kind == _FLOAT and e - s != 4 * step) or (kind == _INT64 and e - s != step):
                return None
        plans.append((d, kind, spans))
    # The structure bytes (between the payloads) must equal record 0's in every record.
    edges = [0]
    for s, e in sorted(span for _, _, spans in plans for span in spans):
        edges += [s, e]
    edges.append(length)
    first = records[0]
    gaps = [(a, b) for a, b in zip(edges[0::2], edges[1::2]) if b > a]
    for a, b in gaps:
        want = first[a:b]
        if any(r[a:b] != want for r in records):
            return None
    out = []
    for d, kind, spans in plans:
        if kind == _FLOAT:
            s, e = spans[0]
            vals = np.frombuffer(bytearray().join([r[s:e] for r in records]), "<f4")
            vals = vals.astype(np.float32, copy=False).reshape(n, -1)
        elif kind == _INT64:
            s, e = spans[0]
            block = np.frombuffer(b"".join([r[s:e] for r in records]), np.uint8)
            if (block >= 0x80).any():
                return None
            vals = block.astype(np.int64)
        else:
            vals = np.empty((n, len(spans)), dtype=object)
            for j, (s, e) in enumerate(spans):
                vals[:, j] = [r[s:e] for r in records]
        out.append(vals.reshape((n,) + d.shape))
    return out
