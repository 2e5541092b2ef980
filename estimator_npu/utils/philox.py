"""TF's counter-based random numbers: Philox4x32-10 and the distributions its CPU kernels
draw from it, vectorized in numpy, so a seeded graph gives TF's values.

The facts (from TF's public ``philox_random.h`` / ``random_distributions.h`` and the CPU
fill of ``random_op_cpu.h``, re-implemented here):

* a generator is a 64-bit key and a 128-bit counter; ``(seed, seed2)`` make key ``seed``
  and counter ``seed2 << 64``. Each 128-bit output is the 10-round Philox block of the
  counter; the counter then goes up by one;
* a kernel keeps its generator between runs: each run takes the current counter and moves
  it ``256 * n`` blocks on for an output of ``n`` elements (``Stream.reserve``);
* fixed-size distributions (uniform, normal) fill output group ``g`` (4 float32 or 2
  float64 values) from block ``g``; the truncated normal starts group ``g`` at block
  ``256 * g / (4 / group)`` and draws Box-Muller pairs until the group is full.

float32 ``logf`` / ``sinf`` / ``cosf`` are the C library's (``_float32_libm``); float64
ones are numpy's (within an ulp of the C library's).
"""
import ctypes
import ctypes.util
import os
import threading

import numpy as np

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = 0x9E3779B9, 0xBB67AE85
_LO32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_MASK128 = (1 << 128) - 1
SAMPLES_PER_OUTPUT = 256   # what a kernel reserves per output element and run


def blocks(key, counter, offsets):
    """Philox4x32-10 outputs at ``counter + offsets`` under ``key`` (64-bit int):
    a ``(len(offsets), 4)`` uint32 array, word 0 first (TF's ``PhiloxRandom()``)."""
    off = np.asarray(offsets, dtype=np.uint64).reshape(-1)
    lo = np.uint64(counter & 0xFFFFFFFFFFFFFFFF)
    hi = (counter >> 64) & 0xFFFFFFFFFFFFFFFF
    with np.errstate(over="ignore"):
        low = off + lo                       # wraps modulo 2**64
    carry = low < off
    if hi == 0xFFFFFFFFFFFFFFFF:
        high = np.where(carry, np.uint64(0), np.uint64(hi))
    else:
        high = np.uint64(hi) + carry.astype(np.uint64)
    c0, c1 = low & _LO32, low >> _S32
    c2, c3 = high & _LO32, high >> _S32
    k0, k1 = key & 0xFFFFFFFF, (key >> 32) & 0xFFFFFFFF
    for r in range(10):
        p0, p1 = c0 * _M0, c2 * _M1          # 32x32 -> 64-bit products, exact in uint64
        c0, c1, c2, c3 = ((p1 >> _S32) ^ c1 ^ np.uint64(k0), p1 & _LO32,
                          (p0 >> _S32) ^ c3 ^ np.uint64(k1), p0 & _LO32)
        k0, k1 = (k0 + _W0) & 0xFFFFFFFF, (k1 + _W1) & 0xFFFFFFFF
    out = np.empty((off.size, 4), np.uint32)
    out[:, 0], out[:, 1], out[:, 2], out[:, 3] = c0, c1, c2, c3
    return out


class Stream:
    """One kernel's generator (TF's ``GuardedPhiloxRandom``): ``(0, 0)`` means fresh
    random seeds, as TF's kernels take them."""

    def __init__(self, seed=0, seed2=0):
        if not seed and not seed2:
            seed, seed2 = (int.from_bytes(os.urandom(8), "little") for _ in range(2))
        self.key = int(seed) & 0xFFFFFFFFFFFFFFFF
        self.counter = (int(seed2) & 0xFFFFFFFFFFFFFFFF) << 64
        self._lock = threading.Lock()   # runs of one session may draw from two threads

    def reserve(self, n128):
        """The counter to draw ``n128`` blocks from; later draws start after them."""
        with self._lock:
            c = self.counter
            self.counter = (c + int(n128)) & _MASK128
        return c

    def reserve_outputs(self, n):
        """The counter for a kernel run with ``n`` output elements (``256 * n`` blocks)."""
        return self.reserve(n * SAMPLES_PER_OUTPUT)


