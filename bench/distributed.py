"""Data-parallel training speed: the MLP 784-512-512-10 (ReLU, Adam 1e-3, float32, batch
128 per worker, synthetic data) with 1 and 2 workers, and the exposed communication time
per step (time the training thread spends in all-reduce calls) with the tailing
optimization off and on.

Run: ``python bench/distributed.py`` (needs the ``mpi`` extra). The script starts itself
under ``estimator-npu-run -n 1`` and ``-n 2`` (``--worker``); in each run every worker
times, alternately in the same process, the engine step with tailing off, with tailing on,
and a hand-written numpy step of the same model with one blocking all-reduce of the flat
gradient (the baseline), with ``iterations_per_loop`` steps per host call. Rank 0 prints
one JSON line per run; the parent prints the table.

Options: ``--steps-per-loop N`` (default 10), ``--reps N`` (default 7), ``--threads N``
(BLAS threads per worker; default: all cores for one worker, cores / workers otherwise),
``--split P,P`` (``set_split_strategy_by_size``, default: the adapter's 96.54,3.46).
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
sys.path.insert(0, ROOT)

SIZES = (784, 512, 512, 10)
BATCH = 128
LR = 1e-3


# ---------------------------------------------------------------- the engine step
def engine_step_factory(x, y, tailing, steps_per_loop, seed=0):
    import estimator_npu as tf
    from estimator_npu.device import util as device_util
    from estimator_npu.hooks.broadcast_hook import broadcast_global_variables
    from estimator_npu.train.distributed_optimizer import NPUDistributedOptimizer

    rng = np.random.default_rng(seed)
    g = tf.Graph()
    with g.as_default():
        xp = tf.placeholder(tf.float32, [None, SIZES[0]])
        yp = tf.placeholder(tf.float32, [None, SIZES[-1]])
        h = xp
        for i, (n_in, n_out) in enumerate(zip(SIZES, SIZES[1:])):
            w = tf.Variable((rng.standard_normal((n_in, n_out)) * np.sqrt(2 / n_in))
                            .astype(np.float32), name=f"w{i}")
            b = tf.Variable(np.zeros(n_out, np.float32), name=f"b{i}")
            h = tf.matmul(h, w) + b
            if i < len(SIZES) - 2:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=yp, logits=h))
        opt = NPUDistributedOptimizer(tf.train.AdamOptimizer(LR),
                                      is_tailing_optimization=tailing)
        train_op = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
        sess = tf.Session(graph=g)
        sess.run(tf.global_variables_initializer())
        broadcast_global_variables(0, sess)
        op = device_util.set_iteration_per_loop(sess, train_op, steps_per_loop)
    feed = {xp: x, yp: y}

    def loop():
        sess.run(op, feed_dict=feed)
    return loop, opt


# ---------------------------------------------------------------- the numpy baseline
def numpy_step_factory(x, y, steps_per_loop, seed=0):
    """The same step hand-written: forward, backward into one flat gradient buffer, one
    blocking all-reduce (mean) of it, Adam on flat buffers."""
    from estimator_npu.distribute import collective

    rng = np.random.default_rng(seed)
    shapes = []
    for n_in, n_out in zip(SIZES, SIZES[1:]):
        shapes += [(n_in, n_out), (n_out,)]
    sizes = [int(np.prod(s)) for s in shapes]
    total = sum(sizes)
    param, grad = np.empty(total, np.float32), np.empty(total, np.float32)
    m, v, t = (np.zeros(total, np.float32) for _ in range(3))

    def views(flat):
        out, o = [], 0
        for s, n in zip(shapes, sizes):
            out.append(flat[o:o + n].reshape(s))
            o += n
        return out
    p, gv = views(param), views(grad)
    for i in range(0, len(shapes), 2):
        p[i][...] = rng.standard_normal(shapes[i]) * np.sqrt(2 / shapes[i][0])
        p[i + 1][...] = 0
    collective.broadcast(param, 0)
    n = np.float32(x.shape[0])
    state = {"step": 0}
    b1, b2, eps = 0.9, 0.999, 1e-8

    def step():
        acts = [x]
        h = x
        for i in range(0, len(p), 2):
            h = h @ p[i]
            h += p[i + 1]
            if i < len(p) - 2:
                np.maximum(h, 0, out=h)
            acts.append(h)
        z = acts[-1]
        z -= z.max(axis=1, keepdims=True)
        np.exp(z, out=z)
        z /= z.sum(axis=1, keepdims=True)
        z -= y
        z /= n
        d = z
        for i in range(len(p) - 2, -1, -2):
            a_in = acts[i // 2]
            np.matmul(a_in.T, d, out=gv[i])
            np.sum(d, axis=0, out=gv[i + 1])
            if i:
                d = d @ p[i].T
                d *= acts[i // 2] > 0
        collective.allreduce(grad, "mean")
        state["step"] += 1
        k = state["step"]
        lr_t = LR * np.sqrt(1 - b2 ** k) / (1 - b1 ** k)
        np.multiply(m, b1, out=m)
        np.multiply(grad, 1 - b1, out=t)
        np.add(m, t, out=m)
        np.multiply(v, b2, out=v)
        np.multiply(grad, grad, out=t)
        np.multiply(t, 1 - b2, out=t)
        np.add(v, t, out=v)
        np.sqrt(v, out=t)
        np.add(t, eps, out=t)
        np.divide(m, t, out=t)
        np.multiply(t, lr_t, out=t)
        np.subtract(param, t, out=param)

    def loop():
        for _ in range(steps_per_loop):
            step()
    return loop


# ---------------------------------------------------------------- the update alone
def update_step_factory(tailing, seed=0):
    """Only what the tailing optimization reorders: the gradient all-reduce hook and the
    Adam update of the MLP's flat buffers, driven as the ``ApplyUpdates`` kernel does."""
    from estimator_npu.train.distributed_optimizer import make_allreduce_grad_hook
    from estimator_npu.train.update_rules import Adam, Layout

    shapes = []
    for n_in, n_out in zip(SIZES, SIZES[1:]):
        shapes += [(n_in, n_out), (n_out,)]
    layout = Layout([f"t{i}" for i in range(len(shapes))], shapes)
    rng = np.random.default_rng(seed)
    param = rng.standard_normal(layout.size).astype(np.float32)
    grad = np.empty_like(param)
    fresh = rng.standard_normal(layout.size).astype(np.float32) * 1e-3
    rule = Adam()
    state = rule.init(param)
    state.update({"beta1_power": np.array(0.9, np.float32),
                  "beta2_power": np.array(0.999, np.float32)})
    hyper = {"learning_rate": LR, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8}
    work = rule.workspace(param, layout)
    hook = make_allreduce_grad_hook(tailing, elementwise=rule.elementwise)
    cache = {}

    def piece(a, b):
        args = cache.get((a, b))
        if args is None:
            args = cache[(a, b)] = (
                param[a:b], grad[a:b], {k: (v[a:b] if v.ndim else v) for k, v in state.items()},
                rule.workspace(param[a:b], None, scratch=[t[a:b] for t in work["scratch"]]))
        return args

    def step():
        np.copyto(grad, fresh)
        ranges = hook([grad], [layout])
        if ranges is None:
            rule.update(param, grad, state, hyper, work)
        else:
            for _, a, b in ranges:
                p, g, st, w = piece(a, b)
                rule.update(p, g, st, hyper, w)
        rule.finish(state, hyper)
    return step, hook


