"""warm_start_from: fine-tune a new head on a warm-started hidden layer (TF-Slim style)."""
import logging

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.estimator import WarmStartSettings

RNG = np.random.default_rng(3)
X = RNG.normal(size=(64, 4)).astype(np.float32)
LABELS_A = (X[:, 0] > 0).astype(np.int64)                      # task A: 2 classes
LABELS_B = (np.digitize(X[:, 1], [-0.5, 0.5])).astype(np.int64)  # task B: 3 classes


def make_model_fn(head, classes, hidden_scope="hidden"):
    def model_fn(features, labels, mode, params):
        with tf.variable_scope(hidden_scope):
            kernel = tf.get_variable("kernel", [4, 8])
            bias = tf.get_variable("bias", [8], initializer=tf.zeros_initializer())
            hidden = tf.nn.relu(tf.matmul(features, kernel) + bias)
        with tf.variable_scope(head):
            w = tf.get_variable("kernel", [8, classes], initializer=tf.zeros_initializer())
            logits = tf.matmul(hidden, w)
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions=logits)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits))
        train_op = tf.train.GradientDescentOptimizer(params["lr"]).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    return model_fn


def input_fn(labels):
    return lambda: tf.data.Dataset.from_tensors((X, labels)).repeat()


def estimator(model_dir, head, classes, lr, seed, warm=None, scope="hidden"):
    return tf.estimator.Estimator(make_model_fn(head, classes, scope), str(model_dir),
                                  tf.estimator.RunConfig(tf_random_seed=seed),
                                  params={"lr": lr}, warm_start_from=warm)


@pytest.fixture
def pretrained(tmp_path):
    est = estimator(tmp_path / "a", "head_a", 2, lr=0.5, seed=1)
    est.train(input_fn(LABELS_A), steps=30)
    return est


def test_fine_tune_a_new_head_on_a_warm_started_hidden_layer(pretrained, tmp_path, caplog):
    ws = WarmStartSettings(pretrained.model_dir, vars_to_warm_start="hidden.*")
    # learning rate 0: the first checkpoint shows exactly what was initialized
    probe = estimator(tmp_path / "probe", "head_b", 3, lr=0.0, seed=2, warm=ws)
    with caplog.at_level(logging.INFO, logger="estimator_npu"):
        probe.train(input_fn(LABELS_B), steps=1)
    assert "Warm-started 2 variables." in caplog.text
    for name in ("hidden/kernel", "hidden/bias"):
        np.testing.assert_array_equal(probe.get_variable_value(name),
                                      pretrained.get_variable_value(name))
    np.testing.assert_array_equal(probe.get_variable_value("head_b/kernel"), 0.0)
    # without warm start the seed-2 hidden layer is different
    cold = estimator(tmp_path / "cold", "head_b", 3, lr=0.0, seed=2)
    cold.train(input_fn(LABELS_B), steps=1)
    assert not np.array_equal(cold.get_variable_value("hidden/kernel"),
                              pretrained.get_variable_value("hidden/kernel"))

    # fine-tune: the new head learns task B on the pretrained features
    tuned = estimator(tmp_path / "b", "head_b", 3, lr=0.5, seed=2, warm=ws)
    before = tuned.evaluate(input_fn(LABELS_B), steps=1)["loss"]
    tuned.train(input_fn(LABELS_B), steps=40)
    after = tuned.evaluate(input_fn(LABELS_B), steps=1)["loss"]
    assert after < 0.8 * before


def test_warm_start_only_when_model_dir_has_no_checkpoint(pretrained, tmp_path, caplog):
    est = estimator(tmp_path / "b", "head_b", 3, lr=0.5, seed=2,
                    warm=WarmStartSettings(pretrained.model_dir, "hidden.*"))
    est.train(input_fn(LABELS_B), steps=3)
    tuned = est.get_variable_value("hidden/kernel")
    assert not np.array_equal(tuned, pretrained.get_variable_value("hidden/kernel"))
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="estimator_npu"):
        est.train(input_fn(LABELS_B), steps=1)
    assert "Warm-starting from" not in caplog.text
    assert "Restoring parameters from" in caplog.text


