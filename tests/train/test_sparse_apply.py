"""The optimizers' sparse path (train/sparse_apply.py): gradients of gathered rows update
only those rows, with the values of the dense update on the scattered gradient."""
import numpy as np
import pytest

import estimator_npu as tf

V, D = 12, 3
IDS = [np.array([1, 5, 5, 0]), np.array([7, 1, 11, 2]), np.array([3, 3, 3, 9])]


def _train(opt_fn, dense, sharded=False, steps=3, condition=None):
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        r = np.random.RandomState(0)
        if sharded:
            tables = [tf.Variable(r.normal(0, 1, (n, D)).astype(np.float32))
                      for n in (4, 4, 4)]
        else:
            tables = [tf.Variable(r.normal(0, 1, (V, D)).astype(np.float32))]
        other = tf.Variable(r.normal(0, 1, (D,)).astype(np.float32))
        ids = tf.placeholder(tf.int32, [None])
        emb = tf.nn.embedding_lookup(tables if sharded else tables[0], ids)
        loss = tf.reduce_sum(tf.tanh(emb * other) ** 2)
        opt = opt_fn()
        gvs = opt.compute_gradients(loss)
        if dense:  # any op on the gradient makes it an ordinary dense gradient
            gvs = [(tf.identity(g), v) for g, v in gvs]
        gs = tf.train.get_or_create_global_step()
        train = opt.apply_gradients(gvs, global_step=gs, condition=None if condition is None
                                    else tf.constant(condition))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for k in range(steps):
                s.run(train, {ids: IDS[k % len(IDS)]})
            return s.run(tables + [other, gs]), train


@pytest.mark.parametrize("opt_fn", [lambda: tf.train.GradientDescentOptimizer(0.5),
                                    lambda: tf.train.AdagradOptimizer(0.3)],
                         ids=["sgd", "adagrad"])
@pytest.mark.parametrize("sharded", [False, True])
def test_sparse_equals_dense(opt_fn, sharded):
    sparse, op = _train(opt_fn, dense=False, sharded=sharded)
    dense, dense_op = _train(opt_fn, dense=True, sharded=sharded)
    assert any(c.type == "SparseApplyUpdates" for c in op.control_inputs)
    assert not any(c.type == "SparseApplyUpdates" for c in dense_op.control_inputs)
    assert not any(t.op.type == "GatherGrad" for t in op.inputs)
    for a, b in zip(sparse, dense):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    assert sparse[-1] == 3  # global_step, after the sparse updates


def test_untouched_rows_keep_their_values():
    (table, _, _), _ = _train(lambda: tf.train.GradientDescentOptimizer(0.5), dense=False,
                              steps=1)
    (init, _, _), _ = _train(lambda: tf.train.GradientDescentOptimizer(0.5), dense=False,
                             steps=0)
    untouched = sorted(set(range(V)) - set(IDS[0].tolist()))
    np.testing.assert_array_equal(table[untouched], init[untouched])
    assert not np.allclose(table[[0, 1, 5]], init[[0, 1, 5]])


def test_false_condition_changes_nothing():
    (table, other, gs), _ = _train(lambda: tf.train.GradientDescentOptimizer(0.5),
                                   dense=False, condition=False)
    (init, init_other, _), _ = _train(lambda: tf.train.GradientDescentOptimizer(0.5),
                                      dense=False, steps=0)
    np.testing.assert_array_equal(table, init)
    np.testing.assert_array_equal(other, init_other)
    assert gs == 0


def test_other_rules_stay_dense():
    _, op = _train(lambda: tf.train.MomentumOptimizer(0.1, 0.9), dense=False, steps=1)
    assert not op.control_inputs
    assert any(t.op.type == "GatherGrad" for t in op.inputs)


def test_two_lookups_of_one_table_update_sparsely():
    def run(dense):
        with tf.Graph().as_default():
            table = tf.Variable(np.arange(V * D, dtype=np.float32).reshape(V, D) / 10)
            a = tf.nn.embedding_lookup(table, [1, 4, 4])
            b = tf.nn.embedding_lookup(table, [[4, 9], [0, 1]])
            loss = tf.reduce_sum(tf.sin(a)) + tf.reduce_sum(tf.cos(b) * 2.0)
            opt = tf.train.GradientDescentOptimizer(0.3)
            gvs = opt.compute_gradients(loss)
            if dense:
                gvs = [(tf.identity(g), v) for g, v in gvs]
            train = opt.apply_gradients(gvs)
            with tf.Session() as s:
                s.run(tf.global_variables_initializer())
                s.run(train)
                s.run(train)
                return s.run(table), train
    sparse, op = run(False)
    dense, _ = run(True)
    assert any(c.type == "SparseApplyUpdates" for c in op.control_inputs)
    np.testing.assert_allclose(sparse, dense, rtol=1e-6, atol=1e-7)
