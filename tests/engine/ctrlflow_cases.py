"""Control-flow and RNN graphs built the same way under real TF (``tf.compat.v1``) and
estimator_npu, for the golden comparison (``tools/record_ctrlflow_goldens.py`` records TF's
values into ``tests/engine/golden/ctrlflow_tf215.json``; ``test_ctrlflow_golden.py``
compares). Each case is ``build(tf, inputs) -> list of output tensors`` with float32
``inputs`` (placeholders) drawn from a fixed seed; ``run_case`` sets every variable to a
fixed value by name, then records the outputs and the gradients of
``sum_i <outputs_i, cotangent_i>`` with respect to the float inputs and every trainable
variable. No import of either framework here: the module is passed in.
"""
import zlib

import numpy as np

CASES = {}


def case(name, **inputs):
    def register(build):
        CASES[name] = (build, inputs)
        return build
    return register


def _value(rng, spec):
    kind, shape = spec
    if kind == "f":
        return rng.standard_normal(shape).astype(np.float32)
    if kind == "pos":
        return np.abs(rng.standard_normal(shape)).astype(np.float32) + 0.1
    raise ValueError(kind)


def run_case(tf, name):
    """Returns ``{"outputs": [...], "grads": {name: array}, "variables": [names]}``."""
    build, specs = CASES[name]
    rng = np.random.RandomState(zlib.crc32(name.encode()) % (2 ** 31))
    values = {k: _value(rng, s) for k, s in sorted(specs.items())}
    g = tf.Graph()
    with g.as_default():
        phs = {k: tf.placeholder(tf.float32, v.shape, name=k) for k, v in values.items()}
        outs = build(tf, phs)
        feed = {phs[k]: v for k, v in values.items()}
        variables = sorted(tf.global_variables(), key=lambda v: v.name)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for v in variables:
                vr = np.random.RandomState(zlib.crc32(v.name.encode()) % (2 ** 31))
                v.load(vr.uniform(-0.5, 0.5, v.shape.as_list()).astype(np.float32), sess)
            fwd = sess.run(outs, feed)
            cots = [rng.standard_normal(np.shape(o)).astype(np.float32) for o in fwd]
            loss = tf.add_n([tf.reduce_sum(o * tf.constant(c)) for o, c in zip(outs, cots)])
            wrt_names = sorted(values) + [v.name for v in variables if v.trainable]
            wrt = [phs[k] for k in sorted(values)] + [v for v in variables if v.trainable]
            grads = tf.gradients(loss, wrt)
            pairs = [(n, gr) for n, gr in zip(wrt_names, grads) if gr is not None]
            gvals = sess.run([gr for _, gr in pairs], feed)
    return {"outputs": [np.asarray(o, np.float64).tolist() for o in fwd],
            "grads": {n: np.asarray(v, np.float64).tolist() for (n, _), v in zip(pairs, gvals)},
            "variables": [v.name for v in variables]}


# ------------------------------------------------------------------ control flow
@case("cond_structured", x=("f", [3, 4]), y=("f", [3, 4]))
def _cond(tf, p):
    x, y = p["x"], p["y"]
    pred = tf.reduce_sum(x) > tf.reduce_sum(y)
    a, (b, c) = tf.cond(pred, lambda: (x * y, (tf.sin(x), y)),
                        lambda: (x + y, (tf.tanh(y), x * 2.0)))
    nested = tf.cond(tf.reduce_mean(x) > 0.0,
                     lambda: tf.cond(tf.reduce_mean(y) > 0.0, lambda: x * 3.0, lambda: y - x),
                     lambda: tf.exp(x * 0.1))
    return [a, b * c, nested]


@case("case_exclusive", x=("f", [5]))
def _case(tf, p):
    x = p["x"]
    s = tf.reduce_sum(x)
    return [tf.case([(s > 1.0, lambda: x * 2.0), (s < -1.0, lambda: -x)],
                    default=lambda: tf.square(x), exclusive=True),
            tf.case([(tf.reduce_max(x) > 0.0, lambda: tf.sin(x))], default=lambda: x)]


