"""Estimator.evaluate and Estimator.predict end to end on a tiny linear model."""
import glob
import logging
import os
import re

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import hooks as H

RNG = np.random.default_rng(7)
X = RNG.normal(size=(40, 2)).astype(np.float32)
Y = (X @ np.array([[0.8], [-1.2]], np.float32) + 0.1).astype(np.float32)


def train_input_fn():
    return tf.data.Dataset.from_tensor_slices((X, Y)).repeat().batch(10)


def eval_input_fn():
    return tf.data.Dataset.from_tensor_slices((X, Y)).batch(10)   # 4 batches


def model_fn(features, labels, mode):
    w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    pred = tf.matmul(features, w) + b
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"y": pred, "sign": pred > 0.0})
    loss = tf.reduce_mean(tf.square(pred - labels))
    prob = tf.sigmoid(2.0 * features[:, 0:1])      # a score that ranks imperfectly
    positive = tf.cast(labels > 0.0, tf.float32)
    metrics = {"mse": tf.metrics.mean_squared_error(labels, pred),
               "accuracy": tf.metrics.accuracy(positive, tf.cast(pred > 0.3, tf.float32)),
               "precision": tf.metrics.precision(positive, pred > 0.3),
               "recall": tf.metrics.recall(positive, pred > 0.3),
               "auc": tf.metrics.auc(positive, prob),
               "mean_pred": tf.metrics.mean(pred)}
    op = tf.train.GradientDescentOptimizer(0.05).minimize(
        loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=op, eval_metric_ops=metrics)


@pytest.fixture
def trained(tmp_path):
    est = tf.estimator.Estimator(model_fn, str(tmp_path),
                                 tf.estimator.RunConfig(save_checkpoints_steps=10))
    est.train(train_input_fn, steps=25)
    return est


def weights(est):
    return est.get_variable_value("w"), est.get_variable_value("b")