def update_only(args):
    from estimator_npu.distribute import collective

    steps = {mode: update_step_factory(mode == "on") for mode in ("off", "on")}
    for fn, _ in steps.values():
        fn()
    per_step = {mode: [] for mode in steps}
    exposed = {mode: [] for mode in steps}
    n = 20
    for _ in range(args.reps):
        for mode, (fn, hook) in steps.items():
            hook.stats.reset()
            collective.barrier()
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            per_step[mode].append((time.perf_counter() - t0) / n)
            exposed[mode].append(hook.stats.exposed_seconds_per_step)
    out = {}
    for mode in steps:
        out[f"update_ms_{mode}"] = 1e3 * statistics.median(per_step[mode])
        mine = statistics.median(exposed[mode])
        out[f"update_exposed_ms_{mode}"] = 1e3 * float(
            collective.allgather(np.array([mine])).mean())
    return out


# ---------------------------------------------------------------- one worker process
def worker(args):
    from estimator_npu.distribute import collective, hccl

    if args.split:
        hccl.set_split_strategy_by_size([float(s) for s in args.split.split(",")])
    rank, size = collective.rank(), collective.size()
    rng = np.random.default_rng(100 + rank)
    x = rng.random((BATCH, SIZES[0]), dtype=np.float32)
    y = np.eye(SIZES[-1], dtype=np.float32)[rng.integers(0, SIZES[-1], BATCH)]
    off, off_opt = engine_step_factory(x, y, False, args.steps_per_loop)
    on, on_opt = engine_step_factory(x, y, True, args.steps_per_loop)
    base = numpy_step_factory(x, y, args.steps_per_loop)
    candidates = [("numpy", base, None), ("off", off, off_opt), ("on", on, on_opt)]
    for _, fn, _ in candidates:   # warm-up (plans compiled, buffers packed)
        fn()
        fn()
    samples = {name: [] for name, _, _ in candidates}
    exposed = {name: [] for name, _, _ in candidates}
    for _ in range(args.reps):
        for name, fn, opt in candidates:
            if opt is not None:
                opt.reset_communication_stats()
            collective.barrier()
            t0 = time.perf_counter()
            for _ in range(args.loops):
                fn()
            dt = time.perf_counter() - t0
            samples[name].append(args.loops * args.steps_per_loop / dt)
            if opt is not None:
                exposed[name].append(opt.communication_stats().exposed_seconds_per_step)
    out = {"workers": size, "threads": os.environ.get("OPENBLAS_NUM_THREADS", "default"),
           "split": args.split or "96.54,3.46"}
    for name in samples:
        out[f"steps_per_s_{name}"] = statistics.median(samples[name])
        if exposed[name]:
            # each rank's own median; every rank waits for the slower one: report the mean
            mine = statistics.median(exposed[name])
            out[f"exposed_ms_{name}"] = 1e3 * float(
                collective.allgather(np.array([mine])).mean())
    if size > 1:
        out.update(update_only(args))
    if rank == 0:
        print("RESULT " + json.dumps(out), flush=True)


