"""Cases shared by ``tools/record_tf_duplicate_vars.py`` (real TF writes
``duplicate_vars_golden.json``) and ``test_duplicate_var_list.py``: a variable listed twice
in ``var_list`` (or twice in ``grads_and_vars``), which TF 1.x accepts and updates once per
listing. Each ``build(tf)`` returns ``(train_op, [tensors to record], info)``; the runner
initialises, runs ``train_op`` STEPS times and records the tensors after each step, plus
``info`` (what ``compute_gradients`` returned, the optimizer's variable names)."""
import numpy as np

STEPS = 4
R = np.random.RandomState(5)
W0 = R.normal(0, 1, (3, 2)).astype(np.float32)
B0 = np.array([0.5, -0.25], np.float32)
X = R.normal(0, 1, (4, 3)).astype(np.float32)
Y = R.normal(0, 1, (4, 2)).astype(np.float32)
EMB0 = R.normal(0, 1, (5, 2)).astype(np.float32)
IDS = np.array([0, 3, 3, 1], np.int32)
CASES = {}


def _problem(tf, dtype):
    w = tf.Variable(W0.astype(dtype), name="w")
    b = tf.Variable(B0.astype(dtype), name="b")
    pred = tf.matmul(tf.constant(X.astype(dtype)), w) + b
    loss = tf.reduce_mean(tf.square(pred - Y.astype(dtype)))
    gs = tf.train.get_or_create_global_step()
    return w, b, loss, gs


def _info(tf, gv, opt):
    """What compute_gradients returned, and the variables apply_gradients made."""
    names = [v.op.name for _, v in gv]
    same = [gv[i][0] is gv[j][0] for i in range(len(gv)) for j in range(i + 1, len(gv))
            if gv[i][1] is gv[j][1]]
    made = sorted(v.op.name for v in tf.global_variables())
    return {"pairs": names, "duplicate_grads_identical": same, "variables": made,
            "slot_names": sorted(opt.get_slot_names())}


def _minimize_case(make):
    def build(tf, dtype=np.float32):
        w, b, loss, gs = _problem(tf, dtype)
        opt = make(tf)
        gv = opt.compute_gradients(loss, var_list=[w, b, b])
        train = opt.apply_gradients(gv, global_step=gs)
        slots = [opt.get_slot(v, n) for v in (w, b) for n in sorted(opt.get_slot_names())]
        return train, [w, b, gs] + slots, _info(tf, gv, opt)
    return build


CASES["sgd"] = _minimize_case(lambda tf: tf.train.GradientDescentOptimizer(0.1))
CASES["momentum"] = _minimize_case(lambda tf: tf.train.MomentumOptimizer(0.1, 0.9))
CASES["adagrad"] = _minimize_case(lambda tf: tf.train.AdagradOptimizer(0.3))
CASES["adam"] = _minimize_case(lambda tf: tf.train.AdamOptimizer(0.05))
CASES["rmsprop"] = _minimize_case(lambda tf: tf.train.RMSPropOptimizer(0.01))
CASES["rmsprop_momentum_centered"] = _minimize_case(
    lambda tf: tf.train.RMSPropOptimizer(0.01, momentum=0.5, centered=True))


def _two_grads_case(make):
    """apply_gradients([(g, w), (g1, b), (g2, b)]) with different gradients for b. Only for
    GradientDescent, whose updates commute: TF runs the update kernels of one variable
    one after the other but in no fixed order (Adam with three different gradients of
    one variable gave three different orders in 30 runs of TF 2.15)."""
    def build(tf, dtype=np.float32):
        w, b, loss, gs = _problem(tf, dtype)
        opt = make(tf)
        gw, gb = tf.gradients(loss, [w, b])
        gv = [(gw, w), (gb, b), (gb * 3.0 - 0.5, b)]
        train = opt.apply_gradients(gv, global_step=gs)
        slots = [opt.get_slot(b, n) for n in sorted(opt.get_slot_names())]
        return train, [w, b, gs] + slots, _info(tf, gv, opt)
    return build


CASES["sgd_two_grads"] = _two_grads_case(lambda tf: tf.train.GradientDescentOptimizer(0.1))


def _minimize_three_times(tf, dtype=np.float32):
    w, b, loss, gs = _problem(tf, dtype)
    opt = tf.train.RMSPropOptimizer(0.01)
    train = opt.minimize(loss, var_list=[b, w, b, b], global_step=gs)
    gv = opt.compute_gradients(loss, var_list=[b, w, b, b])
    return train, [w, b, gs, opt.get_slot(b, "rms")], _info(tf, gv, opt)


CASES["rmsprop_minimize_three_times"] = _minimize_three_times


def _sgd_gather(tf, dtype=np.float32):
    """A gathered (sparse, IndexedSlices in TF) gradient of a table listed twice."""
    emb = tf.Variable(EMB0.astype(dtype), name="emb")
    rows = tf.gather(emb, tf.constant(IDS))
    loss = tf.reduce_sum(tf.square(rows - 1.0))
    opt = tf.train.GradientDescentOptimizer(0.1)
    gv = opt.compute_gradients(loss, var_list=[emb, emb])
    return opt.apply_gradients(gv), [emb], _info(tf, gv, opt)


CASES["sgd_gather"] = _sgd_gather


def run(tf, build, dtype=np.float32):
    g = tf.Graph()
    with g.as_default():
        train, tensors, info = build(tf, dtype)
        out = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(STEPS):
                sess.run(train)
                out.append([np.asarray(v).tolist() for v in sess.run(tensors)])
    return {"steps": out, "info": info}
