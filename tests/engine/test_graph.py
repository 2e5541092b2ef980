"""Graph construction: naming, scopes, variable scopes, collections, control dependencies,
finalization, lookup, static shapes and build-time errors, Tensor operators."""
import numpy as np
import pytest

import estimator_npu as tf


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def _run(fetches, feed=None):
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        return s.run(fetches, feed)


# ------------------------------------------------------------------ default graph
def test_as_default_and_reset_default_graph():
    g = tf.Graph()
    with g.as_default():
        assert tf.get_default_graph() is g
        c = tf.constant(1.0)
        assert c.graph is g
    assert tf.get_default_graph() is not g
    before = tf.get_default_graph()
    tf.reset_default_graph()
    assert tf.get_default_graph() is not before
    with g.as_default():
        with pytest.raises(AssertionError):
            tf.reset_default_graph()


def test_nested_default_graphs():
    g1, g2 = tf.Graph(), tf.Graph()
    with g1.as_default():
        with g2.as_default():
            assert tf.get_default_graph() is g2
        assert tf.get_default_graph() is g1


def test_mixing_graphs_raises(graph):
    other = tf.Graph()
    with other.as_default():
        b = tf.constant(1.0)
    a = tf.constant(2.0)
    with pytest.raises(ValueError, match="same graph"):
        tf.add(a, b)


# ------------------------------------------------------------------ naming
def test_op_names_are_uniquified(graph):
    a = tf.constant(1.0, name="a")
    b = tf.constant(1.0, name="a")
    c = tf.constant(1.0, name="a")
    d = tf.constant(1.0, name="a_1")
    assert [a.name, b.name, c.name] == ["a:0", "a_1:0", "a_2:0"]
    assert d.name == "a_1_1:0"
    assert a.op.name == "a" and a.value_index == 0


def test_default_names_and_tensor_names(graph):
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.identity(x)
    z = tf.identity(x)
    assert y.name == "Identity:0" and z.name == "Identity_1:0"
    assert x.op.type == "Placeholder" and y.op.type == "Identity"
    assert y.op.inputs[0] is x


def test_name_scope_nesting(graph):
    with tf.name_scope("outer") as outer:
        assert outer == "outer/"
        with tf.name_scope("inner") as inner:
            assert inner == "outer/inner/"
            a = tf.constant(1.0, name="c")
        with tf.name_scope("inner"):
            b = tf.constant(1.0, name="c")
        c = tf.constant(1.0, name="c")
    with tf.name_scope("outer"):
        d = tf.constant(1.0, name="c")
    assert a.op.name == "outer/inner/c"
    assert b.op.name == "outer/inner_1/c"
    assert c.op.name == "outer/c"
    assert d.op.name == "outer_1/c"


def test_name_scope_reentry_and_reset(graph):
    with tf.name_scope("s") as s:
        pass
    with tf.name_scope(s):  # a trailing "/" re-enters the scope as is
        a = tf.constant(1.0, name="a")
    with tf.name_scope("x"):
        with tf.name_scope(None):
            b = tf.constant(1.0, name="b")
    assert a.op.name == "s/a" and b.op.name == "b"
    assert graph.get_name_scope() == ""


# ------------------------------------------------------------------ variable scopes
def test_get_variable_names_and_reuse(graph):
    with tf.variable_scope("layer"):
        w = tf.get_variable("w", [2, 3])
        assert w.name == "layer/w:0" and w.shape == [2, 3] and w.dtype == tf.float32
    with tf.variable_scope("layer", reuse=True):
        assert tf.get_variable("w") is w
        assert tf.get_variable("w", [2, 3]) is w
    with tf.variable_scope("layer") as scope:
        scope.reuse_variables()
        assert tf.get_variable("w") is w
    with tf.variable_scope(scope, reuse=True):
        assert tf.get_variable("w") is w


def test_get_variable_existing_without_reuse_raises(graph):
    with tf.variable_scope("layer"):
        tf.get_variable("w", [2])
    with tf.variable_scope("layer"):
        with pytest.raises(ValueError, match="layer/w already exists"):
            tf.get_variable("w", [2])


def test_get_variable_missing_with_reuse_raises(graph):
    with tf.variable_scope("layer", reuse=True):
        with pytest.raises(ValueError, match="layer/b does not exist"):
            tf.get_variable("b", [2])


