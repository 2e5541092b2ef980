"""Session: fetch structures, feeds and their errors, variables per session, default
sessions, and one compilation per (fetches, feeds) signature."""
import collections

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import errors

Pair = collections.namedtuple("Pair", ["first", "second"])
Other = collections.namedtuple("Other", ["left", "right"])


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


@pytest.fixture
def sess(graph):
    s = tf.Session(graph=graph)
    yield s
    s.close()


# ------------------------------------------------------------------ fetch structures
def test_fetch_single_tensor_returns_array(sess):
    a = tf.constant([1.0, 2.0])
    out = sess.run(a * 2.0)
    assert isinstance(out, np.ndarray) and out.dtype == np.float32
    np.testing.assert_array_equal(out, [2.0, 4.0])


def test_fetch_nested_structures(sess):
    a, b, c = tf.constant(1.0), tf.constant(2), tf.constant([3.0, 4.0])
    op = tf.no_op()
    out = sess.run({"x": [a, (b, c)], "y": Pair(a, {"z": op}), "w": op})
    assert set(out) == {"x", "y", "w"}
    assert isinstance(out["x"], list) and isinstance(out["x"][1], tuple)
    assert out["x"][0] == 1.0 and out["x"][1][0] == 2
    np.testing.assert_array_equal(out["x"][1][1], [3.0, 4.0])
    assert isinstance(out["y"], Pair) and out["y"].first == 1.0
    assert out["y"].second == {"z": None}
    assert out["w"] is None


def test_fetch_list_tuple_and_namedtuple(sess):
    a, b = tf.constant(1.0), tf.constant(2.0)
    assert sess.run([a, b]) == [1.0, 2.0] and isinstance(sess.run([a, b]), list)
    assert sess.run((a, b)) == (1.0, 2.0) and isinstance(sess.run((a, b)), tuple)
    pair = sess.run(Pair(a, b))
    assert isinstance(pair, Pair) and pair == (1.0, 2.0)
    assert sess.run([]) == []


def test_same_tensors_in_different_namedtuple_types(sess):
    a, b = tf.constant(1.0), tf.constant(2.0)
    assert type(sess.run(Pair(a, b))) is Pair
    assert type(sess.run(Other(a, b))) is Other


def test_operation_fetches_none(sess):
    a = tf.constant(1.0)
    assert sess.run(tf.no_op()) is None
    assert sess.run([tf.group(a), a]) == [None, 1.0]


def test_same_tensor_fetched_twice(sess):
    a = tf.constant(3.0)
    assert sess.run([a, a, {"k": a}]) == [3.0, 3.0, {"k": 3.0}]


def test_fetch_by_name(sess, graph):
    x = tf.constant(2.0, name="two")
    y = tf.multiply(x, 3.0, name="six")
    assert sess.run("six:0") == 6.0
    assert sess.run(["two:0", y.name]) == [2.0, 6.0]
    assert sess.run("six") is None  # an operation name fetches the op
    with pytest.raises(KeyError, match="nope"):
        sess.run("nope:0")


def test_fetch_invalid_types(sess):
    a = tf.constant(1.0)
    with pytest.raises(TypeError, match="None"):
        sess.run([a, None])
    with pytest.raises(TypeError, match="invalid type"):
        sess.run(3)


def test_fetch_from_other_graph_raises(sess):
    other = tf.Graph()
    with other.as_default():
        t = tf.constant(1.0)
    with pytest.raises(ValueError, match="not an element of this graph"):
        sess.run(t)


# ------------------------------------------------------------------ feeds
def test_feed_placeholder_and_replay_with_new_values(sess):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.reduce_sum(x, axis=1)
    np.testing.assert_allclose(sess.run(y, {x: [[1, 2], [3, 4]]}), [3, 7])
    np.testing.assert_allclose(sess.run(y, {x: np.ones((3, 2))}), [2, 2, 2])


def test_feed_by_name_string(sess):
    x = tf.placeholder(tf.float32, [2], name="inp")
    y = x * 3.0
    np.testing.assert_allclose(sess.run(y, {"inp:0": [1.0, 2.0]}), [3.0, 6.0])


