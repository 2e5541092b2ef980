"""Control flow: µs per iteration of a 1,000-iteration ``while_loop`` with a scalar body
(target <= 5 µs), and training steps/s of ``dynamic_rnn`` with a 128-unit BasicLSTMCell
over 28 steps at batch 64 (28 inputs per step, softmax over 10 classes, plain SGD) against
a hand-written numpy LSTM forward + backward + update of the same model, timed
alternately in this process (target >= 0.8x).

Both sides run with one BLAS thread (``OPENBLAS_NUM_THREADS=1`` unless set: on a shared
2-core machine a 2-thread BLAS mostly waits for the busy core) and each figure is the
fastest of several alternating repetitions (the least disturbed by other processes), in
wall-clock time and again in process CPU time (which a busy machine does not inflate).

Run: ``python bench/control_flow.py`` (``--quick`` for fewer repetitions).
"""
import os
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import estimator_npu as tf  # noqa: E402
from _common import print_table  # noqa: E402


def alternate_min(candidates, n, reps, clock=time.perf_counter):
    """Fastest seconds per call of each ``(name, fn)`` over ``reps`` alternating rounds."""
    best = {name: float("inf") for name, _ in candidates}
    for _ in range(reps):
        for name, fn in candidates:
            t0 = clock()
            for _ in range(n):
                fn()
            best[name] = min(best[name], (clock() - t0) / n)
    return best

T, B, D, H, C = 28, 64, 28, 128, 10
LR = np.float32(0.1)


def while_loop_us(iterations=1000, reps=9):
    g = tf.Graph()
    with g.as_default():
        n = tf.placeholder(tf.int32, [])
        i, acc = tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a * 0.5 + 1.0),
                               [tf.constant(0), tf.constant(0.0)])
        sess = tf.Session()
        run = sess.make_callable(acc, [n])
        run(iterations)
        times = alternate_min([("loop", lambda: run(iterations)),
                               ("empty", lambda: run(0))], 3, reps=reps)
        t, t0 = times["loop"], times["empty"]
        sess.close()
    return (t - t0) / iterations * 1e6, t * 1e6


def _data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((B, T, D)).astype(np.float32)
    y = rng.integers(0, C, B).astype(np.int32)
    return x, y


def _init(seed=1):
    rng = np.random.default_rng(seed)
    return {"kernel": (rng.uniform(-1, 1, (D + H, 4 * H)) * np.sqrt(6 / (D + 5 * H)))
            .astype(np.float32), "bias": np.zeros(4 * H, np.float32),
            "w": (rng.standard_normal((H, C)) * 0.1).astype(np.float32),
            "b": np.zeros(C, np.float32)}


def engine_step_factory(x, y, params):
    g = tf.Graph()
    with g.as_default():
        xs = tf.placeholder(tf.float32, [B, T, D])
        ys = tf.placeholder(tf.int32, [B])
        out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(H), xs, dtype=tf.float32)
        w = tf.get_variable("w", [H, C])
        b = tf.get_variable("b", [C], initializer=tf.zeros_initializer())
        logits = tf.matmul(out[:, -1, :], w) + b
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=ys,
                                                                              logits=logits))
        train = tf.train.GradientDescentOptimizer(float(LR)).minimize(loss)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        by_name = {v.op.name.rsplit("/", 1)[-1]: v for v in tf.global_variables()}
        for k, v in params.items():
            by_name[k].load(v, sess)
        step = sess.make_callable([loss, train], [xs, ys])
    return lambda: step(x, y), sess


def _sigmoid(z):
    return 0.5 * np.tanh(0.5 * z) + 0.5


def numpy_step_factory(x, y, params):
    """The same model and update, hand-written in numpy: forward over time keeping the
    gates, backward through time, SGD."""
    p = {k: v.copy() for k, v in params.items()}
    xt = np.ascontiguousarray(x.transpose(1, 0, 2))
    onehot = np.eye(C, dtype=np.float32)[y]

    def step():
        kernel, bias = p["kernel"], p["bias"]
        h = np.zeros((B, H), np.float32)
        c = np.zeros((B, H), np.float32)
        cache = []
        for t in range(T):
            xh = np.concatenate([xt[t], h], 1)
            z = xh @ kernel + bias
            i = _sigmoid(z[:, :H])
            j = np.tanh(z[:, H:2 * H])
            f = _sigmoid(z[:, 2 * H:3 * H] + 1.0)
            o = _sigmoid(z[:, 3 * H:])
            c_prev = c
            c = c * f + i * j
            tc = np.tanh(c)
            h = tc * o
            cache.append((xh, i, j, f, o, c_prev, tc))
        logits = h @ p["w"] + p["b"]
        logits -= logits.max(1, keepdims=True)
        e = np.exp(logits)
        prob = e / e.sum(1, keepdims=True)
        loss = -np.mean(np.log(prob[np.arange(B), y]))
        dlogits = (prob - onehot) / B
        dw = h.T @ dlogits
        db = dlogits.sum(0)
        dh = dlogits @ p["w"].T
        dc = np.zeros_like(c)
        dkernel = np.zeros_like(kernel)
        dbias = np.zeros_like(bias)
        for t in reversed(range(T)):
            xh, i, j, f, o, c_prev, tc = cache[t]
            do = dh * tc
            dc = dc + dh * o * (1 - tc * tc)
            di = dc * j
            dj = dc * i
            df = dc * c_prev
            dz = np.concatenate([di * i * (1 - i), dj * (1 - j * j), df * f * (1 - f),
                                 do * o * (1 - o)], 1)
            dc = dc * f
            dkernel += xh.T @ dz
            dbias += dz.sum(0)
            dh = (dz @ kernel.T)[:, D:]
        p["kernel"] -= LR * dkernel
        p["bias"] -= LR * dbias
        p["w"] -= LR * dw
        p["b"] -= LR * db
        return loss
    return step


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    reps = 3 if "--quick" in argv else 9
    per_iter, total = while_loop_us(reps=reps)
    x, y = _data()
    params = _init()
    engine, sess = engine_step_factory(x, y, params)
    numpy_step = numpy_step_factory(x, y, params)
    l_engine = engine()[0]
    l_numpy = numpy_step()
    times = alternate_min([("engine", engine), ("numpy", numpy_step)], 2, reps=reps)
    # The same in process CPU time: other processes of a busy machine do not inflate it.
    cpu = alternate_min([("engine", engine), ("numpy", numpy_step)], 2, reps=reps,
                        clock=time.process_time)
    sess.close()
    ratio = times["numpy"] / times["engine"]
    cpu_ratio = cpu["numpy"] / cpu["engine"]
    print_table([
        ["while_loop, scalar body", f"{per_iter:.2f} µs / iteration",
         f"{total:.0f} µs per 1,000-iteration run", "<= 5 µs"],
        ["dynamic_rnn LSTM-128 x 28 steps, batch 64 (train step)",
         f"{times['engine'] * 1e3:.1f} ms", f"numpy {times['numpy'] * 1e3:.1f} ms",
         f"{ratio:.2f}x numpy (>= 0.8x)"],
        ["  the same, process CPU time", f"{cpu['engine'] * 1e3:.1f} ms",
         f"numpy {cpu['numpy'] * 1e3:.1f} ms", f"{cpu_ratio:.2f}x numpy (>= 0.8x)"],
    ], ["benchmark", "estimator_npu", "reference", "target"])
    print(f"load average: {os.getloadavg()[0]:.2f}")
    print(f"first-step losses: engine {l_engine:.6f}, numpy {l_numpy:.6f}")
    return per_iter, ratio


if __name__ == "__main__":
    main()