def test_auto_reuse(graph):
    def dense():
        with tf.variable_scope("dense", reuse=tf.AUTO_REUSE):
            return tf.get_variable("kernel", [3, 4])
    assert dense() is dense()
    with tf.variable_scope("dense", reuse=tf.AUTO_REUSE):
        with pytest.raises(ValueError, match=r"dense/kernel.*\(5, 4\).*\(3, 4\)"):
            tf.get_variable("kernel", [5, 4])
        with pytest.raises(ValueError, match="dtype"):
            tf.get_variable("kernel", [3, 4], dtype=tf.float64)
    assert len(tf.global_variables()) == 1


def test_nested_variable_scopes_and_inherited_reuse(graph):
    with tf.variable_scope("a"):
        with tf.variable_scope("b"):
            v = tf.get_variable("v", [1])
    assert v.name == "a/b/v:0"
    with tf.variable_scope("a", reuse=True):
        with tf.variable_scope("b"):
            assert tf.get_variable("v") is v
    assert tf.get_variable_scope().name == ""


def test_variable_scope_initializer_and_dtype(graph):
    with tf.variable_scope("s", initializer=tf.constant_initializer(3.0), dtype=tf.float64):
        v = tf.get_variable("v", [2])
    assert v.dtype == tf.float64
    np.testing.assert_array_equal(_run(v), [3.0, 3.0])


def test_get_variable_needs_shape_for_initializer_functions(graph):
    with pytest.raises(ValueError, match="shape"):
        tf.get_variable("v")
    c = tf.get_variable("c", initializer=tf.constant([1.0, 2.0]))
    assert c.shape == [2]


def test_variable_scope_default_name_is_uniquified(graph):
    with tf.variable_scope(None, default_name="block"):
        a = tf.get_variable("w", [1])
    with tf.variable_scope(None, default_name="block"):
        b = tf.get_variable("w", [1])
    assert a.name == "block/w:0" and b.name == "block_1/w:0"


# ------------------------------------------------------------------ collections
def test_variable_collections(graph):
    w = tf.Variable(1.0, name="w")
    frozen = tf.Variable(2.0, trainable=False, name="frozen")
    local = tf.get_local_variable("counter", [], initializer=tf.zeros_initializer())
    custom = tf.Variable(3.0, collections=["mine"], name="custom")
    assert tf.global_variables() == [w, frozen]
    # As in TF1, a trainable variable joins TRAINABLE_VARIABLES whatever collections says.
    assert tf.trainable_variables() == [w, custom]
    assert tf.local_variables() == [local] and not local.trainable
    assert tf.get_collection("mine") == [custom]
    assert tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES) == [w, frozen]
    assert tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES) == [w, custom]
    assert tf.get_collection(tf.GraphKeys.LOCAL_VARIABLES) == [local]
    assert w.trainable and not frozen.trainable


def test_collection_scope_filter_and_refs(graph):
    with tf.variable_scope("enc"):
        e = tf.get_variable("w", [1])
    with tf.variable_scope("dec"):
        d = tf.get_variable("w", [1])
    assert tf.trainable_variables("enc") == [e]
    assert tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope="dec") == [d]
    tf.add_to_collection("losses_here", 1)
    tf.add_to_collections(["x", "y"], 2)
    copy = tf.get_collection("losses_here")
    copy.append(99)
    assert tf.get_collection("losses_here") == [1]
    ref = tf.get_collection_ref("losses_here")
    ref.append(5)
    assert tf.get_collection("losses_here") == [1, 5]
    assert tf.get_collection("x") == [2] and tf.get_collection("y") == [2]
    assert tf.get_collection("never") == []


def test_graph_keys_names():
    for key in ("GLOBAL_VARIABLES", "TRAINABLE_VARIABLES", "LOCAL_VARIABLES", "SUMMARIES",
                "UPDATE_OPS", "LOSSES", "GLOBAL_STEP"):
        assert isinstance(getattr(tf.GraphKeys, key), str)


def test_initializers_for_variable_lists(graph):
    a = tf.Variable(1.0)
    b = tf.Variable(2.0)
    with tf.Session() as s:
        s.run(tf.variables_initializer([a]))
        assert s.run(a) == 1.0
        names = s.run(tf.report_uninitialized_variables())
        assert list(names) == [b.op.name.encode()]  # bytes, as TF returns
        s.run(tf.variables_initializer([]))  # a no-op
        s.run(tf.local_variables_initializer())


