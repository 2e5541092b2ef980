"""``NPUBroadcastGlobalVariablesHook`` and ``broadcast_global_variables``: values written in
place (the optimizer's flat buffers stay valid), all global variables, argument checks."""
import importlib.util
import pathlib
import sys

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import errors
from estimator_npu.distribute import collective
from estimator_npu.hooks.broadcast_hook import (NPUBroadcastGlobalVariablesHook,
                                                broadcast_global_variables)
from estimator_npu.hooks.monitored_session import SingularMonitoredSession
from estimator_npu.hooks.session_run_hook import PRIORITY_WRITER


def _twin(**kwargs):
    key = "estimator_npu_tests_distribute_fake_backends"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            key, pathlib.Path(__file__).parent / "fake_backends.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key].TwinBackend(**kwargs)


def _plus_100(array):
    return array + 100  # "the root's values"


def _model():
    v = tf.Variable([1.0, 2.0], name="v")
    w = tf.Variable([[3.0]], name="w")
    gs = tf.train.get_or_create_global_step()
    loss = tf.reduce_sum(v * v) + tf.reduce_sum(w)
    train_op = tf.train.MomentumOptimizer(0.25, 0.5).minimize(loss, global_step=gs)
    return v, w, gs, train_op


def test_single_process_changes_nothing():
    g = tf.Graph()
    with g.as_default():
        v, w, gs, train_op = _model()
        hook = NPUBroadcastGlobalVariablesHook()
        assert hook.priority == PRIORITY_WRITER
        hook.begin()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            hook.after_create_session(sess, None)
            with sess.as_default():
                assert broadcast_global_variables(0) == 0
            np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])


def test_broadcast_writes_in_place_into_the_flat_buffers():
    backend = _twin(root_value=_plus_100)
    g = tf.Graph()
    with g.as_default(), collective.use_backend(backend):
        v, w, gs, train_op = _model()
        opt_vars = [x for x in tf.global_variables() if "Momentum" in x.op.name]
        assert len(opt_vars) == 2
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train_op)   # packs v, w and the slots into flat buffers
            store = sess.store(v.op)
            before = store.value
            sent = broadcast_global_variables(0, sess)
            assert store.value is before   # in place: still the optimizer's view
            np.testing.assert_array_equal(sess.run(v), [100.5, 101.0])   # v - 0.25 * 2v + 100
            assert sess.run(gs) == 101
            mom_v = sess.run(opt_vars[[x.op.name for x in opt_vars].index("v/Momentum")])
            np.testing.assert_array_equal(mom_v, [102.0, 104.0])
            sess.run(train_op)   # the update reads the broadcast values
            # a = 0.5 * a + g; v -= 0.25 a
            a = 0.5 * np.array([102.0, 104.0]) + 2 * np.array([100.5, 101.0])
            np.testing.assert_allclose(sess.run(v), np.array([100.5, 101.0]) - 0.25 * a, rtol=1e-6)
            assert sess.run(gs) == 102
    # one message per dtype (float32 variables and slots; the int64 global step)
    assert sorted(e[2] for e in backend.log if e[0] == "broadcast") == [1, 6]
    assert sent == 6 * 4 + 8


def test_hook_in_a_monitored_session_runs_after_initialization():
    g = tf.Graph()
    with g.as_default(), collective.use_backend(_twin(root_value=_plus_100)):
        v, w, gs, train_op = _model()
        with SingularMonitoredSession(hooks=[NPUBroadcastGlobalVariablesHook(0)]) as sess:
            np.testing.assert_array_equal(sess.run(v), [101.0, 102.0])
            assert sess.run(gs) == 100


def test_workers_with_different_variables_all_raise():
    class Mismatch(type(_twin())):
        def allgather(self, array):
            other = np.ascontiguousarray(array).copy()
            other[0] += 1
            return np.stack([array, other])
    g = tf.Graph()
    with g.as_default(), collective.use_backend(Mismatch()):
        tf.Variable([1.0])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(ValueError, match=r"workers \[1\] do not have the same "
                                                 r"variables .* as root worker 0"):
                broadcast_global_variables(0, sess)


def test_uninitialized_variable():
    g = tf.Graph()
    with g.as_default():
        tf.Variable([1.0], name="late")
        with tf.Session() as sess:
            with pytest.raises(errors.FailedPreconditionError, match="late is not initialized"):
                broadcast_global_variables(0, sess)


@pytest.mark.parametrize("root, exc, match", [
    ("0", TypeError, "root_rank must be an int"),
    (True, TypeError, "root_rank must be an int"),
    (-1, ValueError, "root_rank must be >= 0"),
])
def test_root_rank_checks(root, exc, match):
    with pytest.raises(exc, match=match):
        NPUBroadcastGlobalVariablesHook(root)


def test_root_rank_beyond_the_workers_and_missing_session():
    with pytest.raises(ValueError, match=r"root_rank must be in \[0, 1\)"):
        NPUBroadcastGlobalVariablesHook(1).begin()
    assert NPUBroadcastGlobalVariablesHook(None).root_rank == 0
    with pytest.raises(ValueError, match="no default session"):
        broadcast_global_variables(0)
