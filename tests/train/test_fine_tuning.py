"""Fine-tuning from checkpoints real TF wrote: init_from_checkpoint (TF1 assignment maps),
WarmStartSettings remapping, Saver(var_list=dict), assign_from_checkpoint_fn."""
import os

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import errors
from estimator_npu.train import checkpoint_io
from estimator_npu.train.checkpoint_utils import assign_from_checkpoint_fn

GOLDEN = os.path.join(os.path.dirname(__file__), "golden_tf")
SLIM = os.path.join(GOLDEN, "slim")
TF_VALUES = checkpoint_io.read_checkpoint(os.path.join(SLIM, "model.ckpt-1"))
CONV = "block1/unit_1/conv1"


def _slim_net(scope, num_classes=3):
    """The golden Slim-style network (nested scopes, batch norm), built with our API."""
    with tf.variable_scope(scope):
        with tf.variable_scope(CONV):
            w = tf.get_variable("weights", [3, 3, 2, 4])
            images = tf.ones([2, 5, 5, 2])
            x = tf.nn.conv2d(images, w, [1, 1, 1, 1], "SAME")
            with tf.variable_scope("BatchNorm"):
                gamma = tf.get_variable("gamma", [4], initializer=tf.ones_initializer())
                beta = tf.get_variable("beta", [4], initializer=tf.zeros_initializer())
                mean = tf.get_variable("moving_mean", [4], trainable=False,
                                       initializer=tf.zeros_initializer())
                var = tf.get_variable("moving_variance", [4], trainable=False,
                                      initializer=tf.ones_initializer())
            x = tf.nn.relu(tf.nn.batch_normalization(x, mean, var, beta, gamma, 1e-3))
        with tf.variable_scope("logits"):
            w = tf.get_variable("weights", [4, num_classes])
            b = tf.get_variable("biases", [num_classes], initializer=tf.zeros_initializer())
        logits = tf.matmul(tf.reduce_mean(x, [1, 2]), w) + b
    loss = tf.reduce_mean(tf.square(logits))
    gs = tf.train.get_or_create_global_step()
    train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss, global_step=gs)
    return train


def _values(sess, scope):
    return {v.op.name: sess.run(v) for v in tf.global_variables() if
            v.op.name.startswith(scope + "/")}


def test_init_from_checkpoint_scope_map_restores_exact_values_incl_momentum_slots():
    g = tf.Graph()
    with g.as_default():
        _slim_net("model")
        tf.train.init_from_checkpoint(SLIM, {"net/": "model/"})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = _values(sess, "model")
    names = [n for n in TF_VALUES if n.startswith("net/")]
    assert len(names) == 12 and any(n.endswith("/Momentum") for n in names)
    assert sorted("model/" + n[4:] for n in names) == sorted(got)
    for n in names:
        np.testing.assert_array_equal(got["model/" + n[4:]], TF_VALUES[n], err_msg=n)


def test_init_from_checkpoint_partial_and_single_variable_maps():
    g = tf.Graph()
    with g.as_default():
        _slim_net("ft", num_classes=5)          # new head: logits are not restored
        w = [v for v in tf.global_variables() if v.op.name == "ft/logits/weights"][0]
        tf.train.init_from_checkpoint(os.path.join(SLIM, "model.ckpt-1"),
                                      {"net/block1/": "ft/block1/",
                                       "global_step": "global_step"})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            vals = _values(sess, "ft")
            assert sess.run(tf.train.get_global_step()) == 1
            assert sess.run(w).shape == (4, 5)
    np.testing.assert_array_equal(vals[f"ft/{CONV}/BatchNorm/moving_variance"],
                                  TF_VALUES[f"net/{CONV}/BatchNorm/moving_variance"])
    assert not np.any(vals["ft/logits/biases"])


def test_init_from_checkpoint_root_maps_and_variable_values():
    g = tf.Graph()
    with g.as_default():
        with tf.variable_scope("outer"):
            ow = tf.get_variable("weights", [4, 3])
            ob = tf.get_variable("biases", [3])
        v = tf.get_variable("v", [4, 3])
        tf.train.init_from_checkpoint(SLIM, {"net/logits/": "outer/"})
        tf.train.init_from_checkpoint(SLIM, {"net/logits/weights": v})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(v), TF_VALUES["net/logits/weights"])
            np.testing.assert_array_equal(sess.run(ow), TF_VALUES["net/logits/weights"])
            np.testing.assert_array_equal(sess.run(ob), TF_VALUES["net/logits/biases"])
    g = tf.Graph()
    with g.as_default():                     # "/" : the graph's root
        w = tf.get_variable("weights", [4, 3])
        tf.get_variable("biases", [3])
        tf.train.init_from_checkpoint(SLIM, {"net/logits/": "/"})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(w), TF_VALUES["net/logits/weights"])
        tf.get_variable("extra", [1])
        e = _err(lambda: tf.train.init_from_checkpoint(SLIM, {"net/logits/": "/"}))
        assert "net/logits/extra" in str(e) and "nearest keys" in str(e)


