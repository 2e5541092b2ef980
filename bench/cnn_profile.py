"""Per-kernel profile of one training step of the TF layers-tutorial CNN (or LeNet-5).

Builds the model with ``tf.layers`` (``bench/vs_tf.py``'s own network and optimizer), compiles its
training plan with placeholders for the batch and times each plan line inside whole
training steps run in order (``workloads.in_sequence_plan``). Prints the top kernels by time
and the step time.

``--ab`` instead times, alternately in this process, the plan as compiled now against the
same model with the issue-16 kernel choices switched off (no plan rewrites, whole-batch
col2im, one thread) and prints medians and minimums of ``--reps`` rounds.

``--off PASS[,PASS]`` instead times, alternately, the plan as compiled now against the same
model compiled without those ``engine.plan_rewrites`` passes (e.g. ``_pool_first``), both
with the current kernels and threads: the gain of one rewrite inside whole steps
(``--cpu``: process CPU time, steadier than wall time on a busy machine).

``--cpu`` times the per-kernel profile with this thread's CPU clock (with
``OPENBLAS_NUM_THREADS=1 ESTIMATOR_NPU_NUM_THREADS=1`` that is all of each kernel's work)
and ``--rounds R`` prints medians of R rounds: figures a busy machine does not inflate as
much as wall time. A kernel object several lines share (``k_dot``, every 2-D MatMul) is
counted under its first line's op.

Run: ``python bench/cnn_profile.py [--model cnn|lenet|mlp] [--steps N] [--top K]
[--cpu] [--rounds R] [--ab] [--off PASS]``
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import estimator_npu as tf  # noqa: E402
import vs_tf  # noqa: E402
from workloads import in_sequence_plan  # noqa: E402


# the networks, optimizers and batch sizes of bench/vs_tf.py's Estimator workloads
MODELS = {"cnn": vs_tf.ESTIMATOR["cnn"], "lenet": vs_tf.ESTIMATOR["lenet"],
          "mlp": vs_tf.ESTIMATOR["mlp"]}


def build(model):
    net, make_opt, batch = MODELS[model]
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(0)
        x = tf.placeholder(tf.float32, [None, 784])
        y = tf.placeholder(tf.int32, [None])
        gs = tf.train.create_global_step()
        logits = net(tf, x)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=y, logits=logits))
        train = make_opt(tf).minimize(loss, global_step=gs)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        plan = sess.compile([train], [x, y])
        plan.check_initialized()
    return plan, sess, batch


def ab(model, steps, reps):
    from estimator_npu.engine import plan_rewrites, threads
    from estimator_npu.engine.ops import conv_ops
    new, _, batch = build(model)
    real, chunked = plan_rewrites.kernel_overrides, conv_ops._CHUNKED_C
    plan_rewrites.kernel_overrides = lambda *a: {}
    try:
        old, _, _ = build(model)
    finally:
        plan_rewrites.kernel_overrides = real
    rng = np.random.default_rng(0)
    xs = rng.random((20, batch, 784), dtype=np.float32)
    ys = rng.integers(0, 10, (20, batch)).astype(np.int32)

    def timed(plan, on):
        threads.set_num_threads(None if on else 1)
        conv_ops._CHUNKED_C = chunked if on else 1 << 30
        try:
            t0 = time.perf_counter()
            for i in range(steps):
                plan.fn(xs[i % 20], ys[i % 20])
            return (time.perf_counter() - t0) / steps * 1e3
        finally:
            threads.set_num_threads(None)
            conv_ops._CHUNKED_C = chunked
    timed(new, True), timed(old, False)
    a, b = [], []
    for _ in range(reps):
        a.append(timed(new, True))
        b.append(timed(old, False))
    print(f"{model}: ms per step, median (min) of {reps} alternating rounds of {steps} steps: "
          f"now {statistics.median(a):.2f} ({min(a):.2f}), without the issue-16 kernel "
          f"choices {statistics.median(b):.2f} ({min(b):.2f}); speed-up "
          f"{statistics.median(b) / statistics.median(a):.2f}x")


def ab_passes(model, steps, reps, passes, clock=time.perf_counter):
    from estimator_npu.engine import plan_rewrites
    new, _, batch = build(model)
    saved = {p: getattr(plan_rewrites, p) for p in passes}
    for p in passes:
        setattr(plan_rewrites, p, lambda *a: None)
    try:
        old, _, _ = build(model)
    finally:
        for p, f in saved.items():
            setattr(plan_rewrites, p, f)
    rng = np.random.default_rng(0)
    xs = rng.random((20, batch, 784), dtype=np.float32)
    ys = rng.integers(0, 10, (20, batch)).astype(np.int32)

    def timed(plan):
        t0 = clock()
        for i in range(steps):
            plan.fn(xs[i % 20], ys[i % 20])
        return (clock() - t0) / steps * 1e3
    timed(new), timed(old)
    a, b = [], []
    for r in range(reps):
        for plan, acc in ((new, a), (old, b)) if r % 2 == 0 else ((old, b), (new, a)):
            acc.append(timed(plan))
    print(f"{model}: ms per step, median (min) of {reps} alternating rounds of {steps} steps: "
          f"now {statistics.median(a):.3f} ({min(a):.3f}), without {','.join(passes)} "
          f"{statistics.median(b):.3f} ({min(b):.3f}); speed-up "
          f"{statistics.median(b) / statistics.median(a):.3f}x (min {min(b) / min(a):.3f}x)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="cnn", choices=sorted(MODELS))
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--source", action="store_true", help="print the plan's source")
    ap.add_argument("--ab", action="store_true", help="time against the kernel choices off")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--off", help="time against the plan without these rewrite passes")
    ap.add_argument("--cpu", action="store_true", help="CPU time instead of wall time, "
                    "steadier on a busy machine (with --off: the process's, all threads; "
                    "the per-kernel profile: this thread's)")
    ap.add_argument("--rounds", type=int, default=1, help="per-kernel profile: medians of "
                    "this many rounds of --steps steps")
    a = ap.parse_args()
    if a.off:
        return ab_passes(a.model, a.steps, a.reps, a.off.split(","),
                         time.process_time if a.cpu else time.perf_counter)
    if a.ab:
        return ab(a.model, a.steps, a.reps)
    plan, sess, batch = build(a.model)
    rng = np.random.default_rng(0)
    xs = rng.random((100, batch, 784), dtype=np.float32)
    ys = rng.integers(0, 10, (100, batch)).astype(np.int32)
    if a.source:
        print(plan.source)
    # --cpu: this thread's CPU clock (all of a kernel's work when OPENBLAS_NUM_THREADS=1
    # ESTIMATOR_NPU_NUM_THREADS=1), steadier than wall time on a busy machine
    clock = time.thread_time if a.cpu else time.perf_counter
    for i in range(3):
        plan.fn(xs[i], ys[i])
    steps, seqs = [], []
    for _ in range(a.rounds):
        t0 = clock()
        for i in range(a.steps):
            plan.fn(xs[i], ys[i])
        steps.append((clock() - t0) / a.steps)
        seqs.append(in_sequence_plan(plan, xs, ys, a.steps, clock))
    step = statistics.median(steps)
    seq = {k: statistics.median(s[k] for s in seqs) for k in seqs[0]}
    total = sum(seq.values())
    print(f"{a.model}: batch {batch}, {step * 1e3:.2f} ms per step ({1 / step:.1f} steps/s, "
          f"{'CPU' if a.cpu else 'wall'} time, median of {a.rounds}); top {a.top} of "
          f"{len(seq)} kernels, {total / 1e3:.2f} ms in kernels:")
    print(f"{'op type':26s} {'op name':44s} {'ms':>7s} {'share':>6s}")
    for (t, name), us in sorted(seq.items(), key=lambda r: -r[1])[:a.top]:
        print(f"{t[:26]:26s} {name[:44]:44s} {us / 1e3:7.2f} {us / total:6.1%}")


if __name__ == "__main__":
    main()
