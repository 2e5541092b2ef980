"""LossScaleOptimizer and NPULossScaleOptimizer: scaled loss, one fused unscale op, skipped
updates on overflow (variables, slots, shared scalars and global_step unchanged), the
manager updated either way, delegation and argument errors."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import mixed_precision as mp
from estimator_npu.train import apply_op
from estimator_npu.train.loss_scale_optimizer import NPULossScaleOptimizer

OPTIMIZERS = {
    "sgd": lambda: tf.train.GradientDescentOptimizer(0.1),
    "momentum": lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    "adam": lambda: tf.train.AdamOptimizer(0.01),
    "adagrad": lambda: tf.train.AdagradOptimizer(0.1),
    "rmsprop": lambda: tf.train.RMSPropOptimizer(0.01, momentum=0.5, centered=True),
    "lamb": lambda: tf.train.LAMBOptimizer(0.01, weight_decay_rate=0.01),
}


@pytest.fixture(params=["auto", "flat", "per_tensor"])
def graph(request, monkeypatch):
    """A fresh default graph; each test runs with each way of applying the update."""
    if request.param != "auto":
        forced = request.param == "flat"
        monkeypatch.setattr(apply_op, "use_flat", lambda rule, n, size, need: need or forced)
    g = tf.Graph()
    with g.as_default():
        yield g


def model(rng):
    """A loss whose gradients are multiplied by the fed ``c`` (inf/NaN makes them
    non-finite); ``unused`` gets no gradient."""
    x = tf.constant(rng.standard_normal((5, 3)).astype(np.float32))
    w = tf.Variable(rng.standard_normal((3, 2)).astype(np.float32), name="w")
    b = tf.Variable(rng.standard_normal(2).astype(np.float32), name="b")
    unused = tf.Variable([1.0, 2.0], name="unused")
    c = tf.placeholder_with_default(tf.constant(1.0), [], name="c")
    loss = tf.reduce_sum(tf.square(tf.matmul(x, w) + b)) * c
    return loss, c, [w, b, unused]


def state(sess, opt, variables, extra=()):
    names = [v.op.name for v in variables] + [v.op.name for v in opt.variables()] \
        + [v.op.name for v in extra]
    values = sess.run(list(variables) + opt.variables() + list(extra))
    return dict(zip(names, [np.array(v) for v in values]))


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_overflow_skips_everything_and_finite_steps_match_the_plain_optimizer(graph, name):
    rng = np.random.default_rng(0)
    loss, c, variables = model(rng)
    manager = mp.ExponentialUpdateLossScaleManager(2.0 ** 10, 2, decr_every_n_nan_or_inf=1,
                                                   decr_ratio=0.5)
    opt = mp.LossScaleOptimizer(OPTIMIZERS[name](), manager)
    gs = tf.train.get_or_create_global_step()
    train_op = opt.minimize(loss, global_step=gs)
    # The same optimizer unwrapped, on a copy of the variables, for comparison.
    with tf.variable_scope("ref"):
        loss2, c2, vars2 = model(np.random.default_rng(0))
    ref_opt = OPTIMIZERS[name]()
    ref_op = ref_opt.minimize(loss2, var_list=vars2[:2])
    scale_vars = list(manager.variables())
    with tf.Session() as sess, np.errstate(all="ignore"):
        sess.run(tf.global_variables_initializer())
        sess.run(train_op)
        sess.run(ref_op)
        before = state(sess, opt, variables, [gs])
        for bad in (np.inf, -np.inf, np.nan):
            scale_before = sess.run(scale_vars[0])
            sess.run(train_op, {c: bad})
            after = state(sess, opt, variables, [gs])
            for k in before:
                np.testing.assert_array_equal(after[k], before[k], err_msg=f"{k} changed")
            assert sess.run(scale_vars[0]) == scale_before / 2   # the manager ran
        assert int(sess.run(gs)) == 1
        for _ in range(3):
            sess.run(train_op)
            sess.run(ref_op)
        assert int(sess.run(gs)) == 4
        for v, v2 in zip(variables[:2], vars2[:2]):
            np.testing.assert_allclose(sess.run(v), sess.run(v2), rtol=1e-6, atol=1e-7)
        np.testing.assert_array_equal(sess.run(variables[2]), [1.0, 2.0])


def test_gradients_are_unscaled_by_one_fused_op(graph):
    rng = np.random.default_rng(1)
    loss, c, variables = model(rng)
    opt = mp.LossScaleOptimizer(tf.train.GradientDescentOptimizer(0.1),
                                mp.FixedLossScaleManager(3.0))
    gv = opt.compute_gradients(loss)
    assert [v for _, v in gv] == variables
    assert gv[2][0] is None                                 # None passes through
    plain = tf.gradients(loss, variables[:2])
    ops = [op for op in graph.get_operations() if op.type == "UnscaleGradients"]
    assert len(ops) == 1 and {g.op for g, _ in gv[:2]} == {ops[0]}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([g for g, _ in gv[:2]])
        want = sess.run(plain)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-6)
        fetched = sess.run(gv[0][0])
        sess.run(gv[0][0], {c: 2.0})
        np.testing.assert_array_equal(fetched, got[0])   # a fetched value is a copy
    train_op = opt.apply_gradients(gv)
    assert not [op for op in graph.get_operations() if op.type == "AllFinite"]
    assert train_op.type == "NoOp"


def test_power_of_two_scale_is_exact(graph):
    rng = np.random.default_rng(2)
    loss, _, variables = model(rng)
    opt = mp.LossScaleOptimizer(tf.train.GradientDescentOptimizer(0.1),
                                mp.FixedLossScaleManager(2.0 ** 12))
    gv = opt.compute_gradients(loss, var_list=variables[:2])
    plain = tf.gradients(loss, variables[:2])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for a, b in zip(sess.run([g for g, _ in gv]), sess.run(plain)):
            np.testing.assert_array_equal(a, b)


def test_changed_gradients_are_checked_again(graph):
    """Clipping between compute and apply: one AllFinite op checks what is applied."""
    rng = np.random.default_rng(3)
    loss, c, variables = model(rng)
    opt = mp.LossScaleOptimizer(tf.train.AdamOptimizer(0.1), mp.FixedLossScaleManager(8))
    gs = tf.train.get_or_create_global_step()
    gv = [(g, v) for g, v in opt.compute_gradients(loss) if g is not None]
    clipped, _ = tf.clip_by_global_norm([g for g, _ in gv], 1.0)
    train_op = opt.apply_gradients(list(zip(clipped, [v for _, v in gv])), global_step=gs)
    assert len([op for op in graph.get_operations() if op.type == "AllFinite"]) == 1
    with tf.Session() as sess, np.errstate(all="ignore"):
        sess.run(tf.global_variables_initializer())
        w0 = sess.run(variables[0])
        sess.run(train_op, {c: np.inf})
        np.testing.assert_array_equal(sess.run(variables[0]), w0)
        assert sess.run(gs) == 0
        sess.run(train_op)
        assert sess.run(gs) == 1


def test_outer_condition_and_grad_hook_are_passed_on(graph):
    rng = np.random.default_rng(4)
    loss, _, variables = model(rng)
    calls = []

    def hook(flat_grads, layouts):
        calls.append(sum(x.size for x in flat_grads))

    opt = mp.LossScaleOptimizer(tf.train.GradientDescentOptimizer(0.1),
                                mp.FixedLossScaleManager(4))
    outer = tf.placeholder(tf.bool, [])
    gv = opt.compute_gradients(loss, var_list=variables[:2])
    train_op = opt.apply_gradients(gv, condition=outer, grad_hook=hook)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        w0 = sess.run(variables[0])
        sess.run(train_op, {outer: False})
        np.testing.assert_array_equal(sess.run(variables[0]), w0)
        assert calls == []
        sess.run(train_op, {outer: True})
        assert calls == [8] and not np.array_equal(sess.run(variables[0]), w0)


def test_npu_loss_scale_optimizer_distributed_flag_in_one_process(graph):
    rng = np.random.default_rng(5)
    loss, c, variables = model(rng)
    manager = mp.ExponentialUpdateLossScaleManager(16, 1, decr_every_n_nan_or_inf=1,
                                                   decr_ratio=0.5)
    opt = NPULossScaleOptimizer(tf.train.MomentumOptimizer(0.1, 0.9), manager,
                                is_distributed=True)
    assert opt.get_name() == "NPULossScaleOptimizer"
    gs = tf.train.get_or_create_global_step()
    train_op = opt.minimize(loss, global_step=gs)
    assert any(op.type == "HcomAllReduce" for op in graph.get_operations())
    with tf.Session() as sess, np.errstate(all="ignore"):
        sess.run(tf.global_variables_initializer())
        sess.run(train_op, {c: np.nan})
        assert sess.run([gs, manager.get_loss_scale()]) == [0, 8.0]
        sess.run(train_op)
        assert sess.run([gs, manager.get_loss_scale()]) == [1, 16.0]


def test_delegation_and_names(graph):
    rng = np.random.default_rng(6)
    loss, _, variables = model(rng)
    inner = tf.train.AdamOptimizer(0.1)
    opt = mp.LossScaleOptimizer(inner, mp.FixedLossScaleManager(2))
    assert isinstance(opt, tf.train.Optimizer)
    assert opt.get_name() == "LossScaleOptimizer"
    assert opt.optimizer is inner
    opt.minimize(loss, var_list=variables[:2])
    assert opt.get_slot_names() == inner.get_slot_names() == ["m", "v"]
    assert opt.get_slot(variables[0], "m") is inner.get_slot(variables[0], "m")
    assert opt.get_slot(variables[0], "m") is not None
    assert opt.variables() == inner.variables()


def test_argument_errors(graph):
    manager = mp.FixedLossScaleManager(2)
    with pytest.raises(TypeError, match="opt must be an optimizer"):
        mp.LossScaleOptimizer("adam", manager)
    with pytest.raises(TypeError, match="loss_scale_manager must be a LossScaleManager"):
        mp.LossScaleOptimizer(tf.train.AdamOptimizer(), 128)
    with pytest.raises(TypeError, match="is_distributed must be a bool"):
        NPULossScaleOptimizer(tf.train.AdamOptimizer(), manager, is_distributed="yes")
    opt = mp.LossScaleOptimizer(tf.train.AdamOptimizer(), manager)
    w = tf.Variable(1.0)
    with pytest.raises(TypeError, match="pairs"):
        opt.apply_gradients([w])
    with pytest.raises(ValueError, match="No gradients"):
        opt.apply_gradients([(None, w)])
    with pytest.raises(TypeError, match="grads_and_vars"):
        opt.apply_gradients(5)
    from estimator_npu.train.loss_scale import unscale_gradients
    with pytest.raises(TypeError, match="floating"):
        unscale_gradients([tf.constant([1, 2])], 2.0)
    grads, finite = unscale_gradients([None, None], 2.0)
    assert grads == [None, None]
    with tf.Session() as sess:
        assert sess.run(finite)


def test_custom_manager_interface(graph):
    """Any object with get_loss_scale and update_loss_scale works (TF1's interface)."""
    class Halving(mp.LossScaleManager):
        def __init__(self):
            self.v = tf.Variable(64.0, trainable=False)

        def get_loss_scale(self):
            return self.v.value()

        def update_loss_scale(self, finite_grads):
            return tf.assign(self.v, self.v * 0.5).op

    rng = np.random.default_rng(7)
    loss, _, variables = model(rng)
    m = Halving()
    train_op = mp.LossScaleOptimizer(tf.train.GradientDescentOptimizer(0.1), m).minimize(
        loss, var_list=variables[:2])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train_op)
        assert sess.run(m.v) == 32.0
