"""``set_iteration_per_loop`` / ``IterationPerLoop``: the sess.run path of the device loop."""
import logging

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.engine.config_pb import set_npu_settings
from estimator_npu.npu import util

LOGGER = "estimator_npu"


def _model(rng, lr=0.1):
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    w = tf.Variable(tf.zeros([4, 1]), name="w")
    cost = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
    gs = tf.train.get_or_create_global_step()
    train_op = tf.train.GradientDescentOptimizer(lr).minimize(cost, global_step=gs)
    data = {x: rng.random((8, 4), dtype=np.float32), y: rng.random((8, 1), dtype=np.float32)}
    return x, y, w, cost, train_op, gs, data


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def test_train_op_must_be_an_operation():
    t = tf.constant(1.0)
    with tf.Session() as sess:
        with pytest.raises(ValueError, match="The incoming 'train_op' type is 'Tensor', and "
                                             "the need type is 'Operation'"):
            util.set_iteration_per_loop(sess, t, 10)
        with pytest.raises(ValueError, match="type is 'Tensor'"):
            util.IterationPerLoop().create_iteration_per_loop_var(t)


@pytest.mark.parametrize("bad", [0, -3])
def test_iterations_per_loop_must_be_positive(bad):
    op = tf.no_op()
    with tf.Session() as sess:
        with pytest.raises(ValueError, match="iterations_per_loop"):
            util.set_iteration_per_loop(sess, op, bad)


def test_one_iteration_returns_the_train_op_and_inserts_nothing(caplog):
    rng = np.random.default_rng(0)
    *_, train_op, _, _ = _model(rng)
    n_ops = len(tf.get_default_graph().get_operations())
    with caplog.at_level(logging.INFO, logger=LOGGER), tf.Session() as sess:
        assert util.set_iteration_per_loop(sess, train_op, 1) is train_op
    assert len(tf.get_default_graph().get_operations()) == n_ops
    assert "Insert op success" not in caplog.text


def test_loop_variables_group_op_and_log_lines(caplog):
    rng = np.random.default_rng(0)
    *_, train_op, _, _ = _model(rng)
    with caplog.at_level(logging.INFO, logger=LOGGER), tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        op = util.set_iteration_per_loop(sess, train_op, 10)
        g = tf.get_default_graph()
        for name in ("iterations_per_loop", "loop_cond", "zero", "one"):
            v = g.get_tensor_by_name(f"npu_runconfig/{name}:0")
            assert v.dtype == tf.int64
        assert sess.run("npu_runconfig/iterations_per_loop:0") == 10
        local_names = {v.op.name for v in tf.local_variables()}
        assert "npu_runconfig/iterations_per_loop" in local_names
        assert not any(v.op.name.startswith("npu_runconfig") for v in tf.trainable_variables())
    assert op.name == "IterationOp" and isinstance(op, tf.Operation)
    lines = [r.getMessage() for r in caplog.records]
    assert any(m.startswith("Insert op success, name:") and m.endswith(".") for m in lines)
    assert "load iterations_per_loop value 10" in lines


def test_one_call_of_a_ten_iteration_loop_equals_ten_plain_steps():
    rng = np.random.default_rng(1)
    x, y, w, cost, train_op, gs, data = _model(rng)
    with tf.Session() as plain:
        plain.run(tf.global_variables_initializer())
        costs = [plain.run([train_op, cost], feed_dict=data)[1] for _ in range(10)]
        w_plain = plain.run(w)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        loop_op = util.set_iteration_per_loop(sess, train_op, 10)
        _, c = sess.run([loop_op, cost], feed_dict=data)
        assert sess.run(gs) == 10
        np.testing.assert_array_equal(sess.run(w), w_plain)
        assert c == costs[-1]          # fetches come from the last iteration
        # fetch order does not matter: cost still comes from the last iteration
        c2, _ = sess.run([cost, loop_op], feed_dict=data)
        assert sess.run(gs) == 20
        plain_more = None
    with tf.Session() as plain:
        plain.run(tf.global_variables_initializer())
        for _ in range(20):
            plain_more = plain.run([train_op, cost], feed_dict=data)[1]
    assert c2 == plain_more


