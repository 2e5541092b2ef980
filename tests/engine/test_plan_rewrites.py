"""Plan-level kernel rewrites (``engine.plan_rewrites``) and the faster conv kernels give
the same numbers as the plain kernels: bit-identical training steps, shared im2col patches
only within one plan, in-place epilogues only on private tensors, the chunked col2im and
the BLAS bias-gradient sum against references."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.engine import plan_rewrites
from estimator_npu.engine.ops import _fast, conv_ops
from tests.engine.test_conv_ops import conv_grads_ref, conv_ref


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def _small_cnn(x, y):
    net = tf.layers.conv2d(x, 4, 3, padding="same", activation=tf.nn.relu)
    net = tf.layers.max_pooling2d(net, 2, 2)
    net = tf.layers.conv2d(net, 18, 3, padding="valid", activation=tf.nn.relu)
    net = tf.layers.conv2d(net, 5, 3, padding="same", activation=tf.nn.relu)
    net = tf.layers.flatten(net)
    net = tf.layers.dense(net, 12, activation=tf.nn.relu)
    logits = tf.layers.dense(net, 3)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                          logits=logits))
    return loss, tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss)


def _train(rewrites, monkeypatch, steps=4):
    real = plan_rewrites.kernel_overrides
    with monkeypatch.context() as m:
        if not rewrites:
            m.setattr(plan_rewrites, "kernel_overrides", lambda *a: {})
        with tf.Graph().as_default():
            tf.set_random_seed(3)
            x = tf.placeholder(tf.float32, [None, 10, 10, 2])
            y = tf.placeholder(tf.int32, [None])
            loss, train = _small_cnn(x, y)
            sess = tf.Session()
            sess.run(tf.global_variables_initializer())
            plan = sess.compile([loss, train], [x, y])
            overrides = real(plan.ops, [loss, train], [x, y], sess)
            rng = np.random.default_rng(0)
            losses = []
            for _ in range(steps):
                xv = rng.standard_normal((6, 10, 10, 2)).astype(np.float32)
                losses.append(plan.fn(xv, rng.integers(0, 3, 6).astype(np.int32))[0])
            return losses, sess.run(tf.trainable_variables()), overrides


def test_rewritten_plan_trains_bit_identically(monkeypatch):
    got, weights, overrides = _train(True, monkeypatch)
    ref, ref_weights, _ = _train(False, monkeypatch)
    types = sorted(op.type for op in overrides)
    # three convs with their filter gradients (the first conv's patches shared too), the
    # bias adds after conv and dense layers, and their ReLUs.
    assert types.count("Conv2DBackpropFilter") == 3 and types.count("Conv2D") == 3, types
    assert types.count("BiasAdd") == 5 and types.count("Relu") == 4, types
    # each ReLU's gradient: Mul(dy, Cast(Greater(y, 0))) as one masked product
    assert types.count("Greater") == types.count("Cast") == types.count("Mul") == 4, types
    assert got == ref
    for a, b in zip(weights, ref_weights):
        np.testing.assert_array_equal(a, b)


def test_fetched_intermediates_are_not_written_in_place():
    x = tf.placeholder(tf.float32, [None, 6, 6, 3])
    w = tf.constant(np.random.default_rng(1).standard_normal((3, 3, 3, 4)), tf.float32)
    bias = np.array([0.5, -0.5, 1.0, -2.0], np.float32)
    conv = tf.nn.conv2d(x, w, 1, "SAME")
    pre = tf.nn.bias_add(conv, tf.constant(bias))
    act = tf.nn.relu(pre)
    xv = np.random.default_rng(2).standard_normal((2, 6, 6, 3)).astype(np.float32)
    with tf.Session() as sess:
        c, p, a = sess.run([conv, pre, act], {x: xv})
        only_act = sess.run(act, {x: xv})
        plan = sess.compile([act], [x])
        overrides = plan_rewrites.kernel_overrides(plan.ops, [act], [x], sess)
    assert sorted(op.type for op in overrides) == ["BiasAdd", "Relu"]
    np.testing.assert_array_equal(p, c + bias)          # the fetched conv was not overwritten
    np.testing.assert_array_equal(a, np.maximum(p, 0))
    np.testing.assert_array_equal(only_act, a)


def test_filter_gradient_recomputes_patches_for_another_input():
    class Op:
        attrs = {"strides": (1, 1), "dilations": (1, 1), "padding": "SAME", "nchw": False}
    rng = np.random.default_rng(4)
    patches = conv_ops.Patches()
    fwd = conv_ops._conv2d_kernel(Op, None, patches)
    bpf = conv_ops._conv2d_backprop_filter_kernel(Op, None, patches)
    x1, x2 = rng.standard_normal((2, 2, 5, 5, 3))
    w = rng.standard_normal((3, 3, 3, 2))
    dy = rng.standard_normal((2, 5, 5, 2))
    sizes = np.array(w.shape)
    fwd(x1, w)
    np.testing.assert_allclose(bpf(x1, sizes, dy), conv_grads_ref(x1, w, dy, (1, 1),
                                                                   "SAME")[1], atol=1e-12)
    # patches are used once: a second call, or one for another input, makes its own
    np.testing.assert_allclose(bpf(x1, sizes, dy), conv_grads_ref(x1, w, dy, (1, 1),
                                                                   "SAME")[1], atol=1e-12)
    fwd(x1, w)
    np.testing.assert_allclose(bpf(x2, sizes, dy), conv_grads_ref(x2, w, dy, (1, 1),
                                                                   "SAME")[1], atol=1e-12)


@pytest.mark.parametrize("shape, k, s, pad, nchw", [
    ((3, 9, 9, 16), (3, 3), 1, "SAME", False),
    ((5, 8, 7, 20), (5, 5), 2, "SAME", True),
    ((2, 9, 8, 17), (3, 2), 2, "VALID", False),
])
def test_chunked_input_gradient_matches_reference(shape, k, s, pad, nchw, monkeypatch):
    monkeypatch.setattr(conv_ops, "_CHUNK_BYTES", 4096)  # several chunks, a short last one
    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape)
    w = rng.standard_normal(k + (shape[3], 6))
    dy = rng.standard_normal(conv_ref(x, w, (s, s), pad).shape)
    tr = (lambda a: a.transpose(0, 3, 1, 2)) if nchw else (lambda a: a)
    got = tf.Session().run(tf.nn.conv2d_backprop_input(
        list(tr(x).shape), tf.constant(w), tf.constant(np.ascontiguousarray(tr(dy))), s, pad,
        data_format="NCHW" if nchw else "NHWC"))
    np.testing.assert_allclose(got, tr(conv_grads_ref(x, w, dy, (s, s), pad)[0]), atol=1e-11)


def test_bias_gradient_sum_over_leading_axes():
    x = np.random.default_rng(6).standard_normal((4, 5, 6, 7))
    for keep in (False, True):
        got = _fast.make_sum((0, 1, 2), keep, 4, True)(x)
        np.testing.assert_allclose(got, x.sum(axis=(0, 1, 2), keepdims=keep), rtol=1e-12)
    np.testing.assert_allclose(_fast.make_sum((0, 1), False, 4, True)(x), x.sum(axis=(0, 1)),
                               rtol=1e-12)


def test_masked_product_is_one_line_without_greater_or_cast_lines():
    """A rewritten ReLU gradient is one plan line ``multiply(dy, greater(y, 0))``: the
    Greater and Cast get no line of their own (no call, no tuple of their inputs)."""
    x = tf.placeholder(tf.float32, [None, 4])
    w = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) - 5)
    loss = tf.reduce_sum(tf.nn.relu(tf.matmul(x, w)))
    (gw,) = tf.gradients(loss, [w])
    xv = np.random.default_rng(3).standard_normal((5, 4)).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        plan = sess.compile([gw], [x])
        lines = {op.type: plan.source.splitlines()[n - 1] for n, op in plan.line_ops.items()}
        got = plan.fn(xv)[0]
    assert "Greater" not in lines and "Cast" not in lines, sorted(lines)
    (mask_line,) = [ln for ln in plan.source.splitlines() if "k_greater(" in ln]
    assert "# Mul " in mask_line and "k_multiply(" in mask_line, mask_line
    wv = np.arange(12, dtype=np.float32).reshape(4, 3) - 5
    np.testing.assert_allclose(got, xv.T @ (xv @ wv > 0).astype(np.float32), rtol=1e-6)


@pytest.mark.parametrize("shape, k, s, pad, co, nchw", [
    ((3, 12, 12, 1), (5, 5), 1, "SAME", 6, False),   # LeNet's first convolution, smaller
    ((2, 9, 10, 6), (5, 5), 1, "VALID", 16, True),
    ((2, 11, 13, 3), (3, 3), 2, "SAME", 5, False),   # strided tiles
    ((2, 8, 8, 2), (2, 3), (1, 2), "VALID", 40, False),
])
def test_band_convolution_and_filter_gradient_match_reference(shape, k, s, pad, co, nchw,
                                                              monkeypatch):
    """Few input channels: Conv2D and its filter gradient run on tiles of T output pixels
    times a banded filter (shared patches or their own), the same values as the
    reference; the input gradient is unchanged."""
    used = []
    real = conv_ops._band_patches
    monkeypatch.setattr(conv_ops, "_band_patches", lambda *a: used.append(a[4]) or real(*a))
    rng = np.random.default_rng(8)
    x = rng.standard_normal(shape)
    w = rng.standard_normal(k + (shape[3], co))
    st = (s, s) if isinstance(s, int) else s
    dy = rng.standard_normal(conv_ref(x, w, st, pad).shape)
    tr = (lambda a: np.ascontiguousarray(a.transpose(0, 3, 1, 2))) if nchw else (lambda a: a)
    xt = tf.constant(tr(x))
    y = tf.nn.conv2d(xt, tf.constant(w), [1, 1, *st] if nchw else [1, *st, 1], pad,
                     data_format="NCHW" if nchw else "NHWC")
    bpf = tf.nn.conv2d_backprop_filter(xt, list(w.shape), tf.constant(tr(dy)),
                                       [1, 1, *st] if nchw else [1, *st, 1], pad,
                                       data_format="NCHW" if nchw else "NHWC")
    sess = tf.Session()
    got_y, got_w = sess.run([y, bpf])                    # patches shared in this plan
    alone = sess.run(bpf)                                # and computed by the gradient
    assert used and all(t > 1 for t in used), used
    np.testing.assert_allclose(got_y, tr(conv_ref(x, w, st, pad)), atol=1e-11)
    ew = conv_grads_ref(x, w, dy, st, pad)[1]
    np.testing.assert_allclose(got_w, ew, atol=1e-11)
    np.testing.assert_array_equal(alone, got_w)


@pytest.mark.parametrize("rewrites", [True, False], ids=["paired", "alone"])
def test_2x2_max_pool_masks_match_the_window_loop(rewrites, monkeypatch):
    """A 2x2 stride-2 pool over more than 8 channels: forward and gradient from the
    first-maximum masks (computed by the paired forward, or by the gradient itself) equal
    the window loop's bit for bit, ties included (ReLU zeros and repeated integers)."""
    from estimator_npu.engine.ops import pool_ops
    used = []
    real = pool_ops._pool_2x2
    monkeypatch.setattr(pool_ops, "_pool_2x2", lambda *a: used.append(1) or real(*a))
    rng = np.random.default_rng(9)
    x = np.maximum(rng.integers(-3, 3, (3, 6, 8, 12)), 0).astype(np.float32)
    dy = rng.standard_normal((3, 3, 4, 12)).astype(np.float32)

    def run():
        with tf.Graph().as_default():
            xt = tf.constant(x)
            y = tf.nn.max_pool(xt, 2, 2, "VALID")
            g = tf.gradients(y, xt, grad_ys=tf.constant(dy))[0]
            return tf.Session().run([y, g])
    with monkeypatch.context() as m:
        if not rewrites:
            m.setattr(plan_rewrites, "kernel_overrides", lambda *a: {})
        got = run()
    assert len(used) == 1, used
    monkeypatch.setattr(pool_ops, "_PAIR_C", 64)  # the window loop
    ref = run()
    assert len(used) == 1
    for a, b in zip(got, ref):
        np.testing.assert_array_equal(a, b)
    # each window's gradient went to exactly one of its pixels
    np.testing.assert_allclose(got[1].sum(axis=(1, 2)), dy.sum(axis=(1, 2)), rtol=1e-5)
    assert np.count_nonzero(got[1]) == dy.size