def np_auc(labels, preds, num_thresholds=200):
    eps = 1e-7
    th = np.array([-eps] + [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
                  + [1 + eps], np.float32)
    pos = preds[None, :] > th[:, None]
    lab = labels.astype(bool)[None, :]
    tp, fp = (pos & lab).sum(1), (pos & ~lab).sum(1)
    fn, tn = (~pos & lab).sum(1), (~pos & ~lab).sum(1)
    tpr, fpr = tp / (tp + fn + eps), fp / (fp + tn + eps)
    return np.sum((fpr[:-1] - fpr[1:]) * (tpr[:-1] + tpr[1:]) / 2)


def expected_metrics(w, b, n=len(X)):
    pred = (X[:n] @ w + b).ravel()
    y = Y[:n].ravel()
    batch_losses = [np.mean((pred[i:i + 10] - y[i:i + 10]) ** 2) for i in range(0, n, 10)]
    positive, predicted = y > 0.0, pred > 0.3
    tp = np.sum(positive & predicted)
    return {"loss": np.mean(batch_losses), "mse": np.mean((pred - y) ** 2),
            "accuracy": np.mean(positive == predicted), "precision": tp / max(predicted.sum(), 1),
            "recall": tp / positive.sum(), "mean_pred": pred.mean(),
            "auc": np_auc(positive, (1 / (1 + np.exp(-2.0 * X[:n, 0]))).astype(np.float32))}


def eval_events(logdir):
    tf.summary.FileWriterCache.clear()  # close the writers: every event on disk
    out = {}
    for path in glob.glob(os.path.join(logdir, "events.out.tfevents.*")):
        for event in tf.train.summary_iterator(path):
            for v in event.summary.value:
                out[v.tag] = (event.step, v.tensor.string_val[0].decode() if
                              v.HasField("tensor") else v.simple_value)
    return out


# ------------------------------------------------------------------ evaluate
def test_evaluate_equals_numpy_and_writes_summaries(trained, caplog):
    with caplog.at_level(logging.INFO, logger="estimator_npu"):
        results = trained.evaluate(eval_input_fn)
    assert set(results) == {"loss", "global_step", "mse", "accuracy", "precision", "recall",
                            "auc", "mean_pred"}
    assert results["global_step"] == 25 and type(results["global_step"]) is np.int64  # TF
    for key, value in expected_metrics(*weights(trained)).items():
        np.testing.assert_allclose(results[key], value, rtol=1e-5, atol=1e-7, err_msg=key)
    assert "Saving dict for global step 25: accuracy = " in caplog.text
    # TF's lines, in TF's order; values as str() of the numpy scalars ("loss = 0.0123")
    text = caplog.text
    assert re.search(r"Inference Time : \d+\.\d{5}s", text)
    assert re.search(r"Finished evaluation at \d{4}-\d\d-\d\d-\d\d:\d\d:\d\d", text)
    assert text.index("Saving dict for") < text.index("Saving 'checkpoint_path' summary")
    assert f"loss = {results['loss']!s}," in text
    for key in ("accuracy", "recall", "auc"):   # the data are not trivial
        assert 0.3 < results[key] < 0.99, (key, results[key])
    events = eval_events(os.path.join(trained.model_dir, "eval"))
    # as TF: every metric, and the evaluated checkpoint as a string tensor summary
    assert set(events) == set(results) - {"global_step"} | {"checkpoint_path"}
    step, path = events.pop("checkpoint_path")
    assert step == 25 and path == trained.latest_checkpoint()
    for key, (step, value) in events.items():
        assert step == 25
        np.testing.assert_allclose(value, results[key], rtol=1e-6)


def test_evaluate_steps_name_and_checkpoint_path(trained):
    results = trained.evaluate(eval_input_fn, steps=2, name="half")
    for key, value in expected_metrics(*weights(trained), n=20).items():
        np.testing.assert_allclose(results[key], value, rtol=1e-5, err_msg=key)
    assert os.path.isdir(os.path.join(trained.model_dir, "eval_half"))
    old = os.path.join(trained.model_dir, "model.ckpt-10")
    assert trained.evaluate(eval_input_fn, checkpoint_path=old)["global_step"] == 10
    with pytest.raises(ValueError, match=r"Must specify steps > 0, given: 0"):
        trained.evaluate(eval_input_fn, steps=0)


def test_evaluate_without_a_checkpoint_initializes(tmp_path, caplog):
    est = tf.estimator.Estimator(model_fn, str(tmp_path))
    with caplog.at_level(logging.INFO, logger="estimator_npu"):
        results = est.evaluate(eval_input_fn)
    assert "Could not find trained model in model_dir" in caplog.text
    assert results["global_step"] == 0
    np.testing.assert_allclose(results["loss"], expected_metrics(np.zeros((2, 1)),
                                                                 np.zeros(1))["loss"],
                               rtol=1e-6)


def test_evaluate_reserved_metric_names_and_hooks(tmp_path):
    ends = []

    class End(H.SessionRunHook):
        def end(self, session):
            ends.append(1)

    def bad_model(features, labels, mode):
        spec = model_fn(features, labels, mode)
        return spec._replace(eval_metric_ops={"loss": tf.metrics.mean(spec.loss)})

    est = tf.estimator.Estimator(bad_model, str(tmp_path))
    with pytest.raises(ValueError, match="Metric with name 'loss' is not allowed"):
        est.evaluate(eval_input_fn)

    def with_eval_hooks(features, labels, mode):
        return model_fn(features, labels, mode)._replace(evaluation_hooks=[End()])

    est = tf.estimator.Estimator(with_eval_hooks, str(tmp_path / "h"))
    est.evaluate(eval_input_fn, hooks=[End()])
    assert ends == [1, 1]


# ------------------------------------------------------------------ predict
def test_predict_dicts_arrays_keys_and_batches(trained):
    w, b = weights(trained)
    expected = (X @ w + b)

    def predict_input_fn():
        return tf.data.Dataset.from_tensor_slices(X).batch(16)   # 16, 16, 8

    preds = list(trained.predict(predict_input_fn))
    assert len(preds) == 40 and set(preds[0]) == {"y", "sign"}
    np.testing.assert_allclose(np.stack([p["y"] for p in preds]), expected, rtol=1e-6)
    assert preds[3]["sign"].dtype == bool
    only_y = list(trained.predict(predict_input_fn, predict_keys=["y"]))
    assert set(only_y[0]) == {"y"}
    batches = list(trained.predict(predict_input_fn, yield_single_examples=False))
    assert [len(batch["y"]) for batch in batches] == [16, 16, 8]
    with pytest.raises(ValueError, match="Expected to run at least one output"):
        list(trained.predict(predict_input_fn, predict_keys=["nope"]))


def test_predict_single_tensor_and_labels_ignored(trained):
    def single(features, labels, mode):
        spec = model_fn(features, labels, tf.estimator.ModeKeys.PREDICT)
        return tf.estimator.EstimatorSpec(mode, predictions=spec.predictions["y"])

    est = tf.estimator.Estimator(single, trained.model_dir)
    preds = list(est.predict(eval_input_fn))                # (features, labels) elements
    assert len(preds) == 40 and preds[0].shape == (1,)
    w, b = weights(trained)
    np.testing.assert_allclose(np.stack(preds), X @ w + b, rtol=1e-6)
    with pytest.raises(ValueError, match="predict_keys argument is not valid"):
        list(est.predict(eval_input_fn, predict_keys=["y"]))


def test_predict_batch_lengths_must_agree(tmp_path):
    def ragged(features, mode):
        return tf.estimator.EstimatorSpec(mode, predictions={"a": features,
                                                             "b": features[:1]})

    est = tf.estimator.Estimator(ragged, str(tmp_path))
    with pytest.raises(ValueError, match="Batch length of predictions should be same"):
        list(est.predict(lambda: tf.data.Dataset.from_tensor_slices(X).batch(4)))