# ------------------------------------------------------------------ control flow helpers
def test_control_dependencies_order_updates(graph):
    v = tf.Variable(1.0)
    inc = tf.assign_add(v, 1.0)
    with tf.control_dependencies([inc]):
        after = tf.identity(v)
        doubled = v * 2.0
    assert inc.op in after.op.control_inputs
    with tf.Session() as s:
        s.run(v.initializer)
        assert s.run(after) == 2.0
        assert s.run(doubled) == 6.0
        assert s.run(v) == 3.0


def test_control_dependencies_nest_and_clear(graph):
    a, b = tf.no_op(name="a"), tf.no_op(name="b")
    with tf.control_dependencies([a]):
        with tf.control_dependencies([b]):
            both = tf.constant(1.0)
        with tf.control_dependencies(None):
            none = tf.constant(1.0)
    assert set(both.op.control_inputs) == {a, b}
    assert none.op.control_inputs == []


def test_group_runs_every_input(graph):
    v = tf.Variable(0.0)
    w = tf.Variable(0.0)
    step = tf.group(v.assign_add(1.0), [w.assign_add(2.0)], name="step")
    assert step.type == "NoOp" and step.name == "step"
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(step) is None
        s.run(step)
        assert s.run([v, w]) == [2.0, 4.0]


def test_no_op_and_identity(graph):
    n = tf.no_op(name="nothing")
    assert n.type == "NoOp" and n.outputs == ()
    x = tf.constant([1.0, 2.0])
    y = tf.identity(x, name="same")
    assert y.name == "same:0" and y.shape == x.shape and y.dtype == x.dtype
    np.testing.assert_array_equal(_run([n, y])[1], [1.0, 2.0])


def test_tf_tuple_gates_all_tensors(graph):
    v = tf.Variable(0.0)
    inc = v.assign_add(1.0)
    a, b = tf.tuple([tf.constant(1.0), tf.constant(2.0)], control_inputs=[inc])
    with tf.Session() as s:
        s.run(v.initializer)
        assert s.run(a) == 1.0
        assert s.run(v) == 1.0


# ------------------------------------------------------------------ finalize / lookup
def test_finalize_refuses_changes(graph):
    a = tf.constant(1.0, name="a")
    graph.finalize()
    with pytest.raises(RuntimeError, match="Graph is finalized"):
        tf.constant(2.0)
    with pytest.raises(RuntimeError, match="finalized"):
        tf.identity(a)
    with pytest.raises(RuntimeError, match="finalized"):
        tf.add_to_collection("k", a)
    with pytest.raises(RuntimeError, match="finalized"):
        a.op._add_control_input(a.op)
    with pytest.raises(RuntimeError, match="finalized"):
        tf.get_variable("v", [1])
    assert len(graph.get_operations()) == 1


def test_get_tensor_and_operation_by_name(graph):
    with tf.name_scope("s"):
        a = tf.constant(1.0, name="a")
    x, y = tf.split(tf.constant([1.0, 2.0]), 2, name="parts")
    assert graph.get_tensor_by_name("s/a:0") is a
    assert graph.get_operation_by_name("s/a") is a.op
    assert graph.get_tensor_by_name("parts:1") is y and x.name == "parts:0"
    assert graph.as_graph_element("s/a:0") is a
    assert graph.as_graph_element("s/a") is a.op
    with pytest.raises(ValueError, match="Operation name"):
        graph.get_tensor_by_name("s/a")
    with pytest.raises(KeyError, match="missing"):
        graph.get_tensor_by_name("missing:0")
    with pytest.raises(KeyError, match="parts:2"):
        graph.get_tensor_by_name("parts:2")
    with pytest.raises(KeyError, match="nope"):
        graph.get_operation_by_name("nope")


def test_tensor_is_not_a_bool_or_iterable(graph):
    t = tf.constant([1.0, 2.0])
    with pytest.raises(TypeError):
        bool(t)
    with pytest.raises(TypeError):
        iter(t)
    with pytest.raises(TypeError):
        len(t)