def _conv_relu_pool(c, ksize, stride, pool_pad, fetch_relu=False, extra=None):
    """Conv + bias + ReLU + max pool on integer-valued data (exact ties and ReLU zeros),
    its value and the gradients of ``sum(pool * d)``: ``(fetches, overrides)``."""
    rng = np.random.default_rng(11)
    x = tf.constant(rng.integers(-2, 3, (2, 8, 8, 3)).astype(np.float32))
    w = tf.constant(rng.integers(-1, 2, (3, 3, 3, c)).astype(np.float32))
    b = tf.constant(rng.integers(-1, 2, c).astype(np.float32))
    r = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, 1, "SAME"), b))
    p = tf.nn.max_pool(r, ksize, stride, pool_pad)
    d = tf.constant(rng.standard_normal(p.shape.as_list()).astype(np.float32))
    loss = tf.reduce_sum(p * d) + (tf.reduce_sum(extra(r)) if extra else 0.0)
    fetches = [p] + tf.gradients(loss, [x, w, b]) + ([r] if fetch_relu else [])
    sess = tf.Session()
    plan = sess.compile(fetches, [])
    overrides = plan_rewrites.kernel_overrides(plan.ops, fetches, [], sess)
    return plan.fn(), overrides


@pytest.mark.parametrize("c, ksize, stride, pool_pad", [
    (6, 2, 2, "VALID"),     # few channels: the row-wise pool gradient
    (12, 2, 2, "VALID"),    # many channels: the paired first-maximum masks
    (5, 3, 3, "SAME"),      # padded windows: the window loop
])
def test_pool_before_relu_equals_the_unfused_plan(c, ksize, stride, pool_pad, monkeypatch):
    """MaxPool(Relu(BiasAdd(.))) pooled before the ReLU, and its gradient masked before
    the scatter: the pool, and the gradients of the input, filter and bias, equal the
    plan without rewrites bit for bit (ties and ReLU zeros included)."""
    got, overrides = _conv_relu_pool(c, ksize, stride, pool_pad)
    kernels = {op.type: getattr(k, "__name__", "") for op, k in overrides.items()}
    assert kernels["MaxPool"] == "max_pool_of_relu", kernels
    assert kernels["MaxPoolGrad"] == "max_pool_grad_of_relu", kernels
    assert kernels["Relu"] == "_pass", kernels
    monkeypatch.setattr(plan_rewrites, "kernel_overrides", lambda *a: {})
    ref, _ = _conv_relu_pool(c, ksize, stride, pool_pad)
    assert np.count_nonzero(ref[0] == 0) and np.count_nonzero(ref[0] > 0)
    for a, e in zip(got, ref):
        np.testing.assert_array_equal(a, e)
        assert np.array_equal(np.signbit(a), np.signbit(e))