@case("while_loop_max_iter", x=("f", [4]), w=("f", [4]))
def _while(tf, p):
    x, w = p["x"], p["w"]

    def body(i, a, b):
        return i + 1, tf.tanh(a * w + b), b * 0.9
    _, a, b = tf.while_loop(lambda i, a, b: i < 10, body, (tf.constant(0), x, w),
                            maximum_iterations=6)
    n, s = tf.while_loop(lambda n, s: tf.reduce_sum(s) < 10.0,
                         lambda n, s: (n + 1, s * 1.7 + tf.abs(w)), [0, tf.abs(x)])
    return [a, b, s, tf.cast(n, tf.float32)]


@case("map_scan_fold", x=("f", [5, 3]))
def _functional(tf, p):
    x = p["x"]
    m = tf.map_fn(lambda r: tf.sin(r) * r, x)
    m2 = tf.map_fn(lambda t: (t[0] * t[1], t[0] - t[1]), (x, x * 2.0),
                   dtype=(tf.float32, tf.float32))
    sc = tf.scan(lambda a, r: a * 0.5 + r, x)
    scr = tf.scan(lambda a, r: tf.tanh(a + r), x, initializer=tf.zeros([3]), reverse=True)
    fl = tf.foldl(lambda a, r: a * r, x)
    fr = tf.foldr(lambda a, r: a + tf.sin(r), x, initializer=tf.ones([3]))
    return [m, m2[0], m2[1], sc, scr, fl, fr]


@case("tensor_array", x=("f", [4, 3]))
def _tensor_array(tf, p):
    x = p["x"]
    ta = tf.TensorArray(tf.float32, size=4).unstack(x)
    out = tf.TensorArray(tf.float32, size=0, dynamic_size=True, clear_after_read=False)

    def body(i, out):
        return i + 1, out.write(i, ta.read(i) * tf.cast(i + 1, tf.float32))
    _, out = tf.while_loop(lambda i, out: i < 4, body, [0, out])
    sc = tf.TensorArray(tf.float32, size=3).scatter([2, 0, 1], x[:3] * 2.0)
    sp = tf.TensorArray(tf.float32, size=2).split(tf.reshape(x, [12]), [6, 6])
    return [out.stack(), out.gather([3, 1]), sc.stack(), sp.concat(), tf.cast(out.size(),
                                                                              tf.float32)]


@case("batch_norm_is_training", x=("f", [6, 4]))
def _batch_norm(tf, p):
    x = p["x"]
    outs = []
    for training in (True, False):
        with tf.variable_scope(f"bn_{training}"):
            mm = tf.get_variable("moving_mean", [4], initializer=tf.zeros_initializer(),
                                 trainable=False)
            mv = tf.get_variable("moving_variance", [4], initializer=tf.ones_initializer(),
                                 trainable=False)
            gamma = tf.get_variable("gamma", [4], initializer=tf.ones_initializer())
            beta = tf.get_variable("beta", [4], initializer=tf.zeros_initializer())
            is_training = tf.constant(training)
            mean, var = tf.cond(is_training, lambda: tf.nn.moments(x, [0]),
                                lambda: (tf.identity(mm), tf.abs(mv) + 0.5))
            outs.append(tf.nn.batch_normalization(x, mean, var, beta, gamma, 1e-3))
    return outs


# ------------------------------------------------------------------ recurrent networks
def _rnn_outputs(tf, out, state):
    return [out] + [s for s in tf.nest.flatten(state)] if hasattr(tf, "nest") else \
        [out] + _flatten(state)


def _flatten(state):
    if isinstance(state, (list, tuple)):
        return [t for s in state for t in _flatten(s)]
    return [state]


@case("dynamic_rnn_basic_lstm_seq_len", x=("f", [3, 5, 4]))
def _basic_lstm(tf, p):
    cell = tf.nn.rnn_cell.BasicLSTMCell(6)
    out, state = tf.nn.dynamic_rnn(cell, p["x"], sequence_length=[5, 2, 4], dtype=tf.float32)
    return [out] + _flatten(state)