def _err(fn):
    try:
        fn()
    except ValueError as e:
        return e
    raise AssertionError("no error")


def test_init_from_checkpoint_errors_name_both_sides():
    g = tf.Graph()
    with g.as_default():
        tf.get_variable("w", [7, 3])
        e = _err(lambda: tf.train.init_from_checkpoint(SLIM, {"net/logits/weights": "w"}))
        assert "[7, 3]" in str(e) and "[4, 3]" in str(e) and "net/logits/weights" in str(e)
        assert "w (" in str(e)
        e = _err(lambda: tf.train.init_from_checkpoint(SLIM, {"net/logits/weight": "w"}))
        assert "nearest keys that exist: net/logits/weights" in str(e)
        e = _err(lambda: tf.train.init_from_checkpoint(SLIM, {"net/": "nothing_here/"}))
        assert "nothing_here" in str(e)


def test_warm_start_settings_with_prev_names_and_regex(tmp_path):
    def model_fn(features, labels, mode):
        train = _slim_net("new")
        loss = tf.reduce_sum(tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)[0]) * 0.0
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train)
    prev = {f"new/{CONV}/weights": f"net/{CONV}/weights",
            f"new/{CONV}/BatchNorm/gamma": f"net/{CONV}/BatchNorm/gamma"}
    # as in TF, the regex is matched against "name:0" with re.match
    ws = tf.estimator.WarmStartSettings(SLIM, vars_to_warm_start="new/block1/.*(weights|gamma)",
                                        var_name_to_prev_var_name=prev)
    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path), warm_start_from=ws)
    est.train(lambda: tf.data.Dataset.from_tensors(({"x": [1.0]}, [0.0])).repeat(), steps=1)
    reader = tf.train.load_checkpoint(str(tmp_path))
    w_after = reader.get_tensor(f"new/{CONV}/weights")
    w_slot = reader.get_tensor(f"new/{CONV}/weights/Momentum")
    # one Momentum step from the warm-started value: w0 - 0.1 * grad, slot = grad
    np.testing.assert_allclose(w_after, TF_VALUES[f"net/{CONV}/weights"] - 0.1 * w_slot,
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(reader.get_tensor(f"new/{CONV}/BatchNorm/moving_mean"), 0)


def test_saver_var_list_dict_remaps_against_tf_files():
    g = tf.Graph()
    with g.as_default():
        a = tf.get_variable("mine/kernel", [4, 3])
        b = tf.get_variable("mine/bias", [3])
        saver = tf.train.Saver({"net/logits/weights": a, "net/logits/biases": b})
        with tf.Session() as sess:
            saver.restore(sess, os.path.join(SLIM, "model.ckpt-1"))
            np.testing.assert_array_equal(sess.run(a), TF_VALUES["net/logits/weights"])
            np.testing.assert_array_equal(sess.run(b), TF_VALUES["net/logits/biases"])
        bad = tf.get_variable("other", [2])
        with tf.Session() as sess, pytest.raises(errors.InvalidArgumentError) as info:
            tf.train.Saver({"net/logits/biases": bad}).restore(
                sess, tf.train.latest_checkpoint(SLIM))
        assert "other" in str(info.value) and "net/logits/biases" in str(info.value)
        assert "[2]" in str(info.value) and "[3]" in str(info.value)


def test_assign_from_checkpoint_fn_slim_idiom():
    g = tf.Graph()
    with g.as_default():
        _slim_net("net", num_classes=3)
        extra = tf.get_variable("net/new_head/w", [2])
        variables = [v for v in tf.global_variables() if v.op.name.startswith("net/")]
        with pytest.raises(ValueError, match="net/new_head/w"):
            assign_from_checkpoint_fn(SLIM, variables)
        init_fn = assign_from_checkpoint_fn(SLIM, variables, ignore_missing_vars=True)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            init_fn(sess)
            for v in variables:
                if v is not extra:
                    np.testing.assert_array_equal(sess.run(v), TF_VALUES[v.op.name])
