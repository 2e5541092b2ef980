"""Mixed precision: steps/s of the MLP 784-512-512-10 (ReLU, Adam lr 1e-3, batch 128; the
W2 workload of PERFORMANCE.md) trained through ``Session.run`` in fp32 and with
``precision_mode="allow_mix_precision"`` (every matmul of the forward and backward pass in
fp16 semantics), and with dynamic loss scaling on top, against a hand-written fp32 numpy
step, all timed alternately in this process.

The target (issue 7): the fp16 step costs at most 1.5x the fp32 step.

Run: ``python bench/mixed_precision.py [--reps 9] [--steps 10]``

``--exhaustive`` instead checks ``precision.fp16_round`` against an independent reference on
all 2**32 float32 bit patterns (a few minutes): numpy's float16 conversion where it is
fast (|x| >= 2**-14, inf, NaN) and exact float64 rounding to the 2**-24 grid below.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import estimator_npu as tf  # noqa: E402
from _common import alternate, print_table  # noqa: E402
from estimator_npu import mixed_precision  # noqa: E402
from estimator_npu.engine import precision  # noqa: E402

BATCH = 128
SIZES = (784, 512, 512, 10)
LR = 1e-3


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.random((BATCH, SIZES[0]), dtype=np.float32)
    y = rng.integers(0, SIZES[-1], BATCH).astype(np.int32)
    return x, y


def init_weights(seed=1):
    rng = np.random.default_rng(seed)
    out = []
    for i, o in zip(SIZES[:-1], SIZES[1:]):
        limit = np.sqrt(6.0 / (i + o))
        out.append((rng.uniform(-limit, limit, (i, o)).astype(np.float32),
                    np.zeros(o, np.float32)))
    return out


def session_config(mode):
    config = tf.ConfigProto()
    if mode is not None:
        entry = config.graph_options.rewrite_options.custom_optimizers.add()
        entry.name = "NpuOptimizer"
        entry.parameter_map["precision_mode"].s = mode.encode()
    return config


def engine_step_factory(x, y, mode=None, loss_scale=False):
    g = tf.Graph()
    with g.as_default():
        xp = tf.placeholder(tf.float32, [BATCH, SIZES[0]])
        yp = tf.placeholder(tf.int32, [BATCH])
        h = xp
        for k, (w, b) in enumerate(init_weights()):
            h = tf.matmul(h, tf.Variable(w, name=f"w{k}")) + tf.Variable(b, name=f"b{k}")
            if k < len(SIZES) - 2:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yp,
                                                                             logits=h))
        opt = tf.train.AdamOptimizer(LR)
        if loss_scale:
            manager = mixed_precision.ExponentialUpdateLossScaleManager(2.0 ** 12, 1000)
            opt = mixed_precision.LossScaleOptimizer(opt, manager)
        train_op = opt.minimize(loss)
        sess = tf.Session(graph=g, config=session_config(mode))
        sess.run(tf.global_variables_initializer())
    feed = {xp: x, yp: y}

    def step():
        sess.run(train_op, feed_dict=feed)
    return step


def numpy_step_factory(x, y):
    """The same fp32 step by hand (forward, backward, Adam), for scale."""
    params = [a for wb in init_weights() for a in wb]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    onehot = np.eye(SIZES[-1], dtype=np.float32)[y]
    t = [0]

    def step():
        w0, b0, w1, b1, w2, b2 = params
        h0 = np.maximum(x @ w0 + b0, 0)
        h1 = np.maximum(h0 @ w1 + b1, 0)
        z = h1 @ w2 + b2
        z -= z.max(axis=1, keepdims=True)
        np.exp(z, out=z)
        z /= z.sum(axis=1, keepdims=True)
        z -= onehot
        z /= BATCH
        d1 = (z @ w2.T) * (h1 > 0)
        d0 = (d1 @ w1.T) * (h0 > 0)
        grads = [x.T @ d0, d0.sum(0), h0.T @ d1, d1.sum(0), h1.T @ z, z.sum(0)]
        t[0] += 1
        lr = LR * np.sqrt(1 - 0.999 ** t[0]) / (1 - 0.9 ** t[0])
        for p, g, mi, vi in zip(params, grads, m, v):
            mi *= 0.9
            mi += 0.1 * g
            vi *= 0.999
            vi += 0.001 * g * g
            p -= lr * mi / (np.sqrt(vi) + 1e-8)
    return step


def rounding_cost():
    """Microseconds to round the largest weight matrix (784x512) to fp16, two ways."""
    rng = np.random.default_rng(2)
    w = (rng.standard_normal((784, 512)) * 1e-3).astype(np.float32)
    out = np.empty_like(w)
    work = np.empty(w.shape, np.uint32)
    res = alternate([
        ("magic-number fp16_round_into", lambda: precision.fp16_round_into(w, out, work)),
        ("astype(float16).astype(float32)",
         lambda: w.astype(np.float16).astype(np.float32)),
    ], n=5, reps=5)
    return {k: v * 1e6 for k, v in res.items()}


def exhaustive_check(chunk_bits=24):
    """``fp16_round`` on every float32 bit pattern; returns the number of mismatches
    (signed zeros compare equal: the rounding returns +0 for tiny negative values)."""
    n = 1 << chunk_bits
    base = np.arange(n, dtype=np.uint32)
    out = np.empty(n, np.float32)
    work = np.empty(precision.work_size(n), np.uint32)
    bad = 0
    for chunk in range(1 << (32 - chunk_bits)):
        x = (base + np.uint32(chunk * n)).view(np.float32)
        got = precision.fp16_round_into(x, out, work)
        ref = np.empty(n, np.float32)
        with np.errstate(over="ignore", invalid="ignore"):
            small = np.abs(x.astype(np.float64)) < 2.0 ** -14
            ref[small] = (np.rint(x[small].astype(np.float64) * 2.0 ** 24)
                          * 2.0 ** -24).astype(np.float32)
            ref[~small] = x[~small].astype(np.float16).astype(np.float32)
        ok = (ref == got) | (np.isnan(ref) & np.isnan(got))
        bad += int(n - np.count_nonzero(ok))
    return bad


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--exhaustive", action="store_true",
                        help="check fp16_round on all 2**32 float32 bit patterns")
    args = parser.parse_args(argv)
    if args.exhaustive:
        bad = exhaustive_check()
        print(f"fp16_round on all 2**32 float32 bit patterns: {bad} mismatches")
        return bad
    x, y = make_data()
    candidates = [
        ("numpy fp32 (hand-written)", numpy_step_factory(x, y)),
        ("engine fp32", engine_step_factory(x, y)),
        ("engine allow_mix_precision", engine_step_factory(x, y, "allow_mix_precision")),
        ("engine allow_mix_precision + loss scale",
         engine_step_factory(x, y, "allow_mix_precision", loss_scale=True)),
    ]
    res = alternate(candidates, n=args.steps, reps=args.reps)
    base = res["engine fp32"]
    rows = [(name, f"{1.0 / sec:.1f}", f"{sec * 1e3:.2f}", f"{sec / base:.2f}x")
            for name, sec in res.items()]
    print(f"MLP {'-'.join(map(str, SIZES))}, batch {BATCH}, Adam; median of {args.reps} "
          f"samples of {args.steps} steps")
    print_table(rows, ["implementation", "steps/s", "ms/step", "time vs engine fp32"])
    ratio = res["engine allow_mix_precision"] / base
    print(f"\nfp16 / fp32 step time: {ratio:.2f}x (target <= 1.5x): "
          f"{'OK' if ratio <= 1.5 else 'ABOVE TARGET'}")
    print("\nrounding a 784x512 float32 matrix to fp16 (us):")
    for name, us in rounding_cost().items():
        print(f"  {name:36s} {us:9.0f}")
    return ratio


if __name__ == "__main__":
    main()
