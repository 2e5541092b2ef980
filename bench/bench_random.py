"""TF-exact random draws (utils.philox) against numpy's Generator, which the random ops
used before: a 784x512 normal / truncated-normal weight init and a 128x1024 dropout mask.

Run: ``env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/bench_random.py``.
"""
import time

import numpy as np

from estimator_npu.utils import philox


def _best(fn, reps=7):
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times) * 1e3


def main():
    gen, s = np.random.default_rng(1), philox.Stream(1, 2)
    n_w, n_d = 784 * 512, 128 * 1024
    rows = [
        ("normal 784x512", lambda: philox.normal(s.key, s.reserve_outputs(n_w), n_w,
                                                 np.float32),
         lambda: gen.standard_normal(n_w).astype(np.float32)),
        ("truncated 784x512", lambda: philox.truncated_normal(
            s.key, s.reserve_outputs(n_w), n_w, np.float32),
         lambda: gen.standard_normal(n_w).astype(np.float32)),
        ("dropout uniform 128x1024", lambda: philox.uniform(
            s.key, s.reserve_outputs(n_d), n_d, np.float32),
         lambda: gen.random(n_d).astype(np.float32)),
    ]
    for name, ours, base in rows:
        a, b = _best(ours), _best(base)
        print(f"{name:26s} philox {a:7.2f} ms   numpy Generator {b:6.2f} ms   x{a / b:.1f}")


if __name__ == "__main__":
    main()