# ------------------------------------------------------------------ bits -> values
def uint32_to_float(x):
    """[0, 1) float32 from the low 23 bits (TF's ``Uint32ToFloat``)."""
    bits = (np.asarray(x, np.uint32) & np.uint32(0x7FFFFF)) | np.uint32(127 << 23)
    return bits.view(np.float32) - np.float32(1.0)


def uint64_to_double(x0, x1):
    """[0, 1) float64 from 20 bits of ``x0`` and all of ``x1`` (``Uint64ToDouble``)."""
    man = ((np.asarray(x0, np.uint64) & np.uint64(0xFFFFF)) << _S32) | \
        np.asarray(x1, np.uint64)
    return (man | np.uint64(1023 << 52)).view(np.float64) - 1.0


def uint16_to_half(x):
    bits = (np.asarray(x, np.uint32) & np.uint32(0x3FF)) | np.uint32(15 << 10)
    return bits.astype(np.uint16).view(np.float16) - np.float16(1.0)


def _libm():
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
    except OSError:
        return {}
    fns = {}
    for name in ("logf", "sinf", "cosf"):
        f = getattr(lib, name)
        f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]
        fns[name] = np.frompyfunc(f, 1, 1)
    return fns


_LIBM = _libm()
# how far from a midpoint (in ulps) glibc was seen to round otherwise: logf up to 0.32
_BAND = {"logf": 0.35, "sinf": 0.07, "cosf": 0.07}  # glibc: sinf/cosf worst 0.5607 ulp


# glibc's float logf (2.27+): x = 2**k * z, z in [0x3f330000, 2 * that) bits, one of 16
# sub-intervals i with a double 1/c and log(c), then a degree-3 polynomial in r = z/c - 1,
# all in float64 and rounded once to float32 (constants from glibc's logf data table)
_LOGF_INVC = np.array(
    [float.fromhex(h) for h in (
        "0x1.661ec79f8f3bep+0", "0x1.571ed4aaf883dp+0", "0x1.49539f0f010bp+0",
        "0x1.3c995b0b80385p+0", "0x1.30d190c8864a5p+0", "0x1.25e227b0b8eap+0",
        "0x1.1bb4a4a1a343fp+0", "0x1.12358f08ae5bap+0", "0x1.0953f419900a7p+0", "0x1p+0",
        "0x1.e608cfd9a47acp-1", "0x1.ca4b31f026aap-1", "0x1.b2036576afce6p-1",
        "0x1.9c2d163a1aa2dp-1", "0x1.886e6037841edp-1", "0x1.767dcf5534862p-1")])
_LOGF_LOGC = np.array(
    [float.fromhex(h) for h in (
        "-0x1.57bf7808caadep-2", "-0x1.2bef0a7c06ddbp-2", "-0x1.01eae7f513a67p-2",
        "-0x1.b31d8a68224e9p-3", "-0x1.6574f0ac07758p-3", "-0x1.1aa2bc79c81p-3",
        "-0x1.a4e76ce8c0e5ep-4", "-0x1.1973c5a611cccp-4", "-0x1.252f438e10c1ep-5", "0x0p+0",
        "0x1.aa5aa5df25984p-5", "0x1.c5e53aa362eb4p-4", "0x1.526e57720db08p-3",
        "0x1.bc2860d22477p-3", "0x1.1058bc8a07ee1p-2", "0x1.4043057b6ee09p-2")])
_LOGF_A = [float.fromhex(h) for h in (
    "-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2", "-0x1.ffffef20a4123p-2")]
_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
# a build with fused multiply-adds rounds its float64 steps a few 2**-52 apart from this:
# only a result that close to a float32 midpoint (about 1e-6 of the elements) asks glibc
_LOGF_BAND = 1e-5


