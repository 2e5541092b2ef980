"""The hook lifecycle of MonitoredSession: order, end of input, errors, stop, priorities,
the runner plug and the public loop information (SessionRunContext / SessionRunValues)."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import errors
from estimator_npu import hooks as H


class Recorder(H.SessionRunHook):
    def __init__(self, log, name="rec", priority=None, fetch=None, stop_at=None):
        self.log = log
        self.name = name
        self.fetch = fetch
        self.stop_at = stop_at
        self.values = []
        if priority is not None:
            self.priority = priority

    def begin(self):
        self.log.append((self.name, "begin"))

    def after_create_session(self, session, coord):
        self.log.append((self.name, "after_create_session"))

    def before_run(self, run_context):
        self.log.append((self.name, "before_run"))
        return None if self.fetch is None else H.SessionRunArgs(self.fetch)

    def after_run(self, run_context, run_values):
        self.log.append((self.name, "after_run"))
        self.values.append(run_values)
        if self.stop_at is not None and run_values.global_step >= self.stop_at:
            run_context.request_stop()

    def on_error(self, session, error):
        self.log.append((self.name, "on_error", type(error).__name__))

    def end(self, session):
        self.log.append((self.name, "end"))


def counter_graph():
    gs = tf.train.get_or_create_global_step()
    step_op = tf.assign_add(gs, 1)
    return gs, step_op


def test_lifecycle_order_and_request_stop():
    log = []
    with tf.Graph().as_default():
        gs, step_op = counter_graph()
        hook = Recorder(log, fetch=gs, stop_at=3)
        with H.MonitoredSession(hooks=[hook]) as sess:
            n = 0
            while not sess.should_stop():
                sess.run(step_op)
                n += 1
        assert n == 3
        assert sess.should_stop()
    calls = [c[1] for c in log]
    assert calls == (["begin", "after_create_session"] + ["before_run", "after_run"] * 3
                     + ["end"])
    assert [v.global_step for v in hook.values] == [1, 2, 3]
    # a fetched global step is its value at the end of the run, as in TF
    assert [int(v.results) for v in hook.values] == [1, 2, 3]
    assert all(v.steps_run == 1 for v in hook.values)


def test_end_runs_at_end_of_input_which_is_a_normal_end():
    log = []
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices(np.arange(3.0, dtype=np.float32))
        it = tf.data.make_one_shot_iterator(ds)
        x = it.get_next()
        hook = Recorder(log)
        seen = []
        with H.MonitoredSession(hooks=[hook]) as sess:
            while not sess.should_stop():
                seen.append(float(sess.run(x)))
        assert seen == [0.0, 1.0, 2.0]
        assert sess.should_stop()
    calls = [c[1] for c in log]
    # the 4th run raised OutOfRangeError: before_run without after_run, then end
    assert calls == (["begin", "after_create_session"] + ["before_run", "after_run"] * 3
                     + ["before_run", "end"])


def test_error_skips_after_run_reports_error_and_skips_end():
    log = []
    with tf.Graph().as_default():
        ph = tf.placeholder(tf.float32, [])
        y = ph * 2.0
        hooks = [Recorder(log, "a"), Recorder(log, "b")]
        with pytest.raises(errors.InvalidArgumentError, match="Placeholder"):
            with H.MonitoredSession(hooks=hooks) as sess:
                assert sess.run(y, feed_dict={ph: 1.5}) == 3.0
                sess.run(y)  # unfed placeholder
    assert log[4:] == [("a", "before_run"), ("b", "before_run"), ("a", "after_run"),
                       ("b", "after_run"),
                       ("a", "before_run"), ("b", "before_run"),
                       ("a", "on_error", "InvalidArgumentError"),
                       ("b", "on_error", "InvalidArgumentError")]  # no end(), as in TF


def test_an_error_in_one_hook_is_reported_to_every_hook():
    log = []

    class Bad(H.SessionRunHook):
        def after_run(self, run_context, run_values):
            raise ValueError("hook failed")

    with tf.Graph().as_default():
        gs, step_op = counter_graph()
        rec = Recorder(log)
        with pytest.raises(ValueError, match="hook failed"):
            with H.MonitoredSession(hooks=[Bad(), rec]) as sess:
                sess.run(step_op)
    assert log[-1:] == [("rec", "on_error", "ValueError")]


def test_run_after_close_raises():
    with tf.Graph().as_default():
        gs, step_op = counter_graph()
        sess = H.MonitoredSession()
        sess.run(step_op)
        sess.close()
        sess.close()  # idempotent
        with pytest.raises(RuntimeError, match="closed"):
            sess.run(step_op)


def test_hooks_run_by_priority_then_given_order():
    log = []
    with tf.Graph().as_default():
        gs, step_op = counter_graph()
        hooks = [Recorder(log, "reader1"), Recorder(log, "editor", H.PRIORITY_EDITOR),
                 Recorder(log, "reader2"), Recorder(log, "writer", H.PRIORITY_WRITER)]
        with H.MonitoredSession(hooks=hooks) as sess:
            assert [h.name for h in sess.hooks] == ["writer", "editor", "reader1", "reader2"]
            sess.run(step_op)
    assert [n for n, c in log if c == "after_run"] == ["writer", "editor", "reader1",
                                                       "reader2"]
    # the built-in hooks keep the default priority: they run as given, as in TF
    builtins = [H.FeedFnHook(dict), H.NanTensorHook(None), H.StopAtStepHook(1),
                H.CheckpointSaverHook("/tmp", save_steps=1), H.StepCounterHook(),
                H.LoggingTensorHook({}, every_n_iter=1)]
    assert {h.priority for h in builtins} == {H.PRIORITY_READER}
    assert H.sort_hooks(builtins[::-1]) == builtins[::-1]


def test_hooks_must_be_session_run_hooks():
    with tf.Graph().as_default():
        counter_graph()
        with pytest.raises(TypeError, match="SessionRunHook"):
            H.MonitoredSession(hooks=[object()])


def test_fetches_and_feeds_of_hooks_are_merged():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [], name="a")
        b = tf.placeholder(tf.float32, [], name="b")
        total = a + b
        twice = total * 2.0

        class FeedB(H.SessionRunHook):
            def before_run(self, run_context):
                return H.SessionRunArgs({"twice": twice, "list": [a]}, feed_dict={b: 10.0})

            def after_run(self, run_context, run_values):
                self.results = run_values.results

        hook = FeedB()
        with H.MonitoredSession(hooks=[hook]) as sess:
            assert sess.run({"t": total}, feed_dict={a: 1.0}) == {"t": 11.0}
            assert hook.results == {"twice": 22.0, "list": [1.0]}
            assert sess.run([total, a], feed_dict={a: 2.0}) == [12.0, 2.0]
            with pytest.raises(RuntimeError, match="Same tensor is fed by a SessionRunHook "
                                                   "and user"):
                sess.run(total, feed_dict={a: 1.0, b: 2.0})
        with pytest.raises(RuntimeError, match="Same tensor is fed by two hooks"):
            with H.MonitoredSession(hooks=[FeedB(), FeedB()]) as sess:
                sess.run(total, feed_dict={a: 1.0})


def test_mutated_fetch_list_is_not_served_from_a_stale_plan():
    with tf.Graph().as_default():
        x = tf.constant(1.0)
        y = tf.constant(2.0)
        with H.MonitoredSession() as sess:
            fetches = [x]
            assert sess.run(fetches) == [1.0]
            fetches.append(y)
            assert sess.run(fetches) == [1.0, 2.0]
            fetches[0] = y
            assert sess.run(fetches) == [2.0, 2.0]


def test_runner_plug_and_public_loop_information():
    """A fake device loop: each host call runs `iterations` steps."""
    calls = []

    def loop_runner(session, fetches, feed_dict, options, iterations):
        calls.append((type(fetches), iterations))
        for _ in range(iterations - 1):
            session.run(step_op)
        return session.run(fetches, feed_dict), iterations

    class Watch(H.SessionRunHook):
        def __init__(self):
            self.seen = []

        def before_run(self, run_context):
            self.loop = run_context.iterations_per_loop

        def after_run(self, run_context, run_values):
            self.seen.append((self.loop, run_values.global_step, run_values.steps_run))

    with tf.Graph().as_default():
        gs, step_op = counter_graph()
        watch = Watch()
        with H.MonitoredSession(hooks=[watch, H.StopAtStepHook(last_step=10)],
                                runner=loop_runner, iterations_per_loop=4) as sess:
            assert sess.iterations_per_loop == 4
            while not sess.should_stop():
                left = 10 - sess.current_global_step
                sess.iterations_per_loop = min(4, left)
                sess.run(step_op)
        assert watch.seen == [(4, 4, 4), (4, 8, 4), (2, 10, 2)]
        assert calls == [(tuple, 4), (tuple, 4), (tuple, 2)]
        with pytest.raises(ValueError, match="iterations_per_loop"):
            sess.iterations_per_loop = 0


def test_default_runner_runs_one_step():
    with tf.Graph().as_default():
        gs, step_op = counter_graph()
        values = []

        class Watch(H.SessionRunHook):
            def after_run(self, run_context, run_values):
                values.append((run_values.global_step, run_values.steps_run))

        with H.MonitoredSession(hooks=[Watch()], iterations_per_loop=5) as sess:
            sess.run(step_op)
        assert values == [(1, 1)]


def test_session_run_types():
    args = H.SessionRunArgs("x")
    assert args == ("x", None, None)
    values = H.SessionRunValues(results=1)
    assert (values.global_step, values.steps_run) == (None, 1)
    context = H.SessionRunContext(args, None, iterations_per_loop=7)
    assert context.iterations_per_loop == 7 and not context.stop_requested
    context.request_stop()
    assert context.stop_requested
