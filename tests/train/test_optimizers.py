"""Optimizers against hand-written float64 numpy references (TF1 update rules).

As in TF1, a Python-number hyper-parameter becomes a float32 tensor that is cast to the
variable's dtype, and ``beta1_power``/``beta2_power`` are float32 variables: the float64
references below use ``f32(...)`` for those values (float32 trajectories are checked
bit for bit against real TF in tests/conformance)."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import errors
from estimator_npu.train import apply_op

RTOL = 1e-9


def f32(x):
    """``x`` rounded to float32, as a Python float."""
    return float(np.float32(x))
SHAPES = {"layer/kernel": (3, 4), "layer/bias": (4,), "LayerNorm/gamma": (4,)}


@pytest.fixture(params=["auto", "flat", "per_tensor"])
def graph(request, monkeypatch):
    """A fresh default graph; every test runs with each way of applying the rule."""
    if request.param != "auto":
        forced = request.param == "flat"
        monkeypatch.setattr(apply_op, "use_flat", lambda rule, n, size, need: need or forced)
    g = tf.Graph()
    with g.as_default():
        yield g


def _setup(rng, zero_bias=False):
    init = {n: rng.standard_normal(s) for n, s in SHAPES.items()}
    if zero_bias:
        init["layer/bias"] = np.zeros(SHAPES["layer/bias"])
    variables, grads = {}, {}
    for n, s in SHAPES.items():
        scope, base = n.split("/")
        with tf.variable_scope(scope, reuse=tf.AUTO_REUSE):
            variables[n] = tf.get_variable(base, initializer=tf.constant(init[n], tf.float64),
                                           dtype=tf.float64)
        grads[n] = tf.placeholder(tf.float64, s, name="g_" + base)
    return init, variables, grads


def _run(opt, rng, steps=5, zero_bias=False):
    """Applies ``steps`` random gradients; returns (initial, grad sequence, final, opt)."""
    init, variables, grads = _setup(rng, zero_bias)
    gs = tf.train.get_or_create_global_step()
    train_op = opt.apply_gradients([(grads[n], variables[n]) for n in SHAPES], global_step=gs)
    seq = [{n: rng.standard_normal(s) for n, s in SHAPES.items()} for _ in range(steps)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for g in seq:
            sess.run(train_op, {grads[n]: g[n] for n in SHAPES})
        final = sess.run({n: v for n, v in variables.items()})
        assert sess.run(gs) == steps
    return init, seq, final


def _check(final, expected):
    for n in SHAPES:
        np.testing.assert_allclose(final[n], expected[n], rtol=RTOL, atol=1e-12, err_msg=n)


def test_gradient_descent(graph):
    init, seq, final = _run(tf.train.GradientDescentOptimizer(0.3), np.random.default_rng(0))
    p = {n: init[n].copy() for n in SHAPES}
    for g in seq:
        for n in SHAPES:
            p[n] = p[n] - f32(0.3) * g[n]
    _check(final, p)


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum(graph, nesterov):
    init, seq, final = _run(tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=nesterov),
                            np.random.default_rng(1))
    lr, mu = f32(0.1), f32(0.9)
    p = {n: init[n].copy() for n in SHAPES}
    a = {n: np.zeros_like(init[n]) for n in SHAPES}
    for g in seq:
        for n in SHAPES:
            a[n] = mu * a[n] + g[n]
            p[n] = p[n] - (lr * (g[n] + mu * a[n]) if nesterov else lr * a[n])
    _check(final, p)


def test_adam(graph):
    lr, b1, b2, eps = 0.01, 0.9, 0.999, 1e-8
    opt = tf.train.AdamOptimizer(lr, b1, b2, eps)
    init, seq, final = _run(opt, np.random.default_rng(2), steps=6)
    lr, b1, b2, eps = f32(lr), f32(b1), f32(b2), f32(eps)
    b1p, b2p = np.float32(b1), np.float32(b2)
    p = {n: init[n].copy() for n in SHAPES}
    m = {n: np.zeros_like(init[n]) for n in SHAPES}
    v = {n: np.zeros_like(init[n]) for n in SHAPES}
    for t, g in enumerate(seq, start=1):
        lr_t = lr * np.sqrt(1 - float(b2p)) / (1 - float(b1p))
        b1p, b2p = b1p * np.float32(b1), b2p * np.float32(b2)
        for n in SHAPES:
            m[n] = b1 * m[n] + (1 - b1) * g[n]
            v[n] = b2 * v[n] + (1 - b2) * g[n] ** 2
            p[n] = p[n] - lr_t * m[n] / (np.sqrt(v[n]) + eps)
    _check(final, p)


@pytest.mark.parametrize("centered,momentum", [(False, 0.0), (True, 0.5), (False, 0.9)])
def test_rmsprop(graph, centered, momentum):
    lr, rho, eps = 0.01, 0.9, 1e-10
    init, seq, final = _run(tf.train.RMSPropOptimizer(lr, rho, momentum, eps,
                                                      centered=centered),
                            np.random.default_rng(3))
    lr, rho, eps, momentum = f32(lr), f32(rho), f32(eps), f32(momentum)
    p = {n: init[n].copy() for n in SHAPES}
    ms = {n: np.ones_like(init[n]) for n in SHAPES}
    mg = {n: np.zeros_like(init[n]) for n in SHAPES}
    mom = {n: np.zeros_like(init[n]) for n in SHAPES}
    for g in seq:
        for n in SHAPES:
            ms[n] = rho * ms[n] + (1 - rho) * g[n] ** 2
            denom = ms[n] + eps
            if centered:
                mg[n] = rho * mg[n] + (1 - rho) * g[n]
                denom = ms[n] - mg[n] ** 2 + eps
            mom[n] = momentum * mom[n] + lr * g[n] / np.sqrt(denom)
            p[n] = p[n] - mom[n]
    _check(final, p)


def test_adagrad(graph):
    lr = 0.2
    init, seq, final = _run(tf.train.AdagradOptimizer(lr, initial_accumulator_value=0.1),
                            np.random.default_rng(4))
    lr = f32(lr)
    p = {n: init[n].copy() for n in SHAPES}
    acc = {n: np.full_like(init[n], 0.1) for n in SHAPES}
    for g in seq:
        for n in SHAPES:
            acc[n] = acc[n] + g[n] ** 2
            p[n] = p[n] - lr * g[n] / np.sqrt(acc[n])
    _check(final, p)


def _lamb_reference(init, seq, lr, wd, b1, b2, eps, excluded):
    p = {n: init[n].copy() for n in SHAPES}
    m = {n: np.zeros_like(init[n]) for n in SHAPES}
    v = {n: np.zeros_like(init[n]) for n in SHAPES}
    ratios = []
    for g in seq:
        for n in SHAPES:
            m[n] = b1 * m[n] + (1 - b1) * g[n]
            v[n] = b2 * v[n] + (1 - b2) * g[n] ** 2
            u = m[n] / (np.sqrt(v[n]) + eps)
            if n not in excluded:
                u = u + wd * p[n]
            w_norm, u_norm = np.linalg.norm(p[n]), np.linalg.norm(u)
            r = w_norm / u_norm if w_norm > 0 and u_norm > 0 else 1.0
            ratios.append(r)
            p[n] = p[n] - lr * r * u
    return p, ratios


def test_lamb_trust_ratio_and_excluded_names(graph):
    lr, wd, b1, b2, eps = 0.05, 0.1, 0.9, 0.999, 1e-6
    opt = tf.train.LAMBOptimizer(lr, weight_decay_rate=wd, beta_1=b1, beta_2=b2,
                                 epsilon=eps, exclude_from_weight_decay=["LayerNorm", "bias"])
    init, seq, final = _run(opt, np.random.default_rng(5), zero_bias=True)
    p, ratios = _lamb_reference(init, seq, lr, wd, b1, b2, eps,
                                excluded={"layer/bias", "LayerNorm/gamma"})
    _check(final, p)
    assert ratios[1] == 1.0  # the zero-initialized bias: ||p|| = 0 on the first step
    assert any(abs(r - 1.0) > 0.1 for r in ratios)  # the trust ratio matters
    # Without the exclusion every tensor decays: a different result.
    p_all, _ = _lamb_reference(init, seq, lr, wd, b1, b2, eps, excluded=set())
    assert not np.allclose(p_all["LayerNorm/gamma"], final["LayerNorm/gamma"], rtol=1e-6)
    assert tf.train.LAMBOptimizer is tf.train.optimizers.LAMBOptimizer


def test_slots_are_named_global_variables(graph):
    _, variables, grads = _setup(np.random.default_rng(6))
    opt = tf.train.AdamOptimizer(0.1)
    opt.apply_gradients([(grads[n], variables[n]) for n in SHAPES])
    k = variables["layer/kernel"]
    assert opt.get_slot(k, "m").op.name == "layer/kernel/Adam"
    assert opt.get_slot(k, "v").op.name == "layer/kernel/Adam_1"
    assert opt.get_slot_names() == ["m", "v"]
    names = {v.op.name for v in opt.variables()}
    assert {"beta1_power", "beta2_power", "LayerNorm/gamma/Adam_1"} <= names
    glob = {v.op.name for v in tf.global_variables()}
    train = {v.op.name for v in tf.trainable_variables()}
    assert names <= glob and not names & train
    m = tf.train.MomentumOptimizer(0.1, 0.9)
    m.apply_gradients([(grads["layer/bias"], variables["layer/bias"])])
    assert m.get_slot(variables["layer/bias"], "momentum").op.name == "layer/bias/Momentum"
    assert m.get_slot(variables["layer/kernel"], "momentum") is None
    lamb = tf.train.LAMBOptimizer(0.1)
    lamb.apply_gradients([(grads["layer/bias"], variables["layer/bias"])])
    assert lamb.get_slot(variables["layer/bias"], "m").op.name == "layer/bias/lamb_m"


def test_minimize_with_var_list_and_global_step(graph):
    rng = np.random.default_rng(7)
    x0, w0, b0 = rng.standard_normal((5, 3)), rng.standard_normal((3, 2)), rng.standard_normal(2)
    x = tf.constant(x0, tf.float64)
    w = tf.Variable(w0, dtype=tf.float64, name="w")
    b = tf.Variable(b0, dtype=tf.float64, name="b")
    loss = 0.5 * tf.reduce_sum(tf.square(tf.matmul(x, w) + b))
    gs = tf.train.get_or_create_global_step()
    opt = tf.train.GradientDescentOptimizer(0.05)
    gv = opt.compute_gradients(loss, var_list=[w])
    assert [v for _, v in gv] == [w]
    train_w = opt.apply_gradients(gv, global_step=gs, name="train_w")
    assert train_w.name == "train_w"
    train_all = opt.minimize(loss, global_step=gs)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train_w)
        r = x0 @ w0 + b0
        w1 = w0 - f32(0.05) * x0.T @ r
        np.testing.assert_allclose(sess.run(w), w1, rtol=RTOL)
        np.testing.assert_allclose(sess.run(b), b0, rtol=0)  # not in var_list
        sess.run(train_all)
        r = x0 @ w1 + b0
        np.testing.assert_allclose(sess.run(w), w1 - f32(0.05) * x0.T @ r, rtol=RTOL)
        np.testing.assert_allclose(sess.run(b), b0 - f32(0.05) * r.sum(0), rtol=RTOL)
        assert sess.run(gs) == 2


def test_float_global_step_counts_like_tf(graph):
    """TF's mnist/convolutional.py passes ``tf.Variable(0, dtype=tf.float32)`` as
    ``global_step`` (it feeds exponential_decay): apply_gradients adds 1 to it."""
    w = tf.Variable(np.ones(2), dtype=tf.float64, name="w")
    batch = tf.Variable(0, dtype=tf.float32)
    lr = tf.train.exponential_decay(0.1, batch, 2, 0.5, staircase=True)
    train = tf.train.GradientDescentOptimizer(lr).minimize(tf.reduce_sum(w * w),
                                                           global_step=batch)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train)
        assert sess.run(batch) == 3.0 and sess.run(batch).dtype == np.float32
        assert sess.run(lr) == pytest.approx(0.05)
        np.testing.assert_allclose(sess.run(w), 0.8 * 0.8 * 0.9, rtol=1e-6)
    with pytest.raises(TypeError, match="global_step must be an integer or float variable"):
        tf.train.GradientDescentOptimizer(0.1).minimize(
            tf.reduce_sum(w * w), global_step=tf.Variable(True, name="flag"))


def test_schedule_tensor_learning_rate_reads_step_before_increment(graph):
    rng = np.random.default_rng(8)
    init, variables, grads = _setup(rng)
    gs = tf.train.get_or_create_global_step()
    lr = tf.train.exponential_decay(tf.constant(0.1, tf.float64), gs, 1, 0.5)
    train_op = tf.train.GradientDescentOptimizer(lr).apply_gradients(
        [(grads[n], variables[n]) for n in SHAPES], global_step=gs)
    p = {n: init[n].copy() for n in SHAPES}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(4):
            g = {n: rng.standard_normal(s) for n, s in SHAPES.items()}
            sess.run(train_op, {grads[n]: g[n] for n in SHAPES})
            for n in SHAPES:
                p[n] = p[n] - 0.1 * 0.5 ** step * g[n]  # a float64 tensor: not rounded
        _check(sess.run({n: v for n, v in variables.items()}), p)


def _state(sess, opt, variables, gs):
    return sess.run([list(variables.values()), opt.variables(), gs])


def test_condition_false_changes_nothing(graph):
    rng = np.random.default_rng(9)
    _, variables, grads = _setup(rng)
    gs = tf.train.get_or_create_global_step()
    ok = tf.placeholder(tf.bool, [], name="ok")
    opt = tf.train.AdamOptimizer(0.1)
    train_op = opt.apply_gradients([(grads[n], variables[n]) for n in SHAPES],
                                   global_step=gs, condition=ok)
    feed = {grads[n]: rng.standard_normal(s) for n, s in SHAPES.items()}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for flag in (True, False):
            before = _state(sess, opt, variables, gs)
            applied = sess.run(train_op.outputs[0], {**feed, ok: flag})
            after = _state(sess, opt, variables, gs)
            assert bool(applied) is flag
            same = [np.array_equal(a, b) for a, b in zip(before[0] + before[1],
                                                         after[0] + after[1])]
            assert all(same) is not flag and any(same) is not flag
            assert after[2] == before[2] + (1 if flag else 0)


def test_grad_hook_transforms_and_skips(graph):
    rng = np.random.default_rng(10)
    init, variables, grads = _setup(rng)
    gs = tf.train.get_or_create_global_step()
    calls = []

    def average_over_two_workers(flat_grads, layouts):
        calls.append([lay.names for lay in layouts])
        for g in flat_grads:
            g *= 0.5
        return len(calls) != 2  # skip the second step

    train_op = tf.train.GradientDescentOptimizer(1.0).apply_gradients(
        [(grads[n], variables[n]) for n in SHAPES], global_step=gs,
        grad_hook=average_over_two_workers)
    p = {n: init[n].copy() for n in SHAPES}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(3):
            g = {n: rng.standard_normal(s) for n, s in SHAPES.items()}
            sess.run(train_op, {grads[n]: g[n] for n in SHAPES})
            if step != 1:
                for n in SHAPES:
                    p[n] = p[n] - 0.5 * g[n]
        _check(sess.run({n: v for n, v in variables.items()}), p)
        assert sess.run(gs) == 2
    assert calls[0] == [list(SHAPES)]


def test_flat_buffers_shared_by_plans_and_repacked_after_replacement(graph):
    rng = np.random.default_rng(11)
    init, variables, grads = _setup(rng)
    opt = tf.train.MomentumOptimizer(0.1, 0.9)
    train_op = opt.apply_gradients([(grads[n], variables[n]) for n in SHAPES])
    loss = tf.reduce_sum(variables["layer/bias"])
    feed = {grads[n]: np.ones(s) for n, s in SHAPES.items()}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train_op, feed)
        stores = [sess.store(v.op) for v in variables.values()]
        base = stores[0].value.base
        assert base is not None and all(s.value.base is base for s in stores)
        slot_stores = [sess.store(opt.get_slot(v, "momentum").op) for v in variables.values()]
        assert all(s.value.base is slot_stores[0].value.base for s in slot_stores)
        sess.run([train_op, loss], feed)  # a second plan shares the packing
        assert all(s.value.base is base for s in stores)
        # load() writes in place; a replaced array is re-packed on the next run.
        variables["layer/bias"].load(np.full(4, 2.0), sess)
        assert stores[1].value.base is base
        stores[0].value = np.zeros(SHAPES["layer/kernel"])
        accum = sess.run(opt.get_slot(variables["layer/kernel"], "momentum"))
        sess.run(train_op, feed)
        np.testing.assert_allclose(sess.run(variables["layer/kernel"]),
                                   -f32(0.1) * (f32(0.9) * accum + 1.0), rtol=RTOL)
        np.testing.assert_allclose(sess.run(variables["layer/bias"]),
                                   2.0 - f32(0.1) * (f32(0.9) * 1.9 + 1.0), rtol=1e-8)
        assert stores[0].value.base is not None and stores[0].value.base is not base


def test_mixed_dtypes_update_in_separate_groups(graph):
    a = tf.Variable(np.arange(3.0), dtype=tf.float64, name="a")
    b = tf.Variable(np.arange(2.0), dtype=tf.float32, name="b")
    ga = tf.constant(np.ones(3), tf.float64)
    gb = tf.constant(np.ones(2), tf.float32)
    op = tf.train.AdamOptimizer(0.1).apply_gradients([(ga, a), (gb, b)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(op)
        # first Adam step moves every element by lr * 1 / (1 + eps') ~ lr
        np.testing.assert_allclose(sess.run(a), np.arange(3.0) - 0.1, rtol=1e-6)
        np.testing.assert_allclose(sess.run(b), np.arange(2.0) - 0.1, rtol=1e-5)
        assert sess.run(b).dtype == np.float32


def test_errors(graph):
    w = tf.Variable(np.ones(2), dtype=tf.float64, name="w")
    c = tf.Variable(3, name="count", trainable=False)
    loss = tf.reduce_sum(w * w)
    opt = tf.train.GradientDescentOptimizer(0.1)
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        opt.apply_gradients([(None, w)])
    with pytest.raises(ValueError, match="No variables provided"):
        opt.apply_gradients([])
    with pytest.raises(ValueError, match="Invalid type int32 for count"):
        opt.compute_gradients(loss, var_list=[c])
    with pytest.raises(TypeError, match="learning_rate must be a float"):
        tf.train.GradientDescentOptimizer("fast")
    with pytest.raises(ValueError, match="initial_accumulator_value must be a positive"):
        tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)
    with pytest.raises(TypeError, match="exclude_from_weight_decay must be a list"):
        tf.train.LAMBOptimizer(0.1, exclude_from_weight_decay="bias")
    with pytest.raises(ValueError, match=r"Gradient for w has shape \(3,\), which is not"):
        opt.apply_gradients([(tf.constant([1.0, 2.0, 3.0], tf.float64), w)])
    with pytest.raises(ValueError, match="condition must be a scalar bool"):
        opt.apply_gradients([(w * 1.0, w)], condition=tf.constant([True, False]))
    with tf.Graph().as_default():
        tf.constant(1.0)
        with pytest.raises(ValueError, match="No variables to optimize"):
            opt.compute_gradients(tf.constant(2.0) * 1.0)
    adam = tf.train.AdamOptimizer(0.1)
    op = adam.minimize(loss)
    with tf.Session() as sess:
        sess.run(w.initializer)
        with pytest.raises(errors.FailedPreconditionError, match="w/Adam"):
            sess.run(op)
