"""TF's string fingerprint: ``Fingerprint64`` (FarmHash's 64-bit ``na`` hash, seedless).

``categorical_column_with_hash_bucket`` maps a string ``s`` to
``fingerprint64(s) % hash_bucket_size`` (integers are formatted as decimal strings first),
as TF's ``StringToHashBucketFast`` does, so bucket ids match TF's. Written from the published
algorithm's description; arithmetic is modulo 2**64.
"""
import struct

_M = (1 << 64) - 1
_K0 = 0xc3a5c85c97cb3127
_K1 = 0xb492b66fbe98f273
_K2 = 0x9ae16a3b2f90404f


def _u64(s, i):
    return struct.unpack_from("<Q", s, i)[0]


def _u32(s, i):
    return struct.unpack_from("<I", s, i)[0]


def _rot(v, r):
    return ((v >> r) | (v << (64 - r))) & _M if r else v


def _smix(v):
    return v ^ (v >> 47)


def _h16(u, v, mul):
    a = ((u ^ v) * mul) & _M
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M
    b ^= b >> 47
    return (b * mul) & _M


def _len0to16(s, n):
    if n >= 8:
        mul = _K2 + n * 2
        a = (_u64(s, 0) + _K2) & _M
        b = _u64(s, n - 8)
        c = (_rot(b, 37) * mul + a) & _M
        d = ((_rot(a, 25) + b) * mul) & _M
        return _h16(c, d, mul)
    if n >= 4:
        mul = _K2 + n * 2
        return _h16((n + (_u32(s, 0) << 3)) & _M, _u32(s, n - 4), mul)
    if n > 0:
        y = s[0] + (s[n >> 1] << 8)
        z = n + (s[n - 1] << 2)
        return (_smix(((y * _K2) ^ (z * _K0)) & _M) * _K2) & _M
    return _K2


def _len17to32(s, n):
    mul = _K2 + n * 2
    a = (_u64(s, 0) * _K1) & _M
    b = _u64(s, 8)
    c = (_u64(s, n - 8) * mul) & _M
    d = (_u64(s, n - 16) * _K2) & _M
    return _h16((_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M,
                (a + _rot((b + _K2) & _M, 18) + c) & _M, mul)


def _len33to64(s, n):
    mul = _K2 + n * 2
    a = (_u64(s, 0) * _K2) & _M
    b = _u64(s, 8)
    c = (_u64(s, n - 8) * mul) & _M
    d = (_u64(s, n - 16) * _K2) & _M
    y = (_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M
    z = _h16(y, (a + _rot((b + _K2) & _M, 18) + c) & _M, mul)
    e = (_u64(s, 16) * mul) & _M
    f = _u64(s, 24)
    g = ((y + _u64(s, n - 32)) * mul) & _M
    h = ((z + _u64(s, n - 24)) * mul) & _M
    return _h16((_rot((e + f) & _M, 43) + _rot(g, 30) + h) & _M,
                (e + _rot((f + a) & _M, 18) + g) & _M, mul)


def _weak32(s, i, a, b):
    w, x, y, z = _u64(s, i), _u64(s, i + 8), _u64(s, i + 16), _u64(s, i + 24)
    a = (a + w) & _M
    b = _rot((b + a + z) & _M, 21)
    c = a
    a = (a + x + y) & _M
    b = (b + _rot(a, 44)) & _M
    return (a + z) & _M, (b + c) & _M


def fingerprint64(data):
    """``Fingerprint64`` of ``data`` (bytes or str, str encoded as UTF-8) as an int."""
    s = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    n = len(s)
    if n <= 16:
        return _len0to16(s, n)
    if n <= 32:
        return _len17to32(s, n)
    if n <= 64:
        return _len33to64(s, n)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _M
    z = (_smix((y * _K2 + 113) & _M) * _K2) & _M
    v0 = v1 = w0 = w1 = 0
    x = (x * _K2 + _u64(s, 0)) & _M
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    p = 0
    while True:
        x = (_rot((x + y + v0 + _u64(s, p + 8)) & _M, 37) * _K1) & _M
        y = (_rot((y + v1 + _u64(s, p + 48)) & _M, 42) * _K1) & _M
        x ^= w1
        y = (y + v0 + _u64(s, p + 40)) & _M
        z = (_rot((z + w0) & _M, 33) * _K1) & _M
        v0, v1 = _weak32(s, p, (v1 * _K1) & _M, (x + w0) & _M)
        w0, w1 = _weak32(s, p + 32, (z + w1) & _M, (y + _u64(s, p + 16)) & _M)
        z, x = x, z
        p += 64
        if p == end:
            break
    mul = _K1 + ((z & 0xff) << 1)
    p = last64
    w0 = (w0 + ((n - 1) & 63)) & _M
    v0 = (v0 + w0) & _M
    w0 = (w0 + v0) & _M
    x = (_rot((x + y + v0 + _u64(s, p + 8)) & _M, 37) * mul) & _M
    y = (_rot((y + v1 + _u64(s, p + 48)) & _M, 42) * mul) & _M
    x ^= (w1 * 9) & _M
    y = (y + v0 * 9 + _u64(s, p + 40)) & _M
    z = (_rot((z + w0) & _M, 33) * mul) & _M
    v0, v1 = _weak32(s, p, (v1 * mul) & _M, (x + w0) & _M)
    w0, w1 = _weak32(s, p + 32, (z + w1) & _M, (y + _u64(s, p + 16)) & _M)
    z, x = x, z
    return _h16((_h16(v0, w0, mul) + _smix(y) * _K0 + z) & _M,
                (_h16(v1, w1, mul) + x) & _M, mul)


def hash_bucket(value, num_buckets):
    """TF's ``string_to_hash_bucket_fast`` for one value."""
    if isinstance(value, bytes):
        key = value
    elif isinstance(value, str):
        key = value.encode("utf-8")
    else:
        key = str(value).encode("utf-8")
    return fingerprint64(key) % num_buckets
