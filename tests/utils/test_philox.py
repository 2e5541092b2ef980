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
