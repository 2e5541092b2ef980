"""Checkpoint save/restore throughput (MB/s) for a 100M-parameter model, next to numpy.

Workload: 100M float32 parameters (400 MB) as 40 weight matrices of 2.5M values plus
200 small bias vectors, saved as a TF V2 checkpoint (tensor bundle: data file + index,
crc32c of every tensor, temp file + fsync + rename) and restored with every checksum
verified, against plain numpy writing the same arrays with ``np.save`` into one file and
reading them back. Every row says what it produces; the first ratio is against plain
``np.save`` / ``np.load`` (the issue's reference), the second against the numpy row that
does the same work:

* ``write_checkpoint`` / ``Saver.save`` vs ``np.save + fsync`` (the same durability:
  our files are fsync'ed too, and renamed into place), and vs plain ``np.save``;
* ``read_checkpoint`` (fresh arrays, every tensor checked) vs ``np.load`` (fresh arrays);
* ``get_tensor`` each tensor through ``NewCheckpointReader`` vs ``np.load``;
* ``Saver.restore`` (of the session's initialized variables: every tensor read once into
  a fresh array, checked, the arrays swapped in when all have passed) vs ``np.load``
  (fresh arrays, the same work with numpy; what the issue asks);
* ``np.load into arrays``: ``readinto`` of each ``.npy`` payload into existing arrays
  (no allocation, no check: a floor, shown for reference);
* ``Estimator restore``: the Estimator's start-up path: the look-ahead at the checkpoint
  training resumes from (``recovery.find`` with ``quick_check``: indexes and file sizes),
  then, in a new session whose variables hold nothing yet, the session creator's
  ``recovery.restore_newest`` (the newest checkpoint of the model_dir restored with
  ``Saver.restore``, which is its check: every byte read once and verified).

Every repetition times each case right next to its reference (``np.save`` without fsync
for the saves, ``np.load`` for the restores; the reference first in every other
repetition), the cases in a new random order (so that no case always follows the same
one: the memory and page-cache state one case leaves behind changes the next one's
time), each after an ``os.sync()`` so that the previous case's write-back does not land
in it. The ratio column is the median of those paired ratios: each pair ran under the
same load, which matters on a shared machine; the table also shows median times and the
1-minute load average before and after the run. Files go to ``$BENCH_DIR`` (default: a
temporary directory) and stay in the page cache (both sides memory-bound; like with
like), or with ``--cold`` are dropped from it before every restore case
(``posix_fadvise(DONTNEED)``: both sides then read from the disk).

Run: ``python bench/checkpoint_io.py [--params 100e6] [--reps 9] [--samples] [--cold]``
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
from estimator_npu.train import checkpoint_io, recovery  # noqa: E402


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


def np_load_into(path, dests):
    """Reads each ``.npy`` payload straight into an existing array (headers parsed)."""
    with open(path, "rb") as f:
        for d in dests:
            major, _ = np.lib.format.read_magic(f)
            (np.lib.format.read_array_header_1_0 if major == 1 else
             np.lib.format.read_array_header_2_0)(f)
            f.readinto(d.reshape(-1).view(np.uint8))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--params", type=float, default=100e6)
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--samples", action="store_true", help="also print every sample (ms)")
    ap.add_argument("--cold", action="store_true",
                    help="drop the files from the page cache before every restore case")
    args = ap.parse_args()
    arrays = make_arrays(int(args.params))
    mb = sum(a.nbytes for a in arrays.values()) / 1e6
    load_before = os.getloadavg()[0]
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
        dests = [np.empty_like(a) for a in arrays.values()]

        def get_tensors():
            reader = tf.train.NewCheckpointReader(prefix)
            return [reader.get_tensor(n) for n in arrays]

        model_dir = os.path.join(d, "model_dir")
        os.mkdir(model_dir)
        saver.save(sess, os.path.join(model_dir, "model.ckpt"), global_step=1,
                   write_meta_graph=False)

        def estimator_restore():
            recovery.find(model_dir, warn=False, check=recovery.quick_check)
            fresh = tf.Session(graph=g)
            found = recovery.restore_newest(model_dir, lambda p: saver.restore(fresh, p))
            assert found.path is not None
            fresh.close()

        cases = [
            ("save", "write_checkpoint", "np.save + fsync",
             lambda: checkpoint_io.write_checkpoint(prefix, arrays)),
            ("save", "Saver.save", "np.save + fsync",
             lambda: saver.save(sess, prefix, write_meta_graph=False, write_state=False)),
            ("save", "np.save + fsync", "np.save + fsync", lambda: np_save(npy, arrays, True)),
            ("save", "np.save (no fsync)", "np.save + fsync",
             lambda: np_save(npy, arrays, False)),
            ("restore", "read_checkpoint", "np.load",
             lambda: checkpoint_io.read_checkpoint(prefix)),
            ("restore", "get_tensor x 240", "np.load", get_tensors),
            ("restore", "Saver.restore", "np.load",
             lambda: saver.restore(sess, prefix)),
            ("restore", "Estimator restore", "np.load", estimator_restore),
            ("restore", "np.load", "np.load", lambda: np_load(npy, len(arrays))),
            ("restore", "np.load into arrays", "np.load into arrays",
             lambda: np_load_into(npy, dests)),
        ]
        for _ in range(2):      # warm the page cache, the allocator and the code paths
            for _, _, _, fn in cases:
                fn()
        ref_of = {"save": "np.save (no fsync)", "restore": "np.load"}
        by_name = {name: (kind, fn) for kind, name, _, fn in cases}
        samples = {name: [] for _, name, _, _ in cases}
        ratios = {name: [] for _, name, _, _ in cases}
        order = np.random.default_rng(1)

        def timed(name):
            if args.cold and by_name[name][0] == "restore":
                for path in (npy, prefix + checkpoint_io.DATA_SUFFIX,
                             os.path.join(model_dir, "model.ckpt-1" +
                                          checkpoint_io.DATA_SUFFIX)):
                    checkpoint_io._drop_cached(path)
            os.sync()                   # no write-back of the previous case in this one
            t0 = time.perf_counter()
            by_name[name][1]()
            t = time.perf_counter() - t0
            samples[name].append(t)
            return t
        for rep in range(args.reps):
            # each case next to its reference (np.save / np.load), which goes first in
            # every other repetition: the ratio of the pair is measured under the same
            # load; cases in a new random order every repetition
            for i in order.permutation(len(cases)):
                kind, name, _, _ = cases[i]
                ref = ref_of[kind]
                if name == ref:
                    continue
                if rep % 2:
                    t_ref, t = timed(ref), timed(name)
                else:
                    t, t_ref = timed(name), timed(ref)
                ratios[name].append(t_ref / t)
        med = {name: statistics.median(v) for name, v in samples.items()}
        rows = []
        for kind, name, like, _ in cases:
            t = med[name]
            paired = statistics.median(ratios[name]) if ratios[name] else 1.0
            rows.append([kind, name, f"{t * 1e3:.0f} ms", f"{mb / t:.0f} MB/s",
                         f"{paired:.2f}x", f"{med[like] / t:.2f}x ({like})"])
        print(f"{int(args.params / 1e6)}M parameters, {mb:.0f} MB, {len(arrays)} tensors, "
              f"files in {d} ({'dropped from the page cache before every restore case' if args.cold else 'in the page cache, both sides'}); "
              f"medians of {args.reps}; load average (1 min) "
              f"{load_before:.2f} before, {os.getloadavg()[0]:.2f} after, "
              f"{os.cpu_count()} CPUs")
        print_table(rows, ["", "path", "median", "throughput",
                           "vs np.save / np.load (paired)", "vs the same work in numpy"])
        if args.samples:
            for name, v in samples.items():
                print(f"{name:20s}", " ".join(f"{x * 1e3:.0f}" for x in v))
            for name, v in ratios.items():
                if v:
                    print(f"{name:20s} ratios", " ".join(f"{x:.2f}" for x in v))
        sess.close()
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
