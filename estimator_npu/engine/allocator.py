"""Keeping freed array memory in the process, as TensorFlow's own allocator does.

glibc's ``malloc`` hands the top of the heap back to the OS once more than
``M_TRIM_THRESHOLD`` of it is free, and serves requests above ``M_MMAP_THRESHOLD`` with
fresh ``mmap``s. A training step frees and re-allocates the same few megabytes every step
(a loop's per-iteration values, its gradient's temporaries), so with the defaults it pays a
page fault for every 4 KiB it touches again: 465 faults per step of an LSTM-128 x 28
``dynamic_rnn`` training step, about 10% of its time. ``retain_freed_memory()`` raises both
thresholds once per process (the first ``Session`` calls it): freed memory is reused
instead of returned, arrays above 32 MiB still come from and go back to the OS.

Elsewhere than glibc (or when ``mallopt`` is missing) it does nothing.
"""
import ctypes
import sys

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20   # glibc's largest (DEFAULT_MMAP_THRESHOLD_MAX on 64-bit)
TRIM_THRESHOLD = 256 << 20

_applied = None


def retain_freed_memory():
    """Sets glibc's trim and mmap thresholds once; returns whether they are set."""
    global _applied
    if _applied is None:
        _applied = False
        if sys.platform.startswith("linux"):
            try:
                mallopt = ctypes.CDLL(None).mallopt
            except (OSError, AttributeError):
                return False
            mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
            _applied = bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
                mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    return _applied
