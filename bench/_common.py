"""Shared timing helpers for the benchmarks: alternate timing, medians, tables."""
import statistics
import time


def time_per_call(fn, n):
    """Seconds per call of ``fn`` over ``n`` calls."""
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def alternate(candidates, n, reps=9, warmup=1):
    """Times each ``(name, fn)`` ``reps`` times, alternating between them, after warm-up.

    Returns ``{name: median seconds per call}``.
    """
    for _, fn in candidates:
        for _ in range(warmup):
            time_per_call(fn, max(1, n // 5))
    samples = {name: [] for name, _ in candidates}
    for _ in range(reps):
        for name, fn in candidates:
            samples[name].append(time_per_call(fn, n))
    return {name: statistics.median(v) for name, v in samples.items()}


def print_table(rows, headers):
    widths = [max(len(str(r[i])) for r in rows + [headers]) for i in range(len(headers))]
    line = "  ".join(str(h).ljust(w) for h, w in zip(headers, widths))
    print(line)
    print("-" * len(line))
    for r in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))


def blas_kernels():
    """Which BLAS numpy runs, as ``'openblas SkylakeX x2'`` (library, kernel set, threads),
    read with threadpoolctl when it is installed, else ``'unknown (pip install
    threadpoolctl)'``. The kernel set matters: where ``OPENBLAS_CORETYPE`` pins OpenBLAS to
    its AVX2 ``Haswell`` kernels on an AVX-512 machine, GEMMs run about 1.8x slower than
    with the ``SkylakeX`` kernels OpenBLAS picks by itself there. Benchmarks print it so
    that figures taken under different settings are not compared."""
    try:
        import numpy  # noqa: F401 - loads the BLAS threadpoolctl inspects
        import threadpoolctl
    except ImportError:
        return "unknown (pip install threadpoolctl)"
    libs = [f"{i.get('internal_api')} {i.get('architecture') or '?'} x{i.get('num_threads')}"
            for i in threadpoolctl.threadpool_info() if i.get("user_api") == "blas"]
    return ", ".join(libs) or "none found"
