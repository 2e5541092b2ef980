"""Supervisor: finalizes the graph; managed sessions initialize, restore and save."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import errors


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def _seed_model():
    """The seed's softmax regression (frozen-graph variant)."""
    x = tf.placeholder(tf.float32, [None, 4])
    y = tf.placeholder(tf.float32, [None, 3])
    w = tf.Variable(tf.zeros([4, 3]))
    b = tf.Variable(tf.zeros([3]))
    pred = tf.nn.softmax(tf.matmul(x, w) + b)
    cost = tf.reduce_mean(-tf.reduce_sum(y * tf.log(pred), reduction_indices=1))
    optimizer = tf.train.GradientDescentOptimizer(0.5).minimize(cost)
    return x, y, w, cost, optimizer


def test_supervisor_finalizes_the_default_graph(graph, tmp_path):
    x, y, w, cost, train_op = _seed_model()
    init = tf.global_variables_initializer()
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((8, 4)).astype(np.float32)
    ys = np.eye(3, dtype=np.float32)[rng.integers(0, 3, 8)]
    with tf.Session() as sess:
        sess.run(init)
        tf.train.Supervisor(logdir=str(tmp_path / "sv"), init_op=init)  # freeze the graph
        assert graph.finalized
        with pytest.raises(RuntimeError, match="finalized"):
            tf.constant(1.0)
        costs = [sess.run([train_op, cost], {x: xs, y: ys})[1] for _ in range(5)]
    assert costs[-1] < costs[0]
    assert not (tmp_path / "sv").exists()  # nothing written by a discarded supervisor


def test_managed_session_initializes_saves_and_restores(graph, tmp_path):
    x, y, w, cost, train_op = _seed_model()
    gs = tf.train.get_or_create_global_step()
    inc = tf.assign_add(gs, 1)
    sv = tf.train.Supervisor(logdir=str(tmp_path), init_op=tf.global_variables_initializer(),
                             global_step=gs)
    assert graph.finalized and sv.saver is not None
    feed = {x: np.ones((2, 4), np.float32), y: np.eye(3, dtype=np.float32)[:2]}
    with sv.managed_session() as sess:
        for _ in range(3):
            sess.run([train_op, inc], feed)
        w_trained = sess.run(w)
        assert not sv.should_stop()
    assert sv.should_stop()
    assert tf.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-3")
    sv2 = tf.train.Supervisor(logdir=str(tmp_path), global_step=gs)
    with sv2.managed_session() as sess:
        np.testing.assert_array_equal(sess.run(w), w_trained)
        assert sess.run(gs) == 3
        raise errors.OutOfRangeError(None, None, "end of input")  # a clean stop
    with pytest.raises(ZeroDivisionError):
        with tf.train.Supervisor(logdir=str(tmp_path), global_step=gs).managed_session():
            1 / 0
    assert tf.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-3")


def test_coordinator(graph):
    coord = tf.train.Coordinator()
    assert not coord.should_stop()
    with coord.stop_on_exception():
        raise errors.OutOfRangeError(None, None, "done")
    assert coord.should_stop()
    coord.join()
    coord.clear_stop()
    with coord.stop_on_exception():
        raise KeyError("boom")
    with pytest.raises(KeyError, match="boom"):
        coord.join()
