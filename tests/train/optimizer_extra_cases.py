"""Cases shared by ``tools/record_tf_optimizers.py`` (real TF writes
``optimizers_extra_golden.json``) and ``test_optimizers_extra.py``: each ``build(tf)``
returns ``(train_op, [tensors to record])``; the runner initialises, then runs ``train_op``
STEPS times and records the tensors after each step."""
import numpy as np

STEPS = 5
R = np.random.RandomState(11)
W0 = R.normal(0, 1, (3, 2)).astype(np.float32)
X = R.normal(0, 1, (4, 3)).astype(np.float32)
Y = R.normal(0, 1, (4, 2)).astype(np.float32)
CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def _problem(tf, dtype):
    w = tf.Variable(W0.astype(dtype), name="w")
    b = tf.Variable(np.array([0.5, -0.25], dtype), name="b")
    pred = tf.matmul(tf.constant(X.astype(dtype)), w) + b
    loss = tf.reduce_mean(tf.square(pred - Y.astype(dtype)))
    gs = tf.train.get_or_create_global_step()
    return w, b, loss, gs


def _opt_case(make):
    def build(tf, dtype=np.float32):
        w, b, loss, gs = _problem(tf, dtype)
        opt = make(tf)
        train = opt.minimize(loss, global_step=gs)
        slots = [opt.get_slot(w, n) for n in sorted(opt.get_slot_names())]
        return train, [w, b] + slots
    return build


CASES["adadelta"] = _opt_case(lambda tf: tf.train.AdadeltaOptimizer(0.5))
CASES["adadelta_rho"] = _opt_case(lambda tf: tf.train.AdadeltaOptimizer(1.0, rho=0.8,
                                                                       epsilon=1e-4))
CASES["proximal_adagrad"] = _opt_case(lambda tf: tf.train.ProximalAdagradOptimizer(0.3))
CASES["proximal_adagrad_l1_l2"] = _opt_case(lambda tf: tf.train.ProximalAdagradOptimizer(
    0.3, initial_accumulator_value=0.5, l1_regularization_strength=0.05,
    l2_regularization_strength=0.1))
CASES["proximal_gd"] = _opt_case(lambda tf: tf.train.ProximalGradientDescentOptimizer(0.3))
CASES["proximal_gd_l1_l2"] = _opt_case(lambda tf: tf.train.ProximalGradientDescentOptimizer(
    0.3, l1_regularization_strength=0.05, l2_regularization_strength=0.1))
CASES["ftrl"] = _opt_case(lambda tf: tf.train.FtrlOptimizer(0.2))
CASES["ftrl_l1_l2"] = _opt_case(lambda tf: tf.train.FtrlOptimizer(
    0.2, l1_regularization_strength=0.01, l2_regularization_strength=0.05))
CASES["ftrl_power_shrinkage"] = _opt_case(lambda tf: tf.train.FtrlOptimizer(
    0.2, learning_rate_power=-0.7, initial_accumulator_value=0.2,
    l1_regularization_strength=0.02, l2_regularization_strength=0.01,
    l2_shrinkage_regularization_strength=0.03))


@case
def ema(tf, dtype=np.float32):
    w, b, loss, gs = _problem(tf, dtype)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
    ema_ = tf.train.ExponentialMovingAverage(0.9)
    ema_n = tf.train.ExponentialMovingAverage(0.99, num_updates=gs, name="EMAn")
    with tf.control_dependencies([train]):
        op = tf.group(ema_.apply([w, b]), ema_n.apply([w]))
    names = sorted(ema_.variables_to_restore())
    assert names == ["b/ExponentialMovingAverage", "global_step", "w/EMAn",
                     "w/ExponentialMovingAverage"], names
    return op, [w, ema_.average(w), ema_.average(b), ema_n.average(w)]


@case
def schedules(tf, dtype=np.float32):
    gs = tf.train.get_or_create_global_step()
    step = tf.assign_add(gs, 3)
    lrs = [tf.train.cosine_decay_restarts(0.1, gs, 4),
           tf.train.cosine_decay_restarts(0.1, gs, 5, t_mul=1.0, m_mul=0.5, alpha=0.1),
           tf.train.cosine_decay_restarts(0.1, gs, 3, t_mul=1.5, m_mul=0.8),
           tf.train.cosine_decay(0.1, gs, 10, alpha=0.2),
           tf.train.linear_cosine_decay(0.1, gs, 12),
           tf.train.linear_cosine_decay(0.1, gs, 12, num_periods=2.0, alpha=0.1, beta=0.01)]
    return step, lrs


def run(tf, build, dtype=np.float32):
    g = tf.Graph()
    with g.as_default():
        train, tensors = build(tf, dtype)
        out = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(STEPS):
                sess.run(train)
                out.append([np.asarray(v).tolist() for v in sess.run(tensors)])
    return out
