"""Engine overhead: µs per ``Session.run`` of a one-op graph, and steps/s of the seed's
softmax regression (batch 100, 784→10, gradient descent) through ``Session.run``, against
a hand-written numpy implementation of the same step timed alternately in this process.

Run: ``python bench/engine_overhead.py``
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import estimator_npu as tf  # noqa: E402
from _common import alternate, print_table  # noqa: E402

LR = 0.01


def make_data(seed=0, batch=100):
    rng = np.random.default_rng(seed)
    x = rng.random((batch, 784), dtype=np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, batch)]
    return x, y


def numpy_step_factory(x, y):
    """The same training step, hand-fused in numpy (the limit)."""
    w = np.zeros((784, 10), np.float32)
    b = np.zeros(10, np.float32)
    n = np.float32(x.shape[0])

    def step():
        z = x @ w
        z += b
        z -= z.max(axis=1, keepdims=True)
        np.exp(z, out=z)
        z /= z.sum(axis=1, keepdims=True)
        loss = -np.sum(y * np.log(z)) / n
        z -= y
        z *= np.float32(LR) / n
        np.subtract(w, x.T @ z, out=w)
        np.subtract(b, z.sum(axis=0), out=b)
        return loss
    return step, (w, b)


def engine_step_factory(x, y):
    g = tf.Graph()
    with g.as_default():
        xp = tf.placeholder(tf.float32, [None, 784])
        yp = tf.placeholder(tf.float32, [None, 10])
        w = tf.Variable(tf.zeros([784, 10]))
        b = tf.Variable(tf.zeros([10]))
        pred = tf.nn.softmax(tf.matmul(xp, w) + b)
        cost = tf.reduce_mean(-tf.reduce_sum(yp * tf.log(pred), reduction_indices=1))
        train_op = tf.train.GradientDescentOptimizer(LR).minimize(cost)
        sess = tf.Session(graph=g)
        sess.run(tf.global_variables_initializer())
    feed = {xp: x, yp: y}
    fetches = [train_op, cost]

    def step():
        return sess.run(fetches, feed_dict=feed)[1]
    return step, sess, (w, b)


def one_op_factory():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1.0)
        out = tf.identity(c)
        sess = tf.Session(graph=g)
    return lambda: sess.run(out)


def main():
    x, y = make_data()
    np_step, _ = numpy_step_factory(x, y)
    tf_step, sess, _ = engine_step_factory(x, y)
    # Both implementations compute the same losses.
    np_check, _ = numpy_step_factory(x, y)
    tf_check, _, _ = engine_step_factory(x, y)
    for _ in range(3):
        a, b_ = np_check(), tf_check()
        assert abs(a - b_) < 1e-4 * max(1.0, abs(a)), (a, b_)
    one = one_op_factory()
    t = alternate([("one-op run", one)], n=20000, reps=5)
    res = alternate([("numpy", np_step), ("engine", tf_step)], n=500, reps=9)
    rows = [["Session.run of a one-op graph", f"{t['one-op run'] * 1e6:.2f} µs", ""],
            ["seed softmax step, hand-written numpy", f"{1 / res['numpy']:.0f} steps/s", "1.00"],
            ["seed softmax step, Session.run per step", f"{1 / res['engine']:.0f} steps/s",
             f"{res['numpy'] / res['engine']:.2f}"]]
    print_table(rows, ["measurement", "value", "ratio vs numpy"])
    print(f"\nratio (engine / hand-written numpy steps per second): "
          f"{res['numpy'] / res['engine']:.2f}  (target >= 0.6)")


if __name__ == "__main__":
    main()