@pytest.mark.parametrize("case", ["relu fetched", "relu read elsewhere", "overlapping",
                                  "bias add fetched"])
def test_pool_before_relu_only_where_nothing_else_sees_the_relu(case):
    """The rewrite leaves the plan alone where the ReLU's full-size result is needed (a
    fetch, another reader), where the bias add is fetched, or where pool windows overlap;
    results are then the plain kernels'."""
    if case == "bias add fetched":
        x = tf.constant(np.random.default_rng(12).standard_normal((2, 6, 6, 3)), tf.float32)
        a = tf.nn.bias_add(tf.nn.conv2d(x, tf.ones([3, 3, 3, 4]), 1, "SAME"),
                           tf.constant([1.0, -1.0, 0.5, 0.0]))
        p = tf.nn.max_pool(tf.nn.relu(a), 2, 2, "VALID")
        sess = tf.Session()
        plan = sess.compile([p, a], [])
        overrides = plan_rewrites.kernel_overrides(plan.ops, [p, a], [], sess)
        got_p, got_a = plan.fn()
        np.testing.assert_array_equal(
            got_p, np.maximum(got_a, 0).reshape(2, 3, 2, 3, 2, 4).max(axis=(2, 4)))
    else:
        (p, _, _, _, *rest), overrides = _conv_relu_pool(
            6, 3 if case == "overlapping" else 2, 2, "VALID", fetch_relu=case == "relu fetched",
            extra=tf.square if case == "relu read elsewhere" else None)
        if rest:
            np.testing.assert_array_equal(p, rest[0].reshape(2, 4, 2, 4, 2, 6).max(axis=(2, 4)))
    names = {getattr(k, "__name__", "") for k in overrides.values()}
    assert "max_pool_of_relu" not in names and "max_pool_grad_of_relu" not in names, names


