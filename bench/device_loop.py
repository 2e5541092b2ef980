"""Iteration offloading: the seed's softmax regression through the Estimator at
``iterations_per_loop`` N ∈ {1, 10, 100, 1000}, against a hand-written numpy loop over the
same pre-made batches, timed alternately in the same process.

The Estimator runs with its default hooks (step counter, loss logging, checkpoint every
1,000 steps, summaries every 100 steps); its ``input_fn`` yields 100 pre-made batches of
MNIST-shaped random data in turn. Steady-state steps/s is measured between the first and
the last host call (a timing hook), so graph building and session creation are excluded;
periodic checkpoints, summaries and hooks are included.

Run: ``python bench/device_loop.py [--profile]``
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
from estimator_npu.estimator import NPURunConfig  # noqa: E402
from _common import print_table  # noqa: E402

LR = 0.01
N_BATCHES = 100
BATCH = 100


def make_batches(seed=0):
    rng = np.random.default_rng(seed)
    xs = rng.random((N_BATCHES, BATCH, 784), dtype=np.float32)
    ys = np.eye(10, dtype=np.float32)[rng.integers(0, 10, (N_BATCHES, BATCH))]
    return xs, ys


def numpy_loop(xs, ys, steps):
    """The same training, hand-written: returns seconds per step."""
    w = np.zeros((784, 10), np.float32)
    b = np.zeros(10, np.float32)
    n = np.float32(BATCH)
    t0 = time.perf_counter()
    for i in range(steps):
        x, y = xs[i % N_BATCHES], ys[i % N_BATCHES]
        z = x @ w
        z += b
        z -= z.max(axis=1, keepdims=True)
        np.exp(z, out=z)
        z /= z.sum(axis=1, keepdims=True)
        loss = -np.sum(y * np.log(z)) / n  # noqa: F841 - the loss is computed, as in the model
        z -= y
        z *= np.float32(LR) / n
        np.subtract(w, x.T @ z, out=w)
        np.subtract(b, z.sum(axis=0), out=b)
    return (time.perf_counter() - t0) / steps


def model_fn(features, labels, mode):
    W = tf.Variable(tf.zeros([784, 10]))
    b = tf.Variable(tf.zeros([10]))
    pred = tf.nn.softmax(tf.matmul(features, W) + b)
    cost = tf.reduce_mean(-tf.reduce_sum(labels * tf.log(pred), reduction_indices=1))
    train_op = tf.train.GradientDescentOptimizer(LR).minimize(
        cost, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=cost, train_op=train_op)


class RateHook(tf.train.SessionRunHook):
    """Steady-state steps/s between the first and the last host call."""

    def __init__(self):
        self.marks = []

    def after_run(self, run_context, run_values):
        self.marks.append((time.perf_counter(), run_values.global_step))

    def seconds_per_step(self):
        (t0, s0), (t1, s1) = self.marks[0], self.marks[-1]
        return (t1 - t0) / (s1 - s0)


def estimator_run(xs, ys, k, steps):
    model_dir = tempfile.mkdtemp(prefix="bench_device_loop_")
    try:
        config = NPURunConfig(model_dir=model_dir, iterations_per_loop=k,
                              save_checkpoints_steps=1000, save_summary_steps=100,
                              log_step_count_steps=100)
        est = tf.estimator.Estimator(model_fn, config=config)

        def input_fn():
            return tf.data.Dataset.from_tensor_slices((xs, ys)).repeat()
        rate = RateHook()
        est.train(input_fn, steps=steps, hooks=[rate])
        return rate.seconds_per_step()
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--profile", action="store_true",
                        help="print a per-kernel profile of one training step")
    args = parser.parse_args()
    import logging
    logging.getLogger("estimator_npu").setLevel(logging.ERROR)
    xs, ys = make_batches()
    ns = (1, 10, 100, 1000)
    steps = {1: 2000, 10: 3000, 100: 3000, 1000: 5000}
    numpy_loop(xs, ys, 300)
    for k in ns:
        estimator_run(xs, ys, k, 2 * k if k > 1 else 50)  # warm-up
    samples = {k: [] for k in ns}
    base = []
    for _ in range(args.reps):
        for k in ns:
            base.append(numpy_loop(xs, ys, 2000))
            samples[k].append(estimator_run(xs, ys, k, steps[k]))
    t_np = statistics.median(base)
    rows = [["hand-written numpy loop", f"{1 / t_np:.0f}", "1.00"]]
    for k in ns:
        t = statistics.median(samples[k])
        rows.append([f"Estimator, iterations_per_loop={k}", f"{1 / t:.0f}", f"{t_np / t:.2f}"])
    print_table(rows, ["run", "steps/s", "ratio vs numpy"])
    t1, t100 = statistics.median(samples[1]), statistics.median(samples[100])
    print(f"\nN=1 -> N=100 speed-up: {t1 / t100:.2f}x  "
          f"(targets: N=100 >= 0.8x numpy, N=1 >= 0.5x numpy)")
    if args.profile:
        profile(xs, ys)


def profile(xs, ys):
    """Where a step's time goes: per-kernel times of the training plan."""
    from _profile import print_profile, profile_plan
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 784])
        y = tf.placeholder(tf.float32, [None, 10])
        tf.train.create_global_step()
        spec = model_fn(x, y, tf.estimator.ModeKeys.TRAIN)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        sess.run(spec.train_op, {x: xs[0], y: ys[0]})
        plan = sess.compile([spec.train_op], [x, y])
    print("\nper-kernel profile of one training step:")
    print_profile(profile_plan(plan, [xs[0], ys[0]]), top=12)


if __name__ == "__main__":
    main()