def test_feed_a_non_placeholder_tensor(sess):
    x = tf.placeholder(tf.float32, [2])
    h = x * 3.0
    y = h + 1.0
    # h is fed, so x is not needed.
    np.testing.assert_allclose(sess.run(y, {h: [10.0, 20.0]}), [11.0, 21.0])
    v = tf.Variable([1.0, 2.0])
    np.testing.assert_allclose(sess.run(v * 2.0, {v: [5.0, 6.0]}), [10.0, 12.0])


def test_feed_converts_compatible_dtypes(sess):
    x = tf.placeholder(tf.float32, [2])
    out = sess.run(x * 1.0, {x: np.array([1.0, 2.0], np.float64)})
    assert out.dtype == np.float32
    assert sess.run(x, {x: [1, 2]}).dtype == np.float32


def test_feed_wrong_shape_names_placeholder_and_both_shapes(sess):
    x = tf.placeholder(tf.float32, [None, 3], name="images")
    with pytest.raises(ValueError) as info:
        sess.run(x * 2.0, {x: np.ones((2, 4))})
    msg = str(info.value)
    assert "images" in msg and "(2, 4)" in msg and "(?, 3)" in msg
    with pytest.raises(ValueError, match=r"images.*\(\?, 3\)"):
        sess.run(x * 2.0, {x: np.ones(3)})


def test_feed_checks_after_a_steady_state_of_accepted_arrays(sess):
    # a loop feeding arrays of one shape and dtype takes the converter's fast path; any
    # other value is still checked and converted
    x = tf.placeholder(tf.float32, [None, 3], name="images")
    y = x * 2.0
    ok = np.ones((2, 3), np.float32)
    for _ in range(3):
        np.testing.assert_array_equal(sess.run(y, {x: ok}), 2 * ok)
    assert sess.run(x, {x: ok}) is ok  # fed arrays of the dtype are not copied
    wide = sess.run(x, {x: np.full((2, 3), 1.5)})  # float64: converted
    assert wide.dtype == np.float32 and wide[0, 0] == 1.5
    assert sess.run(x, {x: [[1, 2, 3]]}).dtype == np.float32
    with pytest.raises(ValueError, match=r"\(2, 4\) for placeholder 'images'"):
        sess.run(y, {x: np.ones((2, 4), np.float32)})
    with pytest.raises(ValueError, match=r"images.*\(\?, 3\)"):
        sess.run(y, {x: np.ones((2, 3, 1), np.float32)})
    np.testing.assert_array_equal(sess.run(y, {x: ok}), 2 * ok)


def test_feed_wrong_shape_of_scalar_placeholder(sess):
    x = tf.placeholder(tf.float32, [], name="lr")
    with pytest.raises(ValueError, match=r"lr.*\(\)"):
        sess.run(x, {x: [0.1]})


def test_feed_wrong_dtype_names_placeholder_and_dtypes(sess):
    i = tf.placeholder(tf.int32, [2], name="labels")
    with pytest.raises(ValueError) as info:
        sess.run(i, {i: np.array(["0.5", "x"])})
    msg = str(info.value)
    assert "labels" in msg and "int32" in msg and "<U3" in msg
    # Floats fed to an int placeholder are truncated as TF1's np.asarray(value, dtype) does
    # (below), so the wrong dtype here is a string one.


@pytest.mark.parametrize("value", [[1.5, -2.7, 3.0], np.array([1.5, -2.7, 3.0]),
                                   np.array([1.5, -2.7, 3.0], np.float32)])
def test_floats_fed_to_int_placeholder_truncate_toward_zero_as_tf1(sess, value):
    # real TF 2.15 compat.v1: sess.run(i, {i: [1.5]}) -> [1], a list or an array alike
    i = tf.placeholder(tf.int32, [None], name="labels")
    got = sess.run(i, {i: value})
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, [1, -2, 3])


def test_feed_string_to_float_placeholder_names_it(sess):
    x = tf.placeholder(tf.float32, [1], name="features")
    with pytest.raises(ValueError, match="features"):
        sess.run(x, {x: ["abc"]})