# ------------------------------------------------------------------ static shapes
def test_static_shape_inference(graph):
    x = tf.placeholder(tf.float32, [None, 784])
    w = tf.Variable(tf.zeros([784, 10]))
    logits = tf.matmul(x, w) + tf.zeros([10])
    assert logits.shape == [None, 10]
    assert tf.reduce_sum(logits, axis=1).shape == [None]
    assert tf.reduce_mean(logits, axis=[0, 1], keepdims=True).shape == [1, 1]
    assert tf.reduce_max(logits).shape == []
    assert tf.argmax(logits, 1).shape == [None] and tf.argmax(logits, 1).dtype == tf.int64
    assert tf.reshape(x, [-1, 28, 28, 1]).shape == [None, 28, 28, 1]
    assert tf.transpose(tf.zeros([2, 3, 4]), [2, 0, 1]).shape == [4, 2, 3]
    assert tf.concat([tf.zeros([2, 3]), tf.zeros([5, 3])], 0).shape == [7, 3]
    assert tf.stack([tf.zeros([2]), tf.zeros([2])], 1).shape == [2, 2]
    assert [p.shape for p in tf.split(tf.zeros([6, 2]), [1, 2, 3])] == [[1, 2], [2, 2], [3, 2]]
    assert tf.expand_dims(tf.zeros([2, 3]), 1).shape == [2, 1, 3]
    assert tf.squeeze(tf.zeros([1, 3, 1])).shape == [3]
    assert tf.tile(tf.zeros([2, 3]), [2, 1]).shape == [4, 3]
    assert tf.pad(tf.zeros([2, 3]), [[1, 1], [0, 2]]).shape == [4, 5]
    assert tf.gather(tf.zeros([5, 3]), tf.constant([[0, 1]])).shape == [1, 2, 3]
    assert tf.one_hot(tf.constant([1, 2]), 4).shape == [2, 4]
    assert tf.matmul(tf.zeros([7, 2, 3]), tf.zeros([3, 4])).shape == [7, 2, 4]
    assert tf.matmul(tf.zeros([3, 2]), tf.zeros([3, 4]), transpose_a=True).shape == [2, 4]
    assert (tf.zeros([3, 1]) + tf.zeros([4])).shape == [3, 4]
    assert tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=tf.zeros([5, 3]), logits=tf.zeros([5, 3])).shape == [5]
    assert tf.shape(x).shape == [2] and tf.shape(x).dtype == tf.int32


@pytest.mark.parametrize("make, expected", [
    (lambda i: tf.reduce_mean(i), 2),                      # 11 / 4 truncates, as TF
    (lambda i: tf.reduce_mean(i, axis=1), [1, 4]),
    (lambda i: tf.reduce_mean(-i, axis=1), [-1, -4]),      # toward zero
    (lambda i: tf.reduce_sum(i, axis=0, keepdims=True), [[5, 6]]),
    (lambda i: tf.reduce_prod(i), 32),
    (lambda i: tf.reduce_max(i, axis=0), [4, 4]),
    (lambda i: tf.reduce_sum(tf.cast(tf.greater(i, 1), tf.int32)), 3),
])
def test_integer_reductions_keep_their_dtype(graph, make, expected):
    t = make(tf.constant([[1, 2], [4, 4]]))
    out = _run(t)
    assert t.dtype == tf.int32 and np.asarray(out).dtype == np.int32
    np.testing.assert_array_equal(out, expected)


def test_reducing_bools_is_a_type_error_as_tf(graph):
    with pytest.raises(TypeError, match="bool"):
        tf.reduce_sum(tf.greater(tf.constant([1, 2]), 1))


def test_matmul_shape_mismatch_names_op_and_shapes(graph):
    a = tf.placeholder(tf.float32, [2, 3])
    b = tf.placeholder(tf.float32, [4, 5])
    with pytest.raises(ValueError) as info:
        tf.matmul(a, b, name="logits")
    msg = str(info.value)
    assert "logits" in msg and "(2, 3)" in msg and "(4, 5)" in msg
    with pytest.raises(ValueError, match="MatMul"):
        a @ b
    with pytest.raises(ValueError, match="rank"):
        tf.matmul(tf.zeros([3]), tf.zeros([3, 2]))


def test_broadcast_mismatch_names_op_and_shapes(graph):
    a = tf.placeholder(tf.float32, [2, 3])
    b = tf.placeholder(tf.float32, [4, 3])
    with pytest.raises(ValueError) as info:
        tf.add(a, b, name="bad_sum")
    msg = str(info.value)
    assert "bad_sum" in msg and "(2, 3)" in msg and "(4, 3)" in msg
    with pytest.raises(ValueError, match=r"Mul.*\(2, 3\).*\(4, 3\)"):
        a * b
    with pytest.raises(ValueError, match=r"Select"):
        tf.where(tf.zeros([2, 3], tf.bool), a, b)