@case("dynamic_rnn_lstm_peephole_proj_clip", x=("f", [2, 4, 3]))
def _lstm(tf, p):
    cell = tf.nn.rnn_cell.LSTMCell(5, use_peepholes=True, cell_clip=0.3, num_proj=3)
    out, state = tf.nn.dynamic_rnn(cell, p["x"], dtype=tf.float32)
    return [out] + _flatten(state)


@case("dynamic_rnn_plain_lstm_cells", x=("f", [3, 4, 2]))
def _plain_lstm(tf, p):
    cell = tf.nn.rnn_cell.MultiRNNCell([
        tf.nn.rnn_cell.LSTMCell(4, forget_bias=0.5),
        tf.nn.rnn_cell.BasicLSTMCell(3, state_is_tuple=False)])
    out, state = tf.nn.dynamic_rnn(cell, p["x"], sequence_length=[4, 3, 1], dtype=tf.float32)
    return [out] + _flatten(state)


@case("dynamic_rnn_gru_time_major", x=("f", [4, 3, 2]), h=("f", [3, 5]))
def _gru(tf, p):
    out, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(5), p["x"], initial_state=p["h"],
                                   time_major=True)
    return [out, state]


@case("multi_rnn_cell", x=("f", [2, 3, 4]))
def _multi(tf, p):
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(4),
                                        tf.nn.rnn_cell.GRUCell(3),
                                        tf.nn.rnn_cell.BasicRNNCell(2)])
    out, state = tf.nn.dynamic_rnn(cell, p["x"], dtype=tf.float32)
    return [out] + _flatten(state)


@case("residual_wrapper", x=("f", [2, 3, 4]))
def _residual(tf, p):
    cell = tf.nn.rnn_cell.ResidualWrapper(tf.nn.rnn_cell.BasicLSTMCell(4))
    out, state = tf.nn.dynamic_rnn(cell, p["x"], dtype=tf.float32)
    return [out] + _flatten(state)


@case("bidirectional_dynamic_rnn", x=("f", [3, 4, 2]))
def _bidi(tf, p):
    (fw, bw), (sf, sb) = tf.nn.bidirectional_dynamic_rnn(
        tf.nn.rnn_cell.BasicLSTMCell(3), tf.nn.rnn_cell.GRUCell(2), p["x"],
        sequence_length=[4, 1, 3], dtype=tf.float32)
    return [fw, bw] + _flatten(sf) + [sb]


@case("static_rnn", x=("f", [2, 3, 4]))
def _static(tf, p):
    steps = [p["x"][:, t, :] for t in range(3)]
    outs, state = tf.nn.static_rnn(tf.nn.rnn_cell.BasicLSTMCell(3), steps, dtype=tf.float32,
                                   sequence_length=[3, 2])
    return outs + _flatten(state)


def lstm_classifier_adam(tf, steps=10):
    """10 Adam steps of an LSTM classifier on a fixed batch: losses and final weights."""
    rng = np.random.RandomState(7)
    xv = rng.standard_normal((8, 6, 4)).astype(np.float32)
    yv = (np.arange(8) % 3).astype(np.int32)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 6, 4], name="x")
        y = tf.placeholder(tf.int32, [None], name="y")
        out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(5), x, dtype=tf.float32)
        w = tf.get_variable("dense/kernel", [5, 3])
        b = tf.get_variable("dense/bias", [3], initializer=tf.zeros_initializer())
        logits = tf.matmul(out[:, -1, :], w) + b
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                              logits=logits))
        train = tf.train.AdamOptimizer(0.05).minimize(loss)
        trainable = sorted(tf.trainable_variables(), key=lambda v: v.name)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for v in trainable:
                vr = np.random.RandomState(zlib.crc32(v.name.encode()) % (2 ** 31))
                v.load(vr.uniform(-0.5, 0.5, v.shape.as_list()).astype(np.float32), sess)
            losses = [float(sess.run([loss, train], {x: xv, y: yv})[0]) for _ in range(steps)]
            final = {v.name: np.asarray(sess.run(v), np.float64).tolist() for v in trainable}
    return {"losses": losses, "weights": final}