def test_feed_an_operation_raises(sess):
    op = tf.no_op(name="noop")
    with pytest.raises(TypeError, match="noop"):
        sess.run(tf.constant(1.0), {op: 1.0})


def test_unfed_placeholder_raises_invalid_argument_naming_it(sess):
    x = tf.placeholder(tf.float32, [2], name="needed")
    tf.placeholder(tf.float32, [2], name="unused")
    y = x + 1.0
    with pytest.raises(errors.InvalidArgumentError, match="needed") as info:
        sess.run(y)
    assert info.value.op.name == "needed"
    assert "unused" not in str(info.value)
    # an unneeded placeholder may stay unfed
    assert sess.run(tf.constant(1.0)) == 1.0


def test_placeholder_with_default_needs_no_feed(sess):
    x = tf.placeholder_with_default(tf.constant([1.0, 2.0]), [None])
    np.testing.assert_allclose(sess.run(x * 2.0), [2.0, 4.0])
    np.testing.assert_allclose(sess.run(x * 2.0, {x: [5.0]}), [10.0])


# ------------------------------------------------------------------ variables
def test_uninitialized_variable_raises_failed_precondition_naming_it(sess):
    v = tf.Variable([1.0, 2.0], name="weights")
    for fetch in (v, v * 2.0, v.assign_add([1.0, 1.0])):
        with pytest.raises(errors.FailedPreconditionError, match="weights"):
            sess.run(fetch)
    sess.run(v.initializer)
    np.testing.assert_allclose(sess.run(v * 2.0), [2.0, 4.0])


def test_fetching_a_variable_returns_a_copy(sess):
    v = tf.Variable([1.0, 2.0])
    inc = v.assign_add([1.0, 1.0])
    sess.run(v.initializer)
    before = sess.run(v)
    after_inc = sess.run(inc)
    sess.run(inc)
    np.testing.assert_allclose(before, [1.0, 2.0])
    np.testing.assert_allclose(after_inc, [2.0, 3.0])
    np.testing.assert_allclose(sess.run(v), [3.0, 4.0])
    before[0] = 100.0  # mutating a fetched value does not touch the variable
    np.testing.assert_allclose(sess.run(v), [3.0, 4.0])


def test_two_sessions_have_independent_variables(graph):
    v = tf.Variable(0.0)
    inc = v.assign_add(1.0)
    with tf.Session(graph=graph) as s1, tf.Session(graph=graph) as s2:
        s1.run(v.initializer)
        s2.run(v.initializer)
        s1.run(inc)
        s1.run(inc)
        s2.run(inc)
        assert s1.run(v) == 2.0 and s2.run(v) == 1.0
    s3 = tf.Session(graph=graph)
    with pytest.raises(errors.FailedPreconditionError):
        s3.run(v)


def test_global_variables_initializer_and_assign(sess):
    a = tf.Variable(1.0)
    b = tf.Variable([2.0, 3.0])
    sess.run(tf.global_variables_initializer())
    assert sess.run(a) == 1.0
    sess.run(tf.assign(b, [5.0, 6.0]))
    np.testing.assert_allclose(sess.run(b), [5.0, 6.0])
    sess.run(b.assign_sub([1.0, 1.0]))
    np.testing.assert_allclose(sess.run(b.read_value()), [4.0, 5.0])


def test_initializer_may_read_a_variable_initialized_in_the_same_run(sess):
    # TF1 guards initial values against uninitialized dependencies, so this works there.
    a = tf.Variable(2.0, name="a")
    b = tf.Variable(a * 3.0, name="b")
    sess.run(tf.global_variables_initializer())
    assert sess.run(b) == 6.0


def test_variable_load_uninitialized_and_after_finalize(graph, sess):
    v = tf.Variable([1.0, 2.0], name="v")
    w = tf.Variable(3.0, name="w")
    graph.finalize()
    n_ops = len(graph.get_operations())
    v.load([7.0, 8.0], sess)  # not initialized yet
    np.testing.assert_allclose(sess.run(v), [7.0, 8.0])
    v.load(np.array([9.0, 10.0]), session=sess)  # initialized: in place
    np.testing.assert_allclose(sess.run(v), [9.0, 10.0])
    with sess.as_default():
        w.load(4.0)
    assert sess.run(w) == 4.0
    assert len(graph.get_operations()) == n_ops
    with pytest.raises(ValueError, match=r"v.*\(2,\)"):
        v.load([1.0, 2.0, 3.0], sess)