# ---------------------------------------------------------------- the parent
def run(workers, threads, args):
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    if threads:
        for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env[k] = str(threads)
    cmd = [sys.executable, "-m", "estimator_npu.distribute.launcher", "-n", str(workers),
           os.path.abspath(__file__), "--worker", "--reps", str(args.reps), "--loops",
           str(args.loops), "--steps-per-loop", str(args.steps_per_loop)]
    if args.split:
        cmd += ["--split", args.split]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    for line in res.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    raise RuntimeError(f"{' '.join(cmd)} failed ({res.returncode}):\n{res.stdout}\n"
                       f"{res.stderr[-3000:]}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--loops", type=int, default=3)
    ap.add_argument("--steps-per-loop", type=int, default=10)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--split", default=None)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args)
    cores = os.cpu_count() or 1
    runs = [(1, args.threads), (1, 1), (2, args.threads or max(1, cores // 2))]
    if args.split is None:
        runs.append((2, max(1, cores // 2), "50,50"))
    rows, updates = [], []
    for spec in runs:
        workers, threads = spec[0], spec[1]
        sub = argparse.Namespace(**vars(args))
        if len(spec) > 2:
            sub.split = spec[2]
        r = run(workers, threads, sub)
        for name, label in (("off", "engine, tailing off"), ("on", "engine, tailing on"),
                            ("numpy", "hand-written numpy")):
            sps = r[f"steps_per_s_{name}"]
            exposed = r.get(f"exposed_ms_{name}")
            rows.append([workers, r["threads"], r["split"], label, f"{sps:.1f}",
                         f"{sps * workers:.1f}",
                         f"{r['steps_per_s_numpy'] / sps:.2f}" if name != "numpy" else "",
                         "" if exposed is None or workers == 1 else f"{exposed:.3f}"])
        if "update_ms_off" in r:
            updates.append([r["split"], f"{r['update_ms_off']:.2f}", f"{r['update_ms_on']:.2f}",
                            f"{r['update_exposed_ms_off']:.3f}",
                            f"{r['update_exposed_ms_on']:.3f}"])
    from _common import print_table
    print_table(rows, ["workers", "BLAS threads", "split %", "step", "steps/s",
                       "batches/s (x128)", "numpy / engine", "exposed comm ms/step"])
    print("\nThe gradient all-reduce and Adam update alone (2 workers, MLP buffers):")
    print_table(updates, ["split %", "ms/step off", "ms/step on", "exposed ms off",
                          "exposed ms on"])


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main())
