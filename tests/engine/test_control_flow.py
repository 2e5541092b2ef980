"""Semantics of cond / case / while_loop / TensorArray beyond their gradients: only the
taken branch runs, control dependencies inside bodies, captures and feed checks, TF1's
errors, back_prop=False, and variables created inside a body."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import errors


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def _run(fetches, feed=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


def test_only_the_taken_branch_runs(graph):
    calls = []

    def record(name):
        def f(x):
            calls.append(name)
            return x
        return f
    p = tf.placeholder(tf.bool, [])
    x = tf.constant(2.0)
    y = tf.cond(p, lambda: tf.py_func(record("t"), [x], tf.float32),
                lambda: tf.py_func(record("f"), [x * 3.0], tf.float32))
    with tf.Session() as sess:
        assert sess.run(y, {p: True}) == 2.0
        assert sess.run(y, {p: False}) == 6.0
    assert calls == ["t", "f"]


def test_cond_assign_runs_only_when_taken(graph):
    v = tf.Variable(0.0)
    p = tf.placeholder(tf.bool, [])
    out = tf.cond(p, lambda: tf.assign_add(v, 1.0), lambda: tf.identity(v))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for pv in (True, False, True):
            sess.run(out, {p: pv})
        assert sess.run(v) == 2.0


def test_cond_structure_and_dtype_mismatch_errors(graph):
    x = tf.constant(1.0)
    with pytest.raises(ValueError, match="same structure"):
        tf.cond(tf.constant(True), lambda: (x, x), lambda: x)
    with pytest.raises(ValueError, match="same type"):
        tf.cond(tf.constant(True), lambda: x, lambda: tf.constant(1))
    with pytest.raises(TypeError, match="true_fn must be callable"):
        tf.cond(tf.constant(True), x, lambda: x)


def test_cond_strict_and_singletons(graph):
    x = tf.constant(1.0)
    loose = tf.cond(tf.constant(True), lambda: [x], lambda: [x * 2.0])
    strict = tf.cond(tf.constant(True), lambda: [x], lambda: [x * 2.0], strict=True)
    assert isinstance(loose, tf.Tensor)
    assert isinstance(strict, list) and len(strict) == 1


def test_unfed_placeholder_captured_in_a_branch_is_reported(graph):
    x = tf.placeholder(tf.float32, [], name="needed_inside")
    y = tf.cond(tf.constant(True), lambda: x * 2.0, lambda: tf.constant(0.0))
    with tf.Session() as sess:
        with pytest.raises(errors.InvalidArgumentError, match="needed_inside"):
            sess.run(y)


def test_case_first_true_and_exclusive(graph):
    x = tf.placeholder(tf.int32, [])
    out = tf.case([(x > 0, lambda: tf.constant(1)), (x > 1, lambda: tf.constant(2))],
                  default=lambda: tf.constant(-1))
    ex = tf.case([(x > 0, lambda: tf.constant(1)), (x > 1, lambda: tf.constant(2))],
                 default=lambda: tf.constant(-1), exclusive=True)
    with tf.Session() as sess:
        assert [sess.run(out, {x: v}) for v in (0, 1, 5)] == [-1, 1, 1]
        assert sess.run(ex, {x: 1}) == 1
        with pytest.raises(errors.InvalidArgumentError, match="exclusive"):
            sess.run(ex, {x: 5})


def test_while_loop_single_var_and_structures(graph):
    i = tf.while_loop(lambda i: i < 10, lambda i: i + 3, [tf.constant(0)])
    pair = collections_pair = tf.while_loop(
        lambda s: s["n"] < 4, lambda s: {"n": s["n"] + 1, "acc": s["acc"] * 2.0},
        [{"n": tf.constant(0), "acc": tf.constant(1.0)}])
    with tf.Session() as sess:
        assert sess.run(i) == 12
        got = sess.run(collections_pair)
    assert isinstance(pair, list) and got[0]["acc"] == 16.0


def test_while_loop_errors(graph):
    x = tf.constant([1.0])
    with pytest.raises(ValueError, match="after one iteration"):
        tf.while_loop(lambda a: tf.constant(True), lambda a: tf.concat([a, a], 0), [x])
    with pytest.raises(ValueError, match="type"):
        tf.while_loop(lambda a: tf.constant(True), lambda a: tf.cast(a, tf.int32), [x])
    with pytest.raises(ValueError, match="No loop variables"):
        tf.while_loop(lambda: True, lambda: 1, [])
    with pytest.raises(TypeError, match="cond must be callable"):
        tf.while_loop(None, lambda a: a, [x])


def test_maximum_iterations_and_control_dependencies_in_body(graph):
    counter = tf.Variable(0)

    def body(i):
        with tf.control_dependencies([tf.assign_add(counter, 1)]):
            return tf.identity(i + 1)
    out = tf.while_loop(lambda i: i < 100, body, [0], maximum_iterations=7)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(out) == 7
        assert sess.run(counter) == 7


def test_variable_created_inside_body_is_initialized_once(graph):
    def body(i, a):
        w = tf.get_variable("w", [], initializer=tf.constant_initializer(2.0))
        return i + 1, a * w
    _, a = tf.while_loop(lambda i, a: i < 3, body, [0, tf.constant(1.0)])
    (w,) = tf.trainable_variables()
    assert w.name == "w:0"
    g, = tf.gradients(a, [w])
    assert _run([a, g]) == [8.0, 12.0]


def test_back_prop_false_gives_no_gradient(graph):
    x = tf.constant(2.0)
    y = tf.while_loop(lambda a: a < 10.0, lambda a: a * x, [x], back_prop=False)
    assert tf.gradients(y, x) == [None]


def test_tensor_from_inside_a_branch_cannot_be_used_in_another(graph):
    inner = []

    def t():
        inner.append(tf.constant(1.0) * 2.0)
        return inner[0]
    tf.cond(tf.constant(True), t, lambda: tf.constant(0.0))
    with pytest.raises(ValueError, match="created inside"):
        tf.cond(tf.constant(True), lambda: inner[0] + 1.0, lambda: tf.constant(0.0))


def test_tensor_array_size_and_bounds(graph):
    ta = tf.TensorArray(tf.float32, size=2)
    ta = ta.write(0, [1.0]).write(1, [2.0])
    bad = ta.write(2, [3.0])
    grow = tf.TensorArray(tf.float32, size=0, dynamic_size=True).write(3, [1.0])
    with tf.Session() as sess:
        assert sess.run(ta.size()) == 2
        assert sess.run(grow.size()) == 4
        np.testing.assert_array_equal(sess.run(ta.stack()), [[1.0], [2.0]])
        with pytest.raises(errors.InvalidArgumentError, match="array size is: 2"):
            sess.run(bad.stack())


def test_error_inside_a_loop_body_names_the_inner_op(graph):
    def fail(v):
        raise RuntimeError("boom")
    y = tf.while_loop(lambda i: i < 2,
                      lambda i: i + tf.py_func(fail, [i], tf.int32, name="bad_op"), [0])
    with tf.Session() as sess:
        with pytest.raises(errors.InvalidArgumentError, match="bad_op"):
            sess.run(y)


def test_branch_and_body_ops_are_in_the_graph_and_inspectable(graph):
    from estimator_npu.engine.plan import subgraph_ops
    x = tf.placeholder(tf.float32, [])
    y = tf.while_loop(lambda a: a < 5.0, lambda a: tf.sin(a) + a + 1.0, [x])
    names = {op.name for op in graph.get_operations()}
    assert any(n.startswith("while/") and "sin" in n.lower() for n in names)
    body = subgraph_ops(y.op)["while/body"]
    assert "Sin" in {op.type for op in body}


def test_tensor_array_clear_after_read(graph):
    x = tf.constant([[1.0], [2.0]])
    ta = tf.TensorArray(tf.float32, size=2).unstack(x)
    twice = ta.read(0) + ta.read(0)
    keep = tf.TensorArray(tf.float32, size=2, clear_after_read=False).unstack(x)
    with tf.Session() as sess:
        with pytest.raises(errors.InvalidArgumentError, match="twice"):
            sess.run(twice)
        assert sess.run(keep.read(0) + keep.read(0)) == [2.0]
        np.testing.assert_array_equal(sess.run(keep.stack() + keep.gather([1, 0])),
                                      [[3.0], [3.0]])


def test_contrib_rnn_names_and_stacked_bidirectional(graph):
    from estimator_npu.contrib import rnn
    x = tf.placeholder(tf.float32, [2, 3, 4])
    out, sf, sb = rnn.stack_bidirectional_dynamic_rnn(
        [rnn.LSTMBlockCell(3), rnn.GRUCell(2)], [rnn.BasicLSTMCell(3), rnn.GRUCell(2)], x,
        dtype=tf.float32)
    assert out.shape.as_list() == [2, 3, 4] and len(sf) == len(sb) == 2
    names = [v.name for v in tf.global_variables()]
    assert names[0] == "stack_bidirectional_rnn/cell_0/bidirectional_rnn/fw/lstm_cell/kernel:0"
    assert "stack_bidirectional_rnn/cell_1/bidirectional_rnn/bw/gru_cell/gates/bias:0" in names
    value = _run(out, {x: np.ones((2, 3, 4), np.float32)})
    assert value.shape == (2, 3, 4) and np.all(np.isfinite(value))