def test_variable_load_is_per_session(graph):
    v = tf.Variable(0.0)
    with tf.Session(graph=graph) as s1, tf.Session(graph=graph) as s2:
        v.load(1.0, s1)
        v.load(2.0, s2)
        assert s1.run(v) == 1.0 and s2.run(v) == 2.0


# ------------------------------------------------------------------ errors inside kernels
def test_kernel_error_becomes_invalid_argument_naming_the_op(sess):
    z = tf.placeholder(tf.float32, [None])
    r = tf.reshape(z, [2, 2], name="my_reshape")
    with pytest.raises(errors.InvalidArgumentError, match="my_reshape") as info:
        sess.run(r, {z: np.ones(3)})
    assert info.value.op is r.op
    np.testing.assert_allclose(sess.run(r, {z: np.ones(4)}), np.ones((2, 2)))


def test_label_out_of_range_is_invalid_argument(sess):
    labels = tf.placeholder(tf.int32, [2])
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                          logits=tf.zeros([2, 3]),
                                                          name="xent")
    with pytest.raises(errors.InvalidArgumentError, match="xent"):
        sess.run(loss, {labels: [0, 5]})


# ------------------------------------------------------------------ finalized graph
def test_finalized_graph_refuses_new_ops(graph, sess):
    a = tf.constant(1.0)
    graph.finalize()
    assert graph.finalized
    for make in (lambda: tf.constant(2.0), lambda: a + 1.0, lambda: tf.Variable(1.0),
                 lambda: tf.no_op(), lambda: tf.add_to_collection("c", a)):
        with pytest.raises(RuntimeError, match="finalized"):
            make()
    assert sess.run(a) == 1.0  # running needs no new ops


# ------------------------------------------------------------------ compilation cache
def test_each_signature_compiles_once(sess):
    x = tf.placeholder(tf.float32, [None])
    y = x * 2.0
    z = y + 1.0
    start = sess.compile_count
    for i in range(5):
        sess.run(y, {x: np.arange(i + 1.0)})
    assert sess.compile_count == start + 1
    for i in range(3):
        sess.run([y, z], {x: [1.0]})
        sess.run({"y": y, "z": z}, {x: [1.0]})
        sess.run(Pair(y, z), {x: [2.0]})
    assert sess.compile_count == start + 4
    sess.run(z, {x: [1.0]})
    sess.run(z, {x: [1.0], y: [3.0]})  # a different set of fed tensors
    sess.run(z, {y: [3.0]})
    assert sess.compile_count == start + 7
    for _ in range(3):
        sess.run(z, {x: [1.0]})
        sess.run(z, {x: [1.0], y: [3.0]})
    assert sess.compile_count == start + 7


def test_new_value_with_same_signature_does_not_recompile(sess):
    v = tf.Variable(1.0)
    sess.run(v.initializer)
    inc = v.assign_add(1.0)
    n = sess.compile_count
    for _ in range(10):
        sess.run(inc)
    assert sess.compile_count == n + 1
    assert sess.run(v) == 11.0


def test_compile_count_is_per_session(graph):
    a = tf.constant(1.0)
    with tf.Session(graph=graph) as s1, tf.Session(graph=graph) as s2:
        s1.run(a)
        s1.run(a)
        assert s1.compile_count == 1 and s2.compile_count == 0


# ------------------------------------------------------------------ default sessions
def test_context_manager_sets_default_session_and_closes(graph):
    a = tf.constant(5.0)
    assert tf.get_default_session() is None
    with tf.Session(graph=graph) as s:
        assert tf.get_default_session() is s
        assert a.eval() == 5.0
    assert tf.get_default_session() is None
    with pytest.raises(RuntimeError, match="closed"):
        s.run(a)


def test_closed_session_raises(graph):
    s = tf.Session(graph=graph)
    a = tf.constant(1.0)
    assert s.run(a) == 1.0
    s.close()
    with pytest.raises(RuntimeError, match="closed"):
        s.run(a)


