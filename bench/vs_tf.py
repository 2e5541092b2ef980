"""estimator_npu against TensorFlow itself: the same TF1 scripts under both, alternately.

Five workloads, each written once against the TF1 API (``tf`` is ``estimator_npu`` or
``tensorflow.compat.v1``; nothing else differs):

* ``softmax``: softmax regression 784->10, ``sess.run`` + ``feed_dict``, SGD, batch 100;
* ``mlp``: MLP 784-512-512-10 (ReLU), Estimator, Adam, batch 128, pre-batched input;
* ``mlp_pipeline``: the same MLP on Fashion-MNIST's 60,000 training rows through
  ``from_tensor_slices((x, y)).shuffle(10000).repeat().batch(128)`` (synthetic rows of the
  same shape when ``/usr/share/datasets/fashion-mnist`` is absent);
* ``lenet``: LeNet-5 with ``tf.layers`` (conv 5x5x6 same, pool, conv 5x5x16 valid, pool,
  120, 84, 10), Estimator, momentum 0.9, batch 64;
* ``cnn``: the TF layers-tutorial CNN (conv 5x5x32 same, pool, conv 5x5x64 same, pool,
  dense 1024, dense 10), Estimator, SGD, batch 100.

Each measurement is a child process (``--child``) that builds the workload, runs it and
prints steps/s as JSON; Estimator workloads are timed between hook calls after a warm-up
(graph building, session creation and TF's embedding of the input arrays are excluded).
The parent alternates the two frameworks ``--reps`` times per workload and prints medians:

    python bench/vs_tf.py --tf-python /tmp/tf215/bin/python [--reps 3] [--json out.json]
    python bench/vs_tf.py --only cnn,lenet        # ours only when --tf-python is not given

TensorFlow is never imported by estimator_npu or its tests: it runs only in the child
started with the ``--tf-python`` interpreter (a separate venv).
"""
import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FASHION = "/usr/share/datasets/fashion-mnist"
WORKLOADS = ("softmax", "mlp", "mlp_pipeline", "lenet", "cnn")
# steps timed (after the warm-up steps) per child, ours / TF differ only in wall time
STEPS = {"softmax": 3000, "mlp": 300, "mlp_pipeline": 300, "lenet": 400, "cnn": 40}
WARMUP = {"softmax": 200, "mlp": 20, "mlp_pipeline": 20, "lenet": 20, "cnn": 5}


# ---------------------------------------------------------------- the child: one workload
def import_tf(backend):
    if backend == "tf":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow.compat.v1 as tf
        tf.disable_v2_behavior()
        tf.logging.set_verbosity(tf.logging.ERROR)
        return tf
    sys.path.insert(0, os.environ.get("VS_TF_ESTIMATOR_ROOT") or ROOT)
    import estimator_npu as tf
    return tf


def batches(n, batch, seed=0):
    rng = np.random.default_rng(seed)
    xs = rng.random((n, batch, 784), dtype=np.float32)
    ys = rng.integers(0, 10, (n, batch)).astype(np.int32)
    return xs, ys


def fashion_rows():
    """Fashion-MNIST's 60,000 training images (float32 in [0, 1]) and int32 labels."""
    try:
        with gzip.open(os.path.join(FASHION, "train-images-idx3-ubyte.gz")) as f:
            x = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784)
        with gzip.open(os.path.join(FASHION, "train-labels-idx1-ubyte.gz")) as f:
            y = np.frombuffer(f.read(), np.uint8, offset=8)
        return (x / np.float32(255)).astype(np.float32), y.astype(np.int32), "fashion-mnist"
    except OSError:
        xs, ys = batches(1, 60000, seed=1)
        return xs[0], ys[0], "synthetic"


def run_softmax(tf):
    xs, ys = batches(100, 100)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 784])
        y = tf.placeholder(tf.int32, [None])
        w = tf.Variable(tf.zeros([784, 10]))
        b = tf.Variable(tf.zeros([10]))
        logits = tf.matmul(x, w) + b
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                              logits=logits))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for i in range(WARMUP["softmax"]):
                sess.run(train, feed_dict={x: xs[i % 100], y: ys[i % 100]})
            n = STEPS["softmax"]
            t0 = time.perf_counter()
            for i in range(n):
                sess.run(train, feed_dict={x: xs[i % 100], y: ys[i % 100]})
            return n / (time.perf_counter() - t0)


def mlp_net(tf, x):
    net = tf.layers.dense(x, 512, activation=tf.nn.relu)
    net = tf.layers.dense(net, 512, activation=tf.nn.relu)
    return tf.layers.dense(net, 10)


def lenet_net(tf, x):
    net = tf.reshape(x, [-1, 28, 28, 1])
    net = tf.layers.conv2d(net, 6, 5, padding="same", activation=tf.nn.relu)
    net = tf.layers.max_pooling2d(net, 2, 2)
    net = tf.layers.conv2d(net, 16, 5, padding="valid", activation=tf.nn.relu)
    net = tf.layers.max_pooling2d(net, 2, 2)
    net = tf.layers.flatten(net)
    net = tf.layers.dense(net, 120, activation=tf.nn.relu)
    net = tf.layers.dense(net, 84, activation=tf.nn.relu)
    return tf.layers.dense(net, 10)


def cnn_net(tf, x):
    net = tf.reshape(x, [-1, 28, 28, 1])
    net = tf.layers.conv2d(net, 32, 5, padding="same", activation=tf.nn.relu)
    net = tf.layers.max_pooling2d(net, 2, 2)
    net = tf.layers.conv2d(net, 64, 5, padding="same", activation=tf.nn.relu)
    net = tf.layers.max_pooling2d(net, 2, 2)
    net = tf.reshape(net, [-1, 7 * 7 * 64])
    net = tf.layers.dense(net, 1024, activation=tf.nn.relu)
    return tf.layers.dense(net, 10)


