"""Cases shared by ``tools/record_tf_duplicate_vars.py`` (real TF writes
``duplicate_vars_tf215.json``) and ``test_duplicate_vars.py``: a variable listed more
than once in ``var_list`` / ``grads_and_vars``. TF 1.x accepts it and applies one update
per listed pair (wiseodd's DualGAN lists ``G1_b2`` twice in ``theta_G1``), while the
shared scalars (Adam's ``beta1_power``) and the global step advance once per run. Each
``build(tf)`` returns ``(train_op, [tensors to record])``; the runner initialises, runs
``train_op`` STEPS times and records the tensors after each step."""
import numpy as np

STEPS = 3
X = np.array([[1., 2., 3.], [0.5, -1., 2.]], np.float32)
W0 = np.array([1.0, -2.0, 0.5], np.float32)
CASES = {}


def _problem(tf):
    w = tf.Variable(W0, name="w")
    b = tf.Variable(np.float32(0.3), name="b")
    pred = tf.matmul(tf.constant(X), tf.reshape(w, [3, 1])) + b
    loss = tf.reduce_sum(tf.square(pred - 1.0))
    return w, b, loss, tf.train.get_or_create_global_step()


def _var_list_case(make):
    """minimize(var_list=[w, b, w]): the same gradient applied twice to w."""
    def build(tf):
        w, b, loss, gs = _problem(tf)
        opt = make(tf)
        train = opt.minimize(loss, global_step=gs, var_list=[w, b, w])
        slots = [opt.get_slot(w, n) for n in sorted(opt.get_slot_names())]
        return train, [w, b, gs] + slots
    return build


def _two_grads_case(make):
    """apply_gradients([(g, w), (2 g, w), (g_b, b)]): two different gradients for w."""
    def build(tf):
        w, b, loss, gs = _problem(tf)
        opt = make(tf)
        gw, gb = tf.gradients(loss, [w, b])
        train = opt.apply_gradients([(gw, w), (2.0 * gw, w), (gb, b)], global_step=gs)
        return train, [w, b, gs]
    return build


CASES["sgd_var_list"] = _var_list_case(lambda tf: tf.train.GradientDescentOptimizer(0.01))
CASES["momentum_var_list"] = _var_list_case(lambda tf: tf.train.MomentumOptimizer(0.01, 0.9))
CASES["adam_var_list"] = _var_list_case(lambda tf: tf.train.AdamOptimizer(0.1))
CASES["rmsprop_var_list"] = _var_list_case(lambda tf: tf.train.RMSPropOptimizer(0.01))
CASES["sgd_two_grads"] = _two_grads_case(lambda tf: tf.train.GradientDescentOptimizer(0.01))
CASES["adam_two_grads"] = _two_grads_case(lambda tf: tf.train.AdamOptimizer(0.1))


def _adam_powers_case(tf):
    w, b, loss, gs = _problem(tf)
    opt = tf.train.AdamOptimizer(0.1)
    train = opt.minimize(loss, global_step=gs, var_list=[w, w, b, w])
    beta1_power, beta2_power = opt._get_beta_accumulators()
    return train, [w, b, gs, beta1_power, beta2_power]


CASES["adam_beta_powers_advance_once"] = _adam_powers_case


def run(tf, build):
    g = tf.Graph()
    with g.as_default():
        train, tensors = build(tf)
        out = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(STEPS):
                sess.run(train)
                out.append([np.asarray(v).tolist() for v in sess.run(tensors)])
    return out