def test_reshape_mismatch_names_op_and_shapes(graph):
    a = tf.placeholder(tf.float32, [2, 3])
    with pytest.raises(ValueError, match=r"Reshape 'flat'.*\(2, 3\).*\[4\]"):
        tf.reshape(a, [4], name="flat")
    with pytest.raises(ValueError, match=r"Reshape.*\(2, 3\).*\[4, -1\]"):
        tf.reshape(a, [4, -1])
    with pytest.raises(ValueError, match="-1"):
        tf.reshape(a, [-1, -1])


@pytest.mark.parametrize("make, match", [
    (lambda a: tf.concat([a, tf.zeros([2, 4])], 0), r"concat.*\(2, 3\).*\(2, 4\)"),
    (lambda a: tf.transpose(a, [0, 0]), "permutation"),
    (lambda a: tf.squeeze(a, [0]), "squeeze"),
    (lambda a: tf.split(a, 2, axis=1), "divisible"),
    (lambda a: tf.reduce_sum(a, axis=2), "out of range"),
    (lambda a: tf.expand_dims(a, 4), "out of range"),
    (lambda a: tf.pad(a, [[1, 1]]), "paddings"),
    (lambda a: tf.nn.bias_add(a, tf.zeros([4])), r"BiasAdd.*\(4,\).*\(2, 3\)"),
    (lambda a: tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.zeros([2, 4]), logits=a),
     r"\(2, 4\).*\(2, 3\)"),
    (lambda a: a[2], r"out of bounds.*\(2, 3\)"),
    (lambda a: a[0, 0, 0], "Too many indices"),
    (lambda a: tf.assign(tf.Variable(tf.zeros([3])), a), r"\(2, 3\).*\(3,\)"),
    (lambda a: tf.add_n([a, tf.zeros([4, 3])]), r"AddN.*\(2, 3\).*\(4, 3\)"),
])
def test_build_time_shape_errors(graph, make, match):
    a = tf.placeholder(tf.float32, [2, 3])
    with pytest.raises(ValueError, match=match):
        make(a)


@pytest.mark.parametrize("make", [
    lambda f, i: f + i,
    lambda f, i: tf.matmul(tf.zeros([2, 2]), tf.zeros([2, 2], tf.float64)),
    lambda f, i: tf.concat([f, tf.cast(i, tf.float64)], 0),
    lambda f, i: tf.add_n([f, tf.cast(f, tf.float64)]),
    lambda f, i: tf.gather(f, tf.constant([0.5])),
    lambda f, i: tf.nn.softplus(i),  # (tf.nn.relu takes integers, as TF 2.15's Relu)
])
def test_dtype_mismatch_raises_type_error(graph, make):
    f = tf.placeholder(tf.float32, [2])
    i = tf.placeholder(tf.int32, [2])
    with pytest.raises(TypeError, match="dtype|float|int"):
        make(f, i)


def test_convert_to_tensor_dtype_conflict(graph):
    t = tf.constant([1.0])
    with pytest.raises(ValueError, match="float64"):
        tf.convert_to_tensor(t, dtype=tf.float64)
    with pytest.raises(TypeError, match="int32"):
        tf.constant(1.5, dtype=tf.int32)


def test_python_constants_take_tensor_dtype(graph):
    x = tf.placeholder(tf.float64, [2])
    assert (x + 1).dtype == tf.float64 and (2.0 * x).dtype == tf.float64
    assert tf.constant(1.0).dtype == tf.float32 and tf.constant(1).dtype == tf.int32
    assert (tf.constant(7) / 2).dtype == tf.float64  # integer true division


# ------------------------------------------------------------------ Tensor operators
A = np.array([[1.5, -2.0, 3.0], [4.0, 5.5, -6.0]])
B = np.array([2.0, -3.0, 1.5])

