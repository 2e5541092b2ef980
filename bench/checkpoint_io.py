"""Checkpoint save/restore throughput (MB/s) for a 100M-parameter model, next to np.save.

Workload: 100M float32 parameters (400 MB) as 40 weight matrices of 2.5M values plus
200 small bias vectors, saved as a TF V2 checkpoint (tensor bundle: data file + index,
crc32c of every tensor, temp file + fsync + rename) and restored with every checksum
verified, against the plain numpy baseline writing the same arrays with ``np.save`` into
one file (and ``np.load`` back). Rows:

* ``write_checkpoint`` / ``read_checkpoint``: the checkpoint layer alone;
* ``Saver.save`` / ``Saver.restore``: through a session (values copied into variables);
* ``np.save (+fsync)``: the baseline, once with the same fsync as ours, once without.

Each is timed several times alternately, after an ``os.sync()`` so that the previous
case's write-back does not land in the next one; the table shows medians. Files go to
``$BENCH_DIR`` (default: a temporary directory), so the page cache makes both sides
mostly memory-bound; the ratio is what matters.

Run: ``python bench/checkpoint_io.py [--params 100e6] [--reps 3]``
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import estimator_npu as tf  # noqa: E402
from _common import print_table  # noqa: E402
from estimator_npu.train import checkpoint_io  # noqa: E402


def make_arrays(params):
    rng = np.random.default_rng(0)
    big = int(params * 0.999) // 40
    arrays = {f"model/layer_{i}/weights": rng.standard_normal(big, dtype=np.float32)
              .reshape(-1, 500) for i in range(40)}
    for i in range(200):
        arrays[f"model/layer_{i}/biases"] = rng.standard_normal(500, dtype=np.float32)
    return arrays


def np_save(path, arrays, fsync):
    with open(path, "wb") as f:
        for a in arrays.values():
            np.save(f, a)
        if fsync:
            f.flush()
            os.fsync(f.fileno())


def np_load(path, n):
    with open(path, "rb") as f:
        return [np.load(f) for _ in range(n)]


def timed(fn, reps):
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--params", type=float, default=100e6)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    arrays = make_arrays(int(args.params))
    mb = sum(a.nbytes for a in arrays.values()) / 1e6
    d = tempfile.mkdtemp(dir=os.environ.get("BENCH_DIR"))
    try:
        prefix = os.path.join(d, "model.ckpt")
        npy = os.path.join(d, "arrays.npy")
        g = tf.Graph()
        with g.as_default():
            variables = [tf.Variable(tf.zeros(a.shape), name=n) for n, a in arrays.items()]
            saver = tf.train.Saver()
            sess = tf.Session()
            for v, a in zip(variables, arrays.values()):
                v.load(a, sess)
        rows, results = [], {}
        for _ in range(1):      # warm the page cache and the code paths
            checkpoint_io.write_checkpoint(prefix, arrays)
            checkpoint_io.read_checkpoint(prefix)
            np_save(npy, arrays, True)
            np_load(npy, len(arrays))
        cases = [
            ("save", "write_checkpoint", lambda: checkpoint_io.write_checkpoint(prefix, arrays)),
            ("save", "Saver.save", lambda: saver.save(sess, prefix, write_meta_graph=False,
                                                      write_state=False)),
            ("save", "np.save + fsync", lambda: np_save(npy, arrays, True)),
            ("save", "np.save", lambda: np_save(npy, arrays, False)),
            ("restore", "read_checkpoint", lambda: checkpoint_io.read_checkpoint(prefix)),
            ("restore", "Saver.restore", lambda: saver.restore(sess, prefix)),
            ("restore", "np.load", lambda: np_load(npy, len(arrays))),
        ]
        samples = {name: [] for _, name, _ in cases}
        for _ in range(args.reps):
            for _, name, fn in cases:
                os.sync()               # no write-back of the previous case in this one
                samples[name].append(timed(fn, 1))
        for kind, name, _ in cases:
            results[name] = statistics.median(samples[name])
        base = {"save": results["np.save + fsync"], "restore": results["np.load"]}
        for kind, name, _ in cases:
            t = results[name]
            rows.append([kind, name, f"{t * 1e3:.0f} ms", f"{mb / t:.0f} MB/s",
                         f"{base[kind] / t:.2f}x"])
        print(f"{int(args.params / 1e6)}M parameters, {mb:.0f} MB, {len(arrays)} tensors, "
              f"files in {d}")
        print_table(rows, ["", "path", "median", "throughput",
                           "vs np.save+fsync / np.load"])
        sess.close()
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