def test_directory_list_and_renames(pretrained, tmp_path):
    # a directory: every trainable variable of the same model
    same = estimator(tmp_path / "same", "head_a", 2, lr=0.0, seed=9,
                     warm=pretrained.model_dir)
    same.train(input_fn(LABELS_A), steps=1)
    for name in ("hidden/kernel", "hidden/bias", "head_a/kernel"):
        np.testing.assert_array_equal(same.get_variable_value(name),
                                      pretrained.get_variable_value(name))
    # a list of regexes over GLOBAL variables: the kernel only
    some = estimator(tmp_path / "some", "head_b", 3, lr=0.0, seed=9,
                     warm=WarmStartSettings(pretrained.latest_checkpoint(),
                                            vars_to_warm_start=["hidden/kernel"]))
    some.train(input_fn(LABELS_B), steps=1)
    np.testing.assert_array_equal(some.get_variable_value("hidden/kernel"),
                                  pretrained.get_variable_value("hidden/kernel"))
    # renamed scope: encoder/* comes from hidden/*
    renamed = estimator(tmp_path / "renamed", "head_b", 3, lr=0.0, seed=9, scope="encoder",
                        warm=WarmStartSettings(pretrained.model_dir, "encoder.*",
                                               var_name_to_prev_var_name={
                                                   "encoder/kernel": "hidden/kernel",
                                                   "encoder/bias": "hidden/bias"}))
    renamed.train(input_fn(LABELS_B), steps=1)
    np.testing.assert_array_equal(renamed.get_variable_value("encoder/kernel"),
                                  pretrained.get_variable_value("hidden/kernel"))


def test_warm_start_errors(pretrained, tmp_path):
    missing = estimator(tmp_path / "m", "head_b", 3, lr=0.1, seed=2,
                        warm=WarmStartSettings(pretrained.model_dir, ".*"))
    with pytest.raises(ValueError, match="head_b/kernel.*is not in checkpoint"):
        missing.train(input_fn(LABELS_B), steps=1)
    assert missing.latest_checkpoint() is None
    shape = estimator(tmp_path / "s", "head_a", 3, lr=0.1, seed=2,
                      warm=WarmStartSettings(pretrained.model_dir, "head.*"))
    with pytest.raises(ValueError, match="head_a/kernel has shape"):
        shape.train(input_fn(LABELS_B), steps=1)
    (tmp_path / "empty").mkdir()
    nothing = estimator(tmp_path / "n", "head_a", 2, lr=0.1, seed=2,
                        warm=str(tmp_path / "empty"))
    with pytest.raises(ValueError, match="no checkpoint found in directory"):
        nothing.train(input_fn(LABELS_A), steps=1)
    with pytest.raises(ValueError, match="not a valid regular expression"):
        WarmStartSettings("x", vars_to_warm_start="(")
    with pytest.raises(ValueError, match="var_name_to_vocab_info"):
        WarmStartSettings("x", var_name_to_vocab_info={"a": 1})
    with pytest.raises(TypeError, match="vars_to_warm_start"):
        WarmStartSettings("x", vars_to_warm_start=3)
    with pytest.raises(ValueError, match="ckpt_to_initialize_from"):
        WarmStartSettings("")


def test_predict_and_evaluate_before_training_are_warm_started(tmp_path):
    """TF's Estimator warm-starts predict and evaluate too when model_dir holds no
    checkpoint yet (recorded with TF 2.15: predict gives the warm values, not zeros)."""
    src = tmp_path / "src"
    with tf.Graph().as_default():
        tf.get_variable("w", [2], initializer=tf.constant_initializer([3.0, 4.0]))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().save(sess, str(src / "m.ckpt"))

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [2], initializer=tf.zeros_initializer())
        pred = features * w
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions=pred)
        return tf.estimator.EstimatorSpec(
            mode, loss=tf.reduce_sum(pred),
            train_op=tf.assign_add(tf.train.get_or_create_global_step(), 1))

    est = tf.estimator.Estimator(model_fn, str(tmp_path / "new"),
                                 warm_start_from=str(src / "m.ckpt"))
    ones = np.ones((1, 2), np.float32)
    got = list(est.predict(lambda: tf.data.Dataset.from_tensors(ones)))
    np.testing.assert_array_equal(got[0], [3.0, 4.0])
    ev = est.evaluate(lambda: tf.data.Dataset.from_tensors((ones, ones)), steps=1)
    assert ev["loss"] == 7.0 and ev["global_step"] == 0
