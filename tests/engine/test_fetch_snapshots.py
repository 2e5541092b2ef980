"""A fetched variable value is the value at the time of its read: later in-place
updates in the same run (or in later runs) never change an array already fetched."""
import numpy as np

import estimator_npu as tf


def _model():
    w = tf.Variable(np.array([1.0, 2.0], np.float32), name="w")
    loss = tf.reduce_sum(tf.square(w))
    gs = tf.train.get_or_create_global_step()
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
    return w, loss, gs, train_op


def test_variable_fetched_with_the_update_is_the_value_before_it():
    with tf.Graph().as_default():
        w, loss, gs, train_op = _model()
        doubled = w * 2.0                  # independent of the update
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for i in range(4):             # from the second call on the buffer is packed
                before = sess.run(w).copy()
                _, got, got2, step = sess.run([train_op, w, doubled, gs])
                np.testing.assert_array_equal(got, before)
                np.testing.assert_array_equal(got2, before * 2.0)
                after = sess.run(w)
                np.testing.assert_allclose(after, before - np.float32(0.1) * 2 * before)
                np.testing.assert_array_equal(got, before)   # not mutated afterwards
                assert step == i + 1   # the global step: its value at the end of the run


def test_fetched_array_is_never_mutated_by_later_runs():
    with tf.Graph().as_default():
        w, loss, gs, train_op = _model()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train_op)
            first = sess.run(w)
            kept = first.copy()
            sess.run(train_op)
            sess.run(train_op)
            np.testing.assert_array_equal(first, kept)


def _plan_sources(sess):
    plans = [e[0] if isinstance(e, tuple) else e for e in sess._plans.values()]
    return [p.source for p in plans if hasattr(p, "source")]


def test_copies_only_when_an_update_follows_the_read():
    with tf.Graph().as_default():
        w, loss, gs, train_op = _model()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess._plans.clear()
            sess.run([w, loss])                       # reads only: the fast path
            (read_only,) = _plan_sources(sess)
            sess._plans.clear()
            sess.run([train_op, w])
            (with_update,) = _plan_sources(sess)
    assert "copy" not in read_only and "    s" not in read_only
    snapshot_lines = [line for line in with_update.splitlines() if line.startswith("    s")]
    assert len(snapshot_lines) == 1, with_update         # only the fetched read of w


def test_reads_independent_of_get_next_run_before_the_update():
    """With an iterator's get_next in the step (the Estimator's case), a summary of a
    variable read in the training run still sees the value before the update, as TF's
    executor runs the independent read first (a SummarySaverHook's ``w_sum`` at step 1
    is the initial value)."""
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices(np.ones((4, 2), np.float32)).repeat()
        x = tf.data.make_one_shot_iterator(ds.batch(2)).get_next()
        w = tf.Variable(np.array([1.0, 2.0], np.float32), name="w")
        loss = tf.reduce_sum(tf.square(x * w))
        gs = tf.train.get_or_create_global_step()
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
        w_sum = tf.reduce_sum(w)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                before = sess.run(w).copy()
                _, got = sess.run([train_op, w_sum])
                assert got == np.float32(before.sum())
                assert sess.run(w_sum) != got


def test_math_on_the_global_step_sees_its_value_before_the_update():
    """TF: a fetched global step is its value at the end of the run (ref aliasing), but
    an op computing from it runs early, on the value before the increment (a loss term
    `where(gs >= 3, ...)` first changes in the run that starts at step 3)."""
    with tf.Graph().as_default():
        w, loss, gs, train_op = _model()
        late = tf.cast(gs >= 2, tf.float32)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = [sess.run([train_op, gs, late])[1:] for _ in range(4)]
    assert [(int(s), float(v)) for s, v in got] == [(1, 0.0), (2, 0.0), (3, 1.0), (4, 1.0)]
