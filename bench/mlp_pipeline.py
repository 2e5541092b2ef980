"""The MLP of ``bench/vs_tf.py`` fed by an input pipeline against pre-batched input (issue 16).

One process, one ``Session`` per case, all timed alternately (``_common.alternate``, the
median of several repetitions), so a loaded machine affects every case alike:

* ``pre-batched``: ``from_tensor_slices((xs, ys)).repeat()`` over 100 ready batches;
* ``pipeline``: Fashion-MNIST's 60,000 rows through
  ``from_tensor_slices((x, y)).shuffle(10000).repeat().batch(128)``;
* ``+ prefetch``: the same with ``.prefetch(1)``, with prefetch's thread (``thread``) and
  without it (``sync``); the default is sync when producing a batch is one gather, and the
  thread over a map's batches (``prefetch.MODE``);
* ``map``: uint8 rows and ``map(lambda x, y: (tf.cast(x, tf.float32) / 255, y))`` before
  the shuffle (a row-wise map, run once per batch).

Columns: ms per training step (MLP 784-512-512-10, Adam, batch 128), the ratio
pre-batched / case in steps/s, and ms per batch of ``get_next`` alone (no training).

Run: ``python bench/mlp_pipeline.py [--reps 7] [--steps 30]``
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import estimator_npu as tf  # noqa: E402
from estimator_npu.data import prefetch as _prefetch  # noqa: E402
from _common import alternate, print_table  # noqa: E402
from vs_tf import batches, fashion_rows, mlp_net  # noqa: E402

BATCH = 128


def datasets():
    x, y, _ = fashion_rows()
    x8 = np.round(x * 255).astype(np.uint8)
    xs, ys = batches(100, BATCH)

    def pipe(src, fn=None, prefetch=False):
        ds = tf.data.Dataset.from_tensor_slices(src)
        if fn is not None:
            ds = ds.map(fn)
        ds = ds.shuffle(10000, seed=1).repeat().batch(BATCH)
        return ds.prefetch(1) if prefetch else ds

    def scale(a, b):
        return tf.cast(a, tf.float32) / 255.0, b
    return [("pre-batched", lambda: tf.data.Dataset.from_tensor_slices((xs, ys)).repeat(),
             "auto"),
            ("pipeline", lambda: pipe((x, y)), "auto"),
            ("pipeline + prefetch (sync)", lambda: pipe((x, y), prefetch=True), "auto"),
            ("pipeline + prefetch (thread)", lambda: pipe((x, y), prefetch=True), "thread"),
            ("map pipeline", lambda: pipe((x8, y), scale), "auto"),
            ("map pipeline + prefetch (thread)", lambda: pipe((x8, y), scale, True), "auto"),
            ("map pipeline + prefetch (sync)", lambda: pipe((x8, y), scale, True), "sync")]


def build(make_ds, mode, train):
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(0)
        feats, labels = make_ds().make_one_shot_iterator().get_next()
        if train:
            logits = mlp_net(tf, feats)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=labels, logits=logits))
            target = tf.train.AdamOptimizer(1e-3).minimize(loss)
            init = tf.global_variables_initializer()
        else:
            target, init = [feats, labels], None
    sess = tf.Session(graph=g)
    if init is not None:
        sess.run(init)
    _prefetch.MODE = mode  # read when the iterator starts (first run)
    try:
        sess.run(target)
    finally:
        _prefetch.MODE = "auto"
    run = sess.run
    return (lambda: run(target)), sess


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--steps", type=int, default=30)
    a = ap.parse_args()
    cases = datasets()
    sessions, train, feed = [], [], []
    for name, make, mode in cases:
        step, sess = build(make, mode, True)
        train.append((name, step))
        getn, sess2 = build(make, mode, False)
        feed.append((name, getn))
        sessions += [sess, sess2]
    t = alternate(train, n=a.steps, reps=a.reps)
    f = alternate(feed, n=5 * a.steps, reps=a.reps)
    base = t["pre-batched"]
    rows = [(name, f"{t[name] * 1e3:.2f}", f"{base / t[name]:.3f}", f"{f[name] * 1e3:.3f}")
            for name, _, _ in cases]
    for s in sessions:
        s.close()
    print(f"MLP 784-512-512-10, Adam, batch {BATCH}; medians of {a.reps} alternating "
          f"repetitions of {a.steps} steps; load average {os.getloadavg()[0]:.1f}")
    print_table(rows, ["input", "ms/step", "steps/s vs pre-batched", "get_next ms/batch"])


if __name__ == "__main__":
    main()