def test_pool_before_relu_in_a_forward_plan():
    """Without a gradient (inference), the pool alone is rewritten."""
    rng = np.random.default_rng(13)
    xv = rng.standard_normal((3, 8, 8, 2)).astype(np.float32)
    wv = rng.standard_normal((3, 3, 2, 10)).astype(np.float32)
    bv = rng.standard_normal(10).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 8, 8, 2])
    p = tf.nn.max_pool(tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, wv, 1, "SAME"), bv)), 2, 2,
                       "VALID")
    sess = tf.Session()
    plan = sess.compile([p], [x])
    overrides = plan_rewrites.kernel_overrides(plan.ops, [p], [x], sess)
    assert sorted(getattr(k, "__name__", "") for op, k in overrides.items()
                  if op.type in ("MaxPool", "Relu")) == ["_pass", "max_pool_of_relu"]
    a = sess.run(tf.nn.bias_add(tf.nn.conv2d(x, wv, 1, "SAME"), bv), {x: xv})
    np.testing.assert_array_equal(plan.fn(xv)[0],
                                  np.maximum(a, 0).reshape(3, 4, 2, 4, 2, 10).max(axis=(2, 4)))


def test_vector_add_after_conv_is_an_in_place_epilogue(monkeypatch):
    # the DANN-style ``relu(conv2d(x, w) + b)`` (an Add, bias on either side): the same
    # numbers as without rewrites, and a fetched convolution keeps its own value
    rng = np.random.default_rng(4)
    x = tf.placeholder(tf.float32, [None, 5, 5, 2])
    w = tf.constant(rng.standard_normal((3, 3, 2, 3)), tf.float32)
    b = tf.constant([0.25, -1.0, 2.0], tf.float32)
    conv = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")
    left = tf.nn.relu(conv + b)
    right = tf.nn.relu(b + tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"))
    wide = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME") + tf.ones([5, 1, 3])  # not a vector
    xv = rng.standard_normal((2, 5, 5, 2)).astype(np.float32)
    with tf.Session() as sess:
        plan = sess.compile([left, right, wide], [x])
        overrides = plan_rewrites.kernel_overrides(plan.ops, [left, right, wide], [x], sess)
        assert sorted(op.type for op in overrides if op.type in ("Add", "Relu")) == \
            ["Add", "Add", "Relu", "Relu"]
        got = sess.run([left, right, wide], {x: xv})
        c, shared = sess.run([conv, left], {x: xv})
    monkeypatch.setattr(plan_rewrites, "kernel_overrides", lambda *a: {})
    with tf.Session() as sess:
        ref = sess.run([left, right, wide, conv], {x: xv})
    for g, r in zip(got, ref[:3]):
        np.testing.assert_array_equal(g, r)
    np.testing.assert_array_equal(c, ref[3])
    np.testing.assert_array_equal(shared, ref[0])
    assert plan_rewrites._add_in_place(np.zeros((2, 3), np.float32),
                                       np.ones(2, np.float32)[:, None]).shape == (2, 3)


def test_closed_session_frees_its_plans_without_the_collector():
    import gc
    import weakref
    x = tf.placeholder(tf.float32, [None, 6, 6, 1])
    y = tf.nn.conv2d(x, tf.ones([3, 3, 1, 2]), [1, 1, 1, 1], "SAME")
    sess = tf.Session()
    sess.run(y, {x: np.ones((2, 6, 6, 1), np.float32)})
    plans = [weakref.ref((p[0] if isinstance(p, tuple) else p).fn) for p in sess._plans.values()]
    gc.disable()
    try:
        sess.close()
        assert plans and all(p() is None for p in plans)
    finally:
        gc.enable()
    with pytest.raises(RuntimeError):
        sess.run(y, {x: np.ones((2, 6, 6, 1), np.float32)})


def test_inline_kernels_are_plan_expressions_and_callable():
    """Relu, transposed MatMul and a dense layer's bias gradient (Sum over axis 0 of a
    static shape) are spliced into the plan as expressions (no closure call), one global
    per numpy function, with the same values as numpy; called directly, an ``Inline``
    evaluates the same expression."""
    from estimator_npu.engine.registry import Inline
    k = Inline("{mm}({0}.T, {1})", mm=np.dot)
    a, b = np.arange(6.0).reshape(3, 2), np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(k(a, b), a.T @ b)
    x = tf.placeholder(tf.float32, [5, 4])
    w = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) - 5)
    h = tf.nn.relu(tf.matmul(x, w))
    gx, gh = tf.gradients(tf.reduce_sum(tf.matmul(h, w, transpose_b=True)), [x, h])
    s = tf.reduce_sum(h, axis=0)
    xv = np.random.default_rng(3).standard_normal((5, 4)).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        plan = sess.compile([h, s, gx], [x])
        got = plan.fn(xv)
    src = plan.source
    assert "k_maximum(" in src and ".T" in src and "k_dot(k_ones" in src, src
    from estimator_npu.engine.ops import _fast
    assert src.count("k_dot = ") == 0 and plan.fn.__globals__["k_dot"] is _fast.dot
    wv = np.arange(12, dtype=np.float32).reshape(4, 3) - 5
    hv = np.maximum(xv @ wv, 0)
    np.testing.assert_allclose(got[0], hv, rtol=1e-6)
    np.testing.assert_allclose(got[1], hv.sum(axis=0), rtol=1e-5)
    dpre = (np.ones((5, 4), np.float32) @ wv) * (xv @ wv > 0)
    np.testing.assert_allclose(got[2], dpre @ wv.T, rtol=1e-6)