def _glibc_logf64(x):
    """glibc's logf of positive normal float32 ``x`` before its final rounding (float64)."""
    ix = np.asarray(x, np.float32).view(np.uint32)
    tmp = ix - np.uint32(0x3F330000)
    i = (tmp >> np.uint32(19)) & np.uint32(15)
    k = tmp.view(np.int32) >> np.int32(23)
    z = (ix - (tmp & np.uint32(0xFF800000))).view(np.float32).astype(np.float64)
    r = z * _LOGF_INVC[i] - 1.0
    y0 = _LOGF_LOGC[i] + k.astype(np.float64) * _LN2
    r2 = r * r
    y = _LOGF_A[1] * r + _LOGF_A[2]
    y = _LOGF_A[0] * r2 + y
    return y * r2 + (y0 + r)


def _logf(x):
    """float32 ``logf`` of float32 ``x`` in [1e-7, 1) (the Box-Muller radius), as glibc."""
    y = _glibc_logf64(x)
    r = y.astype(np.float32)
    fn = _LIBM.get("logf")
    if fn is not None:
        ulp = np.spacing(np.abs(r)).astype(np.float64)
        near = np.abs(np.abs(y - r) / np.where(ulp > 0, ulp, 1.0) - 0.5) < _LOGF_BAND
        if near.any():
            r[near] = fn(x[near]).astype(np.float32)
    return r


def _float32_libm(name, x):
    """``name`` (logf/sinf/cosf) of float32 ``x`` as the C library computes it (TF's
    kernels call it): float64 rounded to float32, with the values near a rounding midpoint
    (where glibc's float routines, good to about 0.8 ulp, may round the other way) taken
    from the C library itself."""
    y = getattr(np, name[:-1])(x.astype(np.float64))
    r = y.astype(np.float32)
    fn = _LIBM.get(name)
    if fn is not None:
        ulp = np.spacing(np.abs(r)).astype(np.float64)
        near = np.abs(np.abs(y - r) / np.where(ulp > 0, ulp, 1.0) - 0.5) < _BAND[name]
        if near.any():
            r[near] = fn(x[near]).astype(np.float32)
    return r


def box_muller_float(x0, x1):
    """Two float32 standard normals per pair of words (TF's ``BoxMullerFloat``)."""
    u1 = np.maximum(uint32_to_float(x0), np.float32(1.0e-7))
    v1 = (2.0 * np.pi * uint32_to_float(x1).astype(np.float64)).astype(np.float32)
    u2 = np.sqrt(np.float32(-2.0) * _logf(u1))
    return _float32_libm("sinf", v1) * u2, _float32_libm("cosf", v1) * u2


def box_muller_double(x0, x1, x2, x3):
    u1 = np.maximum(uint64_to_double(x0, x1), 1.0e-7)
    v1 = 2 * np.pi * uint64_to_double(x2, x3)
    u2 = np.sqrt(-2.0 * np.log(u1))
    return np.sin(v1) * u2, np.cos(v1) * u2


