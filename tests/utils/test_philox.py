"""utils.philox: Philox4x32-10 against the published known-answer vectors, counter
arithmetic, and the float32 C-library functions its Box-Muller uses."""
import ctypes
import ctypes.util

import numpy as np
import pytest

from estimator_npu.utils import philox


def test_philox4x32_10_known_answers():
    assert philox.blocks(0, 0, [0]).tolist() == [[0x6627E8D5, 0xE169C58D, 0xBC57AC4C,
                                                   0x9B00DBD8]]
    ones = philox.blocks(2 ** 64 - 1, 2 ** 128 - 1, [0])
    assert ones.tolist() == [[0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]]


def test_offsets_carry_across_the_128_bit_counter():
    start = 2 ** 64 - 2
    joined = philox.blocks(7, start, np.arange(4, dtype=np.uint64))
    one_by_one = np.concatenate([philox.blocks(7, start + i, [0]) for i in range(4)])
    np.testing.assert_array_equal(joined, one_by_one)
    s = philox.Stream(3, 5)
    assert s.reserve_outputs(10) == 5 << 64 and s.counter == (5 << 64) + 2560


def test_float32_functions_are_the_c_library_s():
    if not philox._LIBM:
        pytest.skip("no C math library found by ctypes: float32 functions are rounded float64")
    lib = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
    x = np.random.default_rng(0).random(100000).astype(np.float32) * np.float32(6.3) + \
        np.float32(1e-7)
    for name in ("logf", "sinf", "cosf"):
        f = getattr(lib, name)
        f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]
        expected = np.frompyfunc(f, 1, 1)(x).astype(np.float32)
        np.testing.assert_array_equal(philox._float32_libm(name, x), expected, err_msg=name)


def test_unseeded_streams_differ():
    assert philox.Stream(0, 0).key != philox.Stream(0, 0).key or \
        philox.Stream(0, 0).counter != philox.Stream(0, 0).counter


def test_logf_emulation_is_glibc_s_on_box_muller_inputs():
    """The vectorized glibc logf (no C library call outside a 1e-5-ulp band) gives the C
    library's value for every kind of Box-Muller radius input: 2e5 random 23-bit
    mantissas, the smallest clamp value and the top of [0, 1)."""
    if not philox._LIBM:
        pytest.skip("no C math library found by ctypes: nothing to compare logf against")
    lib = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
    f = lib.logf
    f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]
    bits = np.random.default_rng(5).integers(0, 2 ** 23, 200000).astype(np.uint32)
    x = np.concatenate([np.maximum(philox.uint32_to_float(bits), np.float32(1e-7)),
                        np.array([1e-7, 0.5, 0.75, np.nextafter(1, 0)], np.float32)])
    expected = np.frompyfunc(f, 1, 1)(x).astype(np.float32)
    raw = philox._glibc_logf64(x).astype(np.float32)
    assert np.count_nonzero(raw.view(np.uint32) != expected.view(np.uint32)) <= 2
    np.testing.assert_array_equal(philox._logf(x).view(np.uint32), expected.view(np.uint32))