OPERATORS = {
    "add": (lambda a, b: a + b, lambda a, b: a + b),
    "radd_python": (lambda a, b: 2.0 + a, lambda a, b: 2.0 + a),
    "radd_numpy": (lambda a, b: np.ones(3) + a, lambda a, b: np.ones(3) + a),
    "sub": (lambda a, b: a - b, lambda a, b: a - b),
    "rsub": (lambda a, b: 1.0 - a, lambda a, b: 1.0 - a),
    "mul": (lambda a, b: a * b, lambda a, b: a * b),
    "rmul_numpy": (lambda a, b: B * a, lambda a, b: B * a),
    "truediv": (lambda a, b: a / b, lambda a, b: a / b),
    "rtruediv": (lambda a, b: 1.0 / a, lambda a, b: 1.0 / a),
    "floordiv": (lambda a, b: a // b, lambda a, b: a // b),
    "mod": (lambda a, b: a % b, lambda a, b: a % b),
    "pow": (lambda a, b: abs(a) ** b, lambda a, b: abs(a) ** b),
    "rpow": (lambda a, b: 2.0 ** a, lambda a, b: 2.0 ** a),
    "neg": (lambda a, b: -a, lambda a, b: -a),
    "abs": (lambda a, b: abs(a), lambda a, b: abs(a)),
    "matmul": (lambda a, b: a @ tf.transpose(a), lambda a, b: a @ a.T),
    "rmatmul_numpy": (lambda a, b: np.ones((2, 2)) @ a, lambda a, b: np.ones((2, 2)) @ a),
    "lt": (lambda a, b: a < b, lambda a, b: a < b),
    "le": (lambda a, b: a <= 1.5, lambda a, b: a <= 1.5),
    "gt": (lambda a, b: a > b, lambda a, b: a > b),
    "ge": (lambda a, b: a >= b, lambda a, b: a >= b),
    "and": (lambda a, b: (a > 0) & (b > 0), lambda a, b: (a > 0) & (b > 0)),
    "or": (lambda a, b: (a > 0) | (b > 0), lambda a, b: (a > 0) | (b > 0)),
    "invert": (lambda a, b: ~(a > 0), lambda a, b: ~(a > 0)),
}


@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_tensor_operators_match_numpy(graph, name):
    symbolic, numeric = OPERATORS[name]
    t = symbolic(tf.constant(A, tf.float64), tf.constant(B, tf.float64))
    expected = numeric(A, B)
    assert t.shape == expected.shape
    out = _run(t)
    assert out.dtype == expected.dtype
    np.testing.assert_allclose(out, expected, rtol=1e-12)


def test_variable_operators(graph):
    v = tf.Variable(np.array([1.0, 2.0]), dtype=tf.float64)
    m = tf.Variable(np.array([[1.0, 2.0]]), dtype=tf.float64)
    out = _run([v + 1.0, 2.0 * v, v[1], -v, m @ tf.ones([2, 1], tf.float64)])
    np.testing.assert_allclose(out[0], [2.0, 3.0])
    np.testing.assert_allclose(out[1], [2.0, 4.0])
    assert out[2] == 2.0
    np.testing.assert_allclose(out[3], [-1.0, -2.0])
    np.testing.assert_allclose(out[4], [[3.0]])


X = np.arange(24.0).reshape(2, 3, 4)
SLICES = [np.s_[1], np.s_[-1, ::2], np.s_[..., 1], np.s_[:, None, 1:3], np.s_[::-1, 1, ::-2],
          np.s_[0, ..., None], np.s_[1:100], np.s_[-5:2], np.s_[:, -1], np.s_[1, 2, 3],
          np.s_[np.int64(1)], np.s_[:, 1:1]]


@pytest.mark.parametrize("key", SLICES, ids=[str(i) for i in range(len(SLICES))])
def test_getitem_matches_numpy(graph, key):
    t = tf.constant(X, tf.float64)[key]
    assert t.shape == X[key].shape
    np.testing.assert_array_equal(_run(t), X[key])


def test_getitem_with_unknown_dims(graph):
    x = tf.placeholder(tf.float64, [None, 4])
    t = x[1:, ::2]
    assert t.shape == [None, 2]
    np.testing.assert_array_equal(_run(t, {x: X[0]}), X[0][1:, ::2])


def test_getitem_rejects_unsupported_keys(graph):
    t = tf.constant(X)
    with pytest.raises(TypeError):
        t[1.5]
    with pytest.raises(TypeError):  # int tensor bounds are supported (as TF); float ones not
        t[tf.constant(1.5):]
    np.testing.assert_array_equal(tf.Session().run(t[tf.constant(1):]), X[1:])


def test_build_errors_name_the_op_as_it_would_be_named():
    g = tf.Graph()
    with g.as_default(), tf.name_scope("layer"):
        with pytest.raises(ValueError, match=r"'layer/MatMul' \(MatMul\).*\(\?, 3\) and "
                                             r"\(4, 2\)"):
            tf.matmul(tf.placeholder(tf.float32, [None, 3]), tf.ones([4, 2]))
        with pytest.raises(ValueError, match=r"'layer/add' \(Add\).*\(2, 3\) and \(4,\)"):
            tf.placeholder(tf.float32, [2, 3]) + tf.ones([4])
