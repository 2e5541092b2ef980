"""Input pipeline cost: µs per batch through ``get_next`` against numpy fancy indexing.

Workload (issue 3, acceptance 6): 60,000 x 784 float32 images and int64 labels,
``from_tensor_slices((x, y)).shuffle(60000).repeat().batch(128).prefetch(1)`` pulled
with ``sess.run(get_next)``, against the hand-written baseline that gathers the same
batches (``x[idx], y[idx]`` for precomputed shuffled index vectors). Both are timed
alternately in this process; the table shows the median of several repetitions.

Also shown: the same pipeline without ``prefetch`` (synchronous) and with a small shuffle
buffer, and the generic per-element path (``map`` before ``batch``) for reference.

Run: ``python bench/input_pipeline.py`` (``--tfrecord``: TFRecord reading and Example
parsing instead, see ``bench/tfrecord_input.py``)
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import estimator_npu as tf  # noqa: E402
from _common import alternate, print_table  # noqa: E402

N, D, BATCH = 60000, 784, 128


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    return rng.random((N, D), dtype=np.float32), rng.integers(0, 10, N).astype(np.int64)


def numpy_baseline(x, y, seed=1):
    rng = np.random.default_rng(seed)
    state = {"order": rng.permutation(N), "pos": 0}

    def step():
        pos = state["pos"]
        if pos + BATCH > N:
            state["order"] = rng.permutation(N)
            pos = 0
        idx = state["order"][pos:pos + BATCH]
        state["pos"] = pos + BATCH
        return x[idx], y[idx]
    return step


def pipeline(x, y, buffer_size=N, prefetch=True, generic=False):
    g = tf.Graph()
    with g.as_default():
        ds = tf.data.Dataset.from_tensor_slices((x, y))
        if generic:
            # reshape is not row-wise (data/rowwise.py): the map runs per element
            ds = ds.map(lambda a, b: (tf.reshape(a, [D]), b))
        ds = ds.shuffle(buffer_size, seed=1).repeat().batch(BATCH)
        if prefetch:
            ds = ds.prefetch(1)
        batch = ds.make_one_shot_iterator().get_next()
    sess = tf.Session(graph=g)
    run = sess.run

    def step():
        return run(batch)
    return step, sess


def main():
    x, y = make_data()
    base = numpy_baseline(x, y)
    cases = [("get_next (shuffle 60000, prefetch 1)", {}),
             ("get_next (shuffle 60000, no prefetch)", {"prefetch": False}),
             ("get_next (shuffle 10000, prefetch 1)", {"buffer_size": 10000})]
    rows = []
    sessions = []
    for label, kw in cases:
        step, sess = pipeline(x, y, **kw)
        sessions.append(sess)
        t = alternate([("numpy", base), ("pipeline", step)], n=300, reps=9)
        rows.append((label, f"{t['pipeline'] * 1e6:.1f}", f"{t['numpy'] * 1e6:.1f}",
                     f"{t['pipeline'] / t['numpy']:.2f}x"))
    step, sess = pipeline(x, y, generic=True)
    sessions.append(sess)
    t = alternate([("numpy", base), ("pipeline", step)], n=30, reps=5)
    rows.append(("generic: map before batch (reference)", f"{t['pipeline'] * 1e6:.1f}",
                 f"{t['numpy'] * 1e6:.1f}", f"{t['pipeline'] / t['numpy']:.2f}x"))
    for s in sessions:
        s.close()
    print(f"batch {BATCH} of {N}x{D} float32 + int64 labels; µs per batch, median")
    print_table(rows, ["case", "pipeline µs", "numpy µs", "ratio (target <= 2x)"])


if __name__ == "__main__":
    if "--tfrecord" in sys.argv:  # TFRecord reading and Example parsing (issue 20)
        import tfrecord_input
        tfrecord_input.main()
    else:
        main()