def test_small_static_bias_and_relu_are_in_place_plan_lines(monkeypatch):
    """``relu(matmul(x, w) + b)`` (Add, either side, and BiasAdd) of a small static shape:
    the plan lines are numpy's in-place calls (``add(t, b, t)``, ``maximum(t, 0, out=t)``),
    with the numbers of the plan without rewrites; an unknown batch keeps the checked
    kernels, and a fetched product keeps its value."""
    rng = np.random.default_rng(8)
    w = tf.constant(rng.standard_normal((4, 3)), tf.float32)
    b = tf.constant([0.25, -1.0, 2.0], tf.float32)
    fetches, feeds, values = [], [], []
    for shape in ([5, 4], [None, 4]):
        x = tf.placeholder(tf.float32, shape)
        mm = tf.matmul(x, w)
        fetches += [tf.nn.relu(mm + b), tf.nn.relu(b + tf.matmul(x, w)),
                    tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w), b)), mm]
        feeds.append(x)
        values.append(rng.standard_normal((5, 4)).astype(np.float32))
    with tf.Session() as sess:
        src = sess.compile(fetches[:3], feeds[:1]).source
        dynamic = sess.compile(fetches[4:7], feeds[1:]).source
        got = sess.run(fetches, dict(zip(feeds, values)))
    assert src.count("k_maximum(") == src.count("out=") == 3, src
    assert src.count("k_add(") == 3 and "k_add(t_MatMul, c" in src, src
    assert "out=" not in dynamic and "k_maximum" not in dynamic, dynamic
    monkeypatch.setattr(plan_rewrites, "kernel_overrides", lambda *a: {})
    with tf.Session() as sess:
        ref = sess.run(fetches, dict(zip(feeds, values)))
    for g, r in zip(got, ref):
        np.testing.assert_array_equal(g, r)
