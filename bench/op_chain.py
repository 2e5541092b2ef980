"""Large graphs of small ops: per-op cost, graph build and plan compile against chain length.

A chain of ``n`` ops on a ``[8, 16]`` activation cycles through ``matmul`` (a 16x16
variable), ``add`` (a 16-vector variable), ``relu`` and ``mul`` (a constant); the loss is
the chain's sum and each step fetches the gradients of all variables (``tf.gradients``),
so the plan runs the forward chain and its backward. Printed per length:

* build: seconds to build the forward graph and its gradients;
* compile: seconds of the first ``Session.run`` of the gradient fetch (plan compilation);
* steady: µs per step (median of ``--reps`` timings of ``--steps`` steps), and per chain
  op (``steady / n``) and per plan kernel.

Goal (issue 16): the steady cost per chain op at most 1 µs and flat from 100 to 5,000 ops;
build and compile linear in ``n``.

Run: ``python bench/op_chain.py [--lengths 100,500,1000,5000] [--steps 200] [--reps 5]``

``--floor`` times numpy's own calls that the plan makes for one group of four chain ops
(forward and backward, each call alone on warm (8, 16) arrays, best of 7 timings) and
prints their sum per chain op: what a plan of these kernels can reach at best.

``--before CHECKOUT`` times another estimator_npu checkout (e.g. the previous commit, from
``git worktree add``) in child processes alternating with this one, ``--rounds`` times per
length, and prints the plan µs per op of both and their ratio (medians). ``--cpu`` times
with the thread's CPU clock instead of the wall clock, which on a machine loaded by other
processes leaves out the time this one waits for a core.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.environ.get("OP_CHAIN_ROOT") or ROOT)

import estimator_npu as tf  # noqa: E402

clock = time.perf_counter


def build_chain(n, rng):
    x = tf.placeholder(tf.float32, [8, 16])
    h = x
    variables = []
    for i in range(n):
        kind = i % 4
        if kind == 0:
            w = tf.Variable(rng.standard_normal((16, 16)).astype(np.float32) * 0.25)
            variables.append(w)
            h = tf.matmul(h, w)
        elif kind == 1:
            b = tf.Variable(rng.standard_normal(16).astype(np.float32) * 0.1)
            variables.append(b)
            h = h + b
        elif kind == 2:
            h = tf.nn.relu(h)
        else:
            h = h * 1.5
    loss = tf.reduce_sum(h)
    return x, loss, tf.gradients(loss, variables)


def measure(n, steps, reps, rng):
    with tf.Graph().as_default():
        t0 = time.perf_counter()
        x, loss, grads = build_chain(n, rng)
        build = time.perf_counter() - t0
        xv = rng.standard_normal((8, 16)).astype(np.float32)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            t0 = time.perf_counter()
            sess.run(grads, {x: xv})
            compile_s = time.perf_counter() - t0
            plan = sess.compile(list(grads), [x])
            kernels = len(plan.line_ops)
            fn = plan.fn
            for _ in range(10):
                fn(xv)
            samples = []
            for _ in range(reps):
                t0 = clock()
                for _ in range(steps):
                    fn(xv)
                samples.append((clock() - t0) / steps)
            session = []
            for _ in range(reps):
                t0 = time.perf_counter()
                for _ in range(max(1, steps // 4)):
                    sess.run(grads, {x: xv})
                session.append((time.perf_counter() - t0) / max(1, steps // 4))
    return build, compile_s, statistics.median(samples), statistics.median(session), kernels


def floor():
    """The bare numpy calls of one matmul/add/relu/mul group and its gradient."""
    rng = np.random.default_rng(0)
    x, g, w = (rng.standard_normal(s).astype(np.float32) for s in ((8, 16), (8, 16), (16, 16)))
    b, y = rng.standard_normal(16).astype(np.float32), np.maximum(x, 0)
    c, z, ones = np.array(1.5, np.float32), np.zeros((), np.float32), np.ones(8, np.float32)
    dot = getattr(np.dot, "_implementation", np.dot)
    calls = {"matmul dot(x, w)": lambda: dot(x, w), "bias add(x, b, x)": lambda: np.add(x, b, x),
             "relu maximum(x, 0, out=x)": lambda: np.maximum(x, z, out=x),
             "mul multiply(x, c)": lambda: np.multiply(x, c),
             "grad of mul multiply(g, c)": lambda: np.multiply(g, c),
             "relu grad multiply(g, greater(y, 0))": lambda: np.multiply(g, np.greater(y, z)),
             "dx dot(g, w.T)": lambda: dot(g, w.T), "dw dot(x.T, g)": lambda: dot(x.T, g),
             "db dot(ones, g)": lambda: dot(ones, g)}
    total = 0.0
    for name, f in calls.items():
        best = float("inf")
        for _ in range(7):
            t0 = clock()
            for _ in range(2000):
                f()
            best = min(best, (clock() - t0) / 2000)
        total += best
        print(f"{best * 1e6:7.3f} µs  {name}")
    print(f"{total * 1e6:7.3f} µs per four chain ops, {total * 1e6 / 4:.3f} µs per op")


def compare(a):
    """This checkout against ``a.before``, alternating child processes."""
    lengths = [int(v) for v in a.lengths.split(",")]
    got = {}
    for _ in range(a.rounds):
        for label, root in (("before", os.path.abspath(a.before)), ("after", ROOT)):
            for n in lengths:
                cmd = [sys.executable, os.path.abspath(__file__), "--child", str(n),
                       "--steps", str(a.steps), "--reps", str(a.reps)] + \
                    (["--cpu"] if a.cpu else [])
                out = subprocess.run(cmd, env=dict(os.environ, OP_CHAIN_ROOT=root),
                                     check=True, capture_output=True, text=True).stdout
                got.setdefault((label, n), []).append(json.loads(out.splitlines()[-1]))
    print(f"{'ops':>6s} {'before µs/op':>13s} {'after µs/op':>12s} {'after/before':>13s}")
    for n in lengths:
        b, f = (statistics.median(got[(k, n)]) for k in ("before", "after"))
        print(f"{n:6d} {b:13.3f} {f:12.3f} {f / b:12.2f}x")


def main():
    global clock
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lengths", default="100,500,1000,2000,5000")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--before", help="another checkout, timed alternately (see above)")
    ap.add_argument("--rounds", type=int, default=3, help="alternations with --before")
    ap.add_argument("--cpu", action="store_true", help="time with the thread's CPU clock")
    ap.add_argument("--floor", action="store_true", help="time numpy's bare calls (above)")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.cpu:
        clock = time.thread_time
    if a.floor:
        return floor()
    if a.before:
        return compare(a)
    rng = np.random.default_rng(0)
    if a.child:
        n = a.child
        step = measure(n, max(10, a.steps * 100 // n), a.reps, rng)[2]
        print(json.dumps(step * 1e6 / n))
        return None
    print(f"{'ops':>6s} {'build s':>8s} {'compile s':>9s} {'plan µs/step':>13s} "
          f"{'µs/op':>7s} {'kernels':>8s} {'µs/kernel':>9s} {'Session.run µs/op':>18s}")
    for n in (int(v) for v in a.lengths.split(",")):
        steps = max(10, a.steps * 100 // n)
        build, comp, step, sess_step, kernels = measure(n, steps, a.reps, rng)
        print(f"{n:6d} {build:8.3f} {comp:9.3f} {step * 1e6:13.1f} {step * 1e6 / n:7.3f} "
              f"{kernels:8d} {step * 1e6 / kernels:9.3f} {sess_step * 1e6 / n:18.3f}")


if __name__ == "__main__":
    main()