def _fixed(stream_counter, key, n, per_block):
    nb = -(-n // per_block)
    return blocks(key, stream_counter, np.arange(nb, dtype=np.uint64))


# ------------------------------------------------------------------ distributions
def uniform(key, counter, n, dtype):
    """``n`` [0, 1) samples of float ``dtype`` (``RandomUniform``'s raw output)."""
    dt = np.dtype(dtype)
    if dt == np.float64:
        b = _fixed(counter, key, n, 2)
        return uint64_to_double(b[:, 0::2], b[:, 1::2]).reshape(-1)[:n]
    b = _fixed(counter, key, n, 4).reshape(-1)[:n]
    if dt == np.float16:
        return uint16_to_half(b)
    return uint32_to_float(b).astype(dt, copy=False)


def normal(key, counter, n, dtype):
    """``n`` standard normals of float ``dtype`` (``RandomStandardNormal``)."""
    dt = np.dtype(dtype)
    if dt == np.float64:
        b = _fixed(counter, key, n, 2)
        f0, f1 = box_muller_double(b[:, 0], b[:, 1], b[:, 2], b[:, 3])
        return np.stack([f0, f1], 1).reshape(-1)[:n]
    b = _fixed(counter, key, n, 4)
    f0, f1 = box_muller_float(b[:, 0::2], b[:, 1::2])
    return np.stack([f0, f1], 2).reshape(-1)[:n].astype(dt, copy=False)


def uniform_int(key, counter, n, lo, hi, dtype):
    """``n`` integers in ``[lo, hi)`` (``RandomUniformInt``: word modulo the range)."""
    dt = np.dtype(dtype)
    if dt == np.int64:
        b = _fixed(counter, key, n, 2).astype(np.uint64)
        bits = (b[:, 0::2] | (b[:, 1::2] << _S32)).reshape(-1)[:n]
        rng = np.uint64((int(hi) - int(lo)) & 0xFFFFFFFFFFFFFFFF)
        return (np.int64(lo) + (bits % rng).view(np.int64)).astype(dt)
    b = _fixed(counter, key, n, 4).reshape(-1)[:n]
    rng = np.uint32((int(hi) - int(lo)) & 0xFFFFFFFF)
    with np.errstate(over="ignore"):
        return (np.int32(lo) + (b % rng).view(np.int32)).astype(dt)


def truncated_normal(key, counter, n, dtype):
    """``n`` standard normals within (-2, 2) (``TruncatedNormal``): each output group
    draws from its own stretch of blocks, keeping the in-range values in order."""
    dt = np.dtype(dtype)
    double = dt == np.float64
    group = 2 if double else 4
    ngroups = -(-n // group)
    skip = group * SAMPLES_PER_OUTPUT // 4
    base = np.arange(ngroups, dtype=np.uint64) * np.uint64(skip)
    out = np.empty((ngroups, group), np.float64 if double else np.float32)
    todo = np.arange(ngroups)
    have = np.zeros(ngroups, np.int64)
    j = 0
    while todo.size:
        k = 2 if j == 0 else 1                 # first pass: enough for nearly every group
        offs = base[todo][:, None] + np.arange(j, j + k, dtype=np.uint64)[None, :]
        b = blocks(key, counter, offs.reshape(-1)).reshape(todo.size, k, 4)
        if double:
            f0, f1 = box_muller_double(b[..., 0], b[..., 1], b[..., 2], b[..., 3])
            cand = np.stack([f0, f1], -1).reshape(todo.size, -1)
        else:
            f0, f1 = box_muller_float(b[..., 0::2], b[..., 1::2])
            cand = np.stack([f0, f1], -1).reshape(todo.size, -1)
        ok = np.abs(cand) < 2.0
        pos = have[todo][:, None] + np.cumsum(ok, 1) - 1   # slot each accepted value fills
        take = ok & (pos < group)
        rows = np.broadcast_to(todo[:, None], take.shape)[take]
        out[rows, pos[take]] = cand[take]
        have[todo] = np.minimum(have[todo] + ok.sum(1), group)
        todo = todo[have[todo] < group]
        j += k
    return out.reshape(-1)[:n].astype(dt, copy=False)


def shuffle_permutation(key, counter, n):
    """TF's ``RandomShuffle`` order of ``n`` rows: a Fisher-Yates pass swapping row
    ``i`` with ``i + word_i % (n - i)``."""
    perm = list(range(n))
    if n <= 1:
        return np.array(perm, np.int64)
    words = blocks(key, counter, np.arange(-(-(n - 1) // 4), dtype=np.uint64)).reshape(-1)
    if n <= 0x7FFFFFFF:
        jumps = (words[:n - 1].astype(np.int64) % np.arange(n, 1, -1)).tolist()
    else:  # pragma: no cover - a 2**31-row shuffle
        raise ValueError("random_shuffle: more than 2**31 - 1 rows")
    for i, d in enumerate(jumps):
        j = i + d
        perm[i], perm[j] = perm[j], perm[i]
    return np.array(perm, np.int64)


def shuffle_words(n):
    """Blocks ``RandomShuffle`` reserves for ``n`` rows (``ReserveSamples32(n - 1)``)."""
    return -(-(n - 1) // 4) if n > 1 else 0
