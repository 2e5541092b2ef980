"""The collective graph ops in one process (identities) and under the twin backend, their
gradients and their argument checks."""
import importlib.util
import pathlib
import sys

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import distribute
from estimator_npu.distribute import collective


def _twin():
    key = "estimator_npu_tests_distribute_fake_backends"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            key, pathlib.Path(__file__).parent / "fake_backends.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key].TwinBackend


def test_single_process_ops_are_identities():
    g = tf.Graph()
    with g.as_default():
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        fetch = {r: distribute.allreduce(x, r) for r in ("sum", "mean", "max", "min", "prod")}
        fetch["bcast"] = distribute.broadcast(x)
        fetch["list"] = distribute.broadcast([x, x * 2])
        fetch["gather"] = distribute.allgather(x)
        assert fetch["sum"].op.type == "HcomAllReduce" and fetch["sum"].shape == [2, 2]
        assert fetch["gather"].op.type == "HcomAllGather" and fetch["gather"].shape == [2, 2]
        assert fetch["bcast"].op.type == "HcomBroadcast"
        with tf.Session() as sess:
            out = sess.run(fetch)
    for key in ("sum", "mean", "max", "min", "prod", "bcast", "gather"):
        np.testing.assert_array_equal(out[key], [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(out["list"][1], [[2.0, 4.0], [6.0, 8.0]])


def test_allreduce_of_a_scalar_and_of_a_variable_does_not_alias():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable([1.0, 2.0])
        s = distribute.allreduce(tf.reduce_sum(v))
        r = distribute.allreduce(v)
        with tf.Session() as sess:
            sess.run(v.initializer)
            a, value = sess.run([r, s])
            a[0] = 100.0
            np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])
    assert value == 3.0


def test_twin_backend_sum_and_its_gradient():
    with collective.use_backend(_twin()(peer_factor=3.0)):
        g = tf.Graph()
        with g.as_default():
            w = tf.Variable([1.0, 2.0])
            y = distribute.allreduce(w * w, "sum")
            mean = distribute.allreduce(w, "mean")
            (grad,) = tf.gradients(tf.reduce_sum(y), [w])
            (grad_mean,) = tf.gradients(tf.reduce_sum(mean), [w])
            gathered = distribute.allgather(w)
            assert gathered.shape == [4]
            with tf.Session() as sess:
                sess.run(w.initializer)
                out = sess.run([y, grad, mean, grad_mean, gathered])
    np.testing.assert_array_equal(out[0], [4.0, 16.0])      # ours + 3 x ours
    np.testing.assert_array_equal(out[1], [8.0, 16.0])      # allreduce(1) * 2 w
    np.testing.assert_array_equal(out[2], [2.0, 4.0])
    np.testing.assert_array_equal(out[3], [2.0, 2.0])
    np.testing.assert_array_equal(out[4], [1.0, 2.0, 1.0, 2.0])


def test_max_has_no_gradient():
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable([1.0, 2.0])
        with pytest.raises(LookupError, match="reduction='max'.*only 'sum' and 'mean'"):
            tf.gradients(tf.reduce_sum(distribute.allreduce(w, "max")), [w])


@pytest.mark.parametrize("call, exc, match", [
    (lambda x: distribute.allreduce(x, "avg"), ValueError, "reduction must be one of"),
    (lambda x: distribute.allreduce(tf.constant([1, 2]), "mean"), TypeError,
     "needs a floating tensor"),
    (lambda x: distribute.allreduce(tf.constant(["a"])), TypeError, "numeric and bool"),
    (lambda x: distribute.allreduce(x, group="g1"), ValueError, "hccl_world_group"),
    (lambda x: distribute.broadcast(x, root_rank=1), ValueError,
     r"root_rank must be in \[0, 1\)"),
    (lambda x: distribute.broadcast(x, root_rank="0"), TypeError, "root_rank must be an int"),
    (lambda x: distribute.allgather(tf.constant(1.0)), ValueError, "rank >= 1"),
    (lambda x: distribute.allgather(x, rank_size=8), ValueError, "rank_size=8 but there "
                                                                 "are 1 workers"),
])
def test_argument_checks(call, exc, match):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant([1.0, 2.0])
        with pytest.raises(exc, match=match):
            call(x)