def test_iteration_per_loop_after_the_graph_is_frozen(tmp_path):
    rng = np.random.default_rng(2)
    x, y, w, cost, train_op, gs, data = _model(rng)
    init = tf.global_variables_initializer()
    with tf.Session() as sess:
        sess.run(init)
        iteration = util.IterationPerLoop()
        loop_op = iteration.create_iteration_per_loop_var(train_op)
        tf.train.Supervisor(logdir=str(tmp_path), init_op=init)
        g = tf.get_default_graph()
        assert g.finalized
        n_ops = len(g.get_operations())
        assert iteration.load_iteration_per_loop_var(sess, 5) is None
        assert len(g.get_operations()) == n_ops
        sess.run(loop_op, feed_dict=data)
        assert sess.run(gs) == 5
        iteration.load_iteration_per_loop_var(sess, 3)
        sess.run(loop_op, feed_dict=data)
        assert sess.run(gs) == 8
        with pytest.raises(RuntimeError, match="finalized"):
            util.set_iteration_per_loop(sess, train_op, 4)


def test_warning_when_session_config_disagrees(caplog):
    rng = np.random.default_rng(0)
    *_, train_op, _, _ = _model(rng)
    config = tf.ConfigProto()
    set_npu_settings(config, {"iterations_per_loop": 10})
    with caplog.at_level(logging.WARNING, logger=LOGGER), tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        util.set_iteration_per_loop(sess, train_op, 5)
    assert any("10" in r.getMessage() and "5" in r.getMessage() for r in caplog.records
               if r.levelno == logging.WARNING)


def _iterator_model(kind, n=25, batch=2):
    feats = np.arange(n * 2, dtype=np.float32).reshape(n, 2)
    ds = tf.data.Dataset.from_tensor_slices(feats).batch(batch, drop_remainder=True)
    it = ds.make_initializable_iterator() if kind == "initializable" else \
        ds.make_one_shot_iterator()
    x = it.get_next()
    seen = tf.Variable(0.0, name="seen")
    gs = tf.train.get_or_create_global_step()
    with tf.control_dependencies([tf.assign_add(seen, tf.reduce_sum(x))]):
        train_op = tf.assign_add(gs, 1).op
    return it, seen, gs, train_op, feats


def test_initializable_iterator_pulls_a_batch_per_iteration_and_stops_cleanly():
    it, seen, gs, train_op, feats = _iterator_model("initializable")
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), it.initializer])
        loop_op = util.set_iteration_per_loop(sess, train_op, 5)
        sess.run(loop_op)
        assert sess.run(gs) == 5
        np.testing.assert_allclose(sess.run(seen), feats[:10].sum())
        sess.run(loop_op)
        assert sess.run(gs) == 10
        # 12 full batches exist: the third call stops after the last complete step
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(loop_op)
        assert sess.run(gs) == 12
        np.testing.assert_allclose(sess.run(seen), feats[:24].sum())


def test_one_shot_iterator_runs_one_step_per_call_and_warns(caplog):
    it, seen, gs, train_op, feats = _iterator_model("one_shot")
    with caplog.at_level(logging.WARNING, logger=LOGGER), tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        loop_op = util.set_iteration_per_loop(sess, train_op, 5)
        sess.run(loop_op)
        assert sess.run(gs) == 1
    assert any("one-shot" in r.getMessage() and "one training step" in r.getMessage()
               for r in caplog.records)


def test_an_error_inside_the_loop_names_the_failing_op_in_the_body():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable(tf.ones([2, 1]), name="w")
    rows = tf.reshape(x, [-1, 4], name="needs_four")   # fails at run time for odd rows
    gs = tf.train.get_or_create_global_step()
    with tf.control_dependencies([rows]):
        train_op = tf.group(tf.assign_add(gs, 1), tf.assign_add(w, tf.ones([2, 1])))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        loop_op = util.set_iteration_per_loop(sess, train_op, 4)
        sess.run(loop_op, feed_dict={x: np.ones((2, 2), np.float32)})
        assert sess.run(gs) == 4
        with pytest.raises(tf.errors.InvalidArgumentError, match="needs_four") as info:
            sess.run(loop_op, feed_dict={x: np.ones((1, 2), np.float32)})
        assert "IterationOp" not in str(info.value)
