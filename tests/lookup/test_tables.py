"""Lookup tables in sessions: initialization per session, the Scaffold's local_init_op,
an Estimator whose model_fn builds a vocabulary table, and the errors TF gives."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import errors


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def _table():
    return tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
        ["a", "b"], np.array([4, 5], np.int64)), -1)


def test_lookup_before_initialization_fails_and_each_session_initializes(graph):
    out = _table().lookup(tf.constant(["b", "a", "q"]))
    with tf.Session() as sess:
        with pytest.raises(errors.FailedPreconditionError, match="Table not initialized"):
            sess.run(out)
        sess.run(tf.tables_initializer())
        sess.run(tf.initialize_all_tables())   # a second initialization changes nothing
        np.testing.assert_array_equal(sess.run(out), [5, 4, -1])
    with tf.Session() as sess:   # a new session starts with empty tables, as TF's
        with pytest.raises(errors.FailedPreconditionError):
            sess.run(out)


def test_table_initializers_are_collected(graph):
    t = _table()
    assert graph.get_collection(tf.GraphKeys.TABLE_INITIALIZERS) == [t.initializer]
    assert t.init is t.initializer
    assert tf.tables_initializer().type == "NoOp"


def test_monitored_session_runs_table_initializers(graph):
    out = _table().lookup(tf.constant(["a"]))
    tf.train.get_or_create_global_step()
    with tf.train.MonitoredTrainingSession() as sess:
        np.testing.assert_array_equal(sess.run(out), [4])


def test_estimator_with_a_vocabulary_table(tmp_path):
    words = np.array(["cat", "dog", "emu", "yak", "cat", "dog"] * 4, object)
    labels = np.array([0, 1, 1, 0, 0, 1] * 4, np.int64)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"w": words}, labels)).batch(6)

    def model_fn(features, labels, mode):
        table = tf.contrib.lookup.index_table_from_tensor(["cat", "dog", "emu"],
                                                          num_oov_buckets=1)
        ids = table.lookup(features["w"])
        emb = tf.get_variable("emb", [4, 2], initializer=tf.zeros_initializer())
        logits = tf.gather(emb, ids)
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={"ids": ids})
        loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
        train = tf.train.GradientDescentOptimizer(1.0).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train)

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    est.train(input_fn, steps=5)
    metrics = est.evaluate(input_fn, steps=1)
    assert metrics["loss"] < np.log(2.0)
    ids = [p["ids"] for p in est.predict(input_fn)][:6]
    assert ids == [0, 1, 2, 3, 0, 1]


def test_bad_inputs_are_named(graph, tmp_path):
    t = _table()
    with pytest.raises(TypeError, match="Keys must be dtype string"):
        t.lookup(tf.constant([1.0]))
    with pytest.raises(ValueError, match="vocab_size"):
        tf.lookup.TextFileInitializer("v.txt", tf.string, 0, tf.int64, 1, vocab_size=0)
    with pytest.raises(ValueError, match="LINE_NUMBER"):
        tf.lookup.TextFileInitializer("v.txt", tf.string, 0, tf.string, -1)
    missing = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        str(tmp_path / "nope.txt"), tf.string, -2, tf.int64, -1), -1)
    with tf.Session() as sess:
        with pytest.raises(errors.NotFoundError, match="nope.txt"):
            sess.run(missing.initializer)
    short = tmp_path / "short.txt"
    short.write_text("a\nb\n")
    few = tf.contrib.lookup.index_table_from_file(str(short), vocab_size=3)
    with tf.Session() as sess:
        with pytest.raises(errors.OpError, match="vocab_size"):
            sess.run(few.initializer)


def test_scaffold_default_local_init_op_initializes_tables(graph):
    out = _table().lookup(tf.constant(["b"]))
    init = tf.train.Scaffold.default_local_init_op()
    with tf.Session() as sess:
        sess.run(init)
        np.testing.assert_array_equal(sess.run(out), [5])