def test_eval_and_operation_run(graph):
    v = tf.Variable(1.0)
    inc = v.assign_add(2.0)
    x = tf.placeholder(tf.float32, [])
    with tf.Session(graph=graph) as s:
        v.initializer.run()
        inc.op.run()
        assert v.eval() == 3.0
        assert (x * 2.0).eval(feed_dict={x: 4.0}) == 8.0
        assert (x * 2.0).eval({x: 4.0}) == 8.0
    other = tf.Session(graph=graph)
    other.run(v.initializer)
    assert v.eval(session=other) == 1.0
    assert (v * 1.0).eval(session=other) == 1.0
    inc.op.run(session=other)
    assert other.run(v) == 3.0
    other.close()


def test_eval_without_default_session_raises(graph):
    with pytest.raises(ValueError, match="default session"):
        tf.constant(1.0).eval()


def test_interactive_session_installs_itself(graph):
    a = tf.constant(2.0)
    s = tf.InteractiveSession(graph=graph)
    try:
        assert tf.get_default_session() is s
        assert a.eval() == 2.0
    finally:
        s.close()
    assert tf.get_default_session() is None


def test_session_uses_default_graph(graph):
    a = tf.constant(7.0)
    with tf.Session() as s:
        assert s.graph is graph
        assert s.run(a) == 7.0


def test_make_callable(sess):
    x = tf.placeholder(tf.float32, [])
    f = sess.make_callable(x * 3.0, [x])
    assert f(2.0) == 6.0 and f(1.0) == 3.0


def test_fetched_scalars_are_numpy_scalars_as_tf_returns():
    # TF 2.15: sess.run of a 0-d variable gives numpy.float32 / numpy.int64, not a 0-d
    # array, so ``saver.save(sess, path, sess.run(global_step))`` takes it as an integer.
    import estimator_npu as tf
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        v = tf.Variable(1.5)
        m = tf.Variable(np.ones((2, 2), np.float32))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got_step, got_v, got_m = sess.run([step, v, m])
            assert type(got_step) is np.int64 and got_step == 0
            assert type(got_v) is np.float32 and got_v == 1.5
            assert isinstance(got_m, np.ndarray) and got_m.shape == (2, 2)
            got_m[0, 0] = 7.0  # a copy: the variable keeps its value
            assert sess.run(m)[0, 0] == 1.0


def test_fetching_a_numpy_array_is_a_type_error_naming_it():
    import estimator_npu as tf
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(TypeError, match=r"Fetch argument array\(5\) has invalid type"):
            sess.run(np.array(5))
        with pytest.raises(TypeError, match="invalid type"):
            sess.run([np.zeros(2)])


def test_numpy_object_arrays_of_numbers_feed_as_tf_converts_them():
    # TF 2.15 (checked): np.array([1, 2], dtype=object) fed to int32 gives [1, 2]; [1.5, 2]
    # is truncated to [1, 2]; a float32 placeholder takes [1.5, 2.0]; 'a' is a ValueError,
    # object() a TypeError
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.int32, [None], name="ids")
        f = tf.placeholder(tf.float32, [None], name="vals")
        y, z = x * 2, f * 2
        with tf.Session() as sess:
            np.testing.assert_array_equal(
                sess.run(y, {x: np.array([1, 2], dtype=object)}), [2, 4])
            np.testing.assert_array_equal(
                sess.run(y, {x: np.array([1.5, 2], dtype=object)}), [2, 4])
            np.testing.assert_allclose(
                sess.run(z, {f: np.array([1.5, 2], dtype=object)}), [3.0, 4.0])
            with pytest.raises(ValueError, match="dtype object for placeholder 'ids'.*'a'"):
                sess.run(y, {x: np.array(["a", 2], dtype=object)})
            with pytest.raises(TypeError, match="dtype object for placeholder 'ids'"):
                sess.run(y, {x: np.array([object()], dtype=object)})
            with pytest.raises(ValueError, match="shape \\(2, 1\\) for placeholder 'ids'"):
                sess.run(y, {x: np.array([[1], [2]], dtype=object)})