ESTIMATOR = {  # workload: (network, optimizer, batch)
    "mlp": (mlp_net, lambda tf: tf.train.AdamOptimizer(1e-3), 128),
    "mlp_pipeline": (mlp_net, lambda tf: tf.train.AdamOptimizer(1e-3), 128),
    "lenet": (lenet_net, lambda tf: tf.train.MomentumOptimizer(0.01, 0.9), 64),
    "cnn": (cnn_net, lambda tf: tf.train.GradientDescentOptimizer(0.001), 100),
}


def run_estimator(tf, name):
    net, make_opt, batch = ESTIMATOR[name]

    def model_fn(features, labels, mode):
        logits = net(tf, features)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits))
        train_op = make_opt(tf).minimize(loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    info = {}
    if name == "mlp_pipeline":
        x, y, info["data"] = fashion_rows()

        def input_fn():
            return tf.data.Dataset.from_tensor_slices((x, y)).shuffle(10000).repeat() \
                .batch(batch)
    else:
        xs, ys = batches(100, batch)

        def input_fn():
            return tf.data.Dataset.from_tensor_slices((xs, ys)).repeat()

    times = []

    class RateHook(tf.train.SessionRunHook):
        def after_run(self, run_context, run_values):
            times.append(time.perf_counter())

    warm, n = WARMUP[name], STEPS[name]
    with tempfile.TemporaryDirectory() as model_dir:
        est = tf.estimator.Estimator(model_fn, model_dir=model_dir,
                                     config=tf.estimator.RunConfig(tf_random_seed=0))
        est.train(input_fn, steps=warm + n, hooks=[RateHook()])
    steady = times[warm:]
    return (len(steady) - 1) / (steady[-1] - steady[0]), info


def child(backend, name):
    tf = import_tf(backend)
    if name == "softmax":
        rate, info = run_softmax(tf), {}
    else:
        rate, info = run_estimator(tf, name)
    if backend != "tf":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from _common import blas_kernels
        info["blas"] = blas_kernels()
    print(json.dumps(dict(info, backend=backend, workload=name, steps_per_s=rate)))


# ---------------------------------------------------------------- the parent: alternation
def measure(python, backend, name, root=ROOT):
    env = dict(os.environ, PYTHONPATH=root, ASCEND_GLOBAL_LOG_LEVEL="3",
               VS_TF_ESTIMATOR_ROOT=root)
    proc = subprocess.run([python, os.path.abspath(__file__), "--child", name,
                           "--backend", "tf" if backend == "tf" else "ours"], cwd=root,
                          env=env, capture_output=True, text=True, timeout=1800)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"{backend} {name} failed:\n{proc.stderr[-3000:]}")
    return json.loads(lines[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tf-python", help="python of a venv with tensorflow 2.15 installed")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", help="comma-separated workloads (default: all five)")
    ap.add_argument("--json", help="write the samples and medians here")
    ap.add_argument("--before", help="another estimator_npu checkout (e.g. the previous "
                    "commit) timed alternately too, as column 'before'")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--backend", default="ours", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        return child(a.backend, a.child)
    names = a.only.split(",") if a.only else list(WORKLOADS)
    backends = [("ours", sys.executable)] + ([("tf", a.tf_python)] if a.tf_python else [])
    if a.before:
        backends.append(("before", sys.executable))
    roots = {"before": os.path.abspath(a.before) if a.before else None}
    samples = {(n, b): [] for n in names for b, _ in backends}
    data, blas = {}, set()
    for rep in range(a.reps):
        for n in names:
            for b, py in (backends if rep % 2 == 0 else backends[::-1]):
                r = measure(py, b, n, roots.get(b) or ROOT)
                samples[(n, b)].append(r["steps_per_s"])
                data.setdefault(n, r.get("data"))
                if r.get("blas"):
                    blas.add(r["blas"])
                print(f"  rep {rep + 1} {n:13s} {b:5s} {r['steps_per_s']:10.1f} steps/s",
                      flush=True)
    out = {"machine": os.uname().machine, "cpus": len(os.sched_getaffinity(0)),
           "reps": a.reps, "numpy_blas": sorted(blas), "workloads": {}}
    med = {k: statistics.median(v) for k, v in samples.items()}
    print(f"\nsteps/s, medians of {a.reps} alternating runs; numpy's BLAS: "
          f"{', '.join(sorted(blas)) or 'unknown'}; load average at the end: "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    cols = [b for b, _ in backends]
    print(f"{'workload':30s}" + "".join(f"{b:>10s}" for b in cols) +
          (f"{'ours / TF':>11s}" if a.tf_python else "") +
          (f"{'after/before':>13s}" if a.before else ""))
    for n in names:
        label = n + (f" ({data[n]})" if data.get(n) else "")
        line = f"{label:30s}" + "".join(f"{med[(n, b)]:10.1f}" for b in cols)
        if a.tf_python:
            line += f"{med[(n, 'ours')] / med[(n, 'tf')]:10.2f}x"
        if a.before:
            line += f"{med[(n, 'ours')] / med[(n, 'before')]:12.2f}x"
        print(line)
        out["workloads"][n] = {b: samples[(n, b)] for b in cols}
        out["workloads"][n].update({f"{b}_median": med[(n, b)] for b in cols})
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
