"""The events an Estimator writes, in the order TF 2.15 writes them for the same run
(compared by hand with a TF run of this model_fn): the summary writer of a directory
starts with the graph and the meta graph, the checkpoint hook adds both again to the
model_dir, and evaluation writes its metrics in key order."""
import glob
import os

import numpy as np

import estimator_npu as tf


def _model_fn(features, labels, mode):
    w = tf.get_variable("w", [2, 1])
    pred = tf.matmul(features, w)
    loss = tf.losses.mean_squared_error(labels, pred)
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
        loss, tf.train.get_or_create_global_step())
    return tf.estimator.EstimatorSpec(
        mode, loss=loss, train_op=train_op,
        eval_metric_ops={"mae": tf.metrics.mean_absolute_error(labels, pred)})


def _events(d):
    out = []
    for f in sorted(glob.glob(os.path.join(d, "events*"))):
        for e in tf.train.summary_iterator(f):
            kind = e.WhichOneof("what")
            if kind == "summary":
                out += [(e.step, v.tag) for v in e.summary.value]
            else:
                out.append((e.step, kind))
    return out


def test_graph_events_and_eval_tags_as_tf(tmp_path):
    x, y = np.ones((4, 2), np.float32), np.ones((4, 1), np.float32)
    est = tf.estimator.Estimator(_model_fn, str(tmp_path), config=tf.estimator.RunConfig(
        save_checkpoints_steps=4, save_summary_steps=100))
    est.train(lambda: tf.data.Dataset.from_tensors((x, y)).repeat(), steps=4)
    est.evaluate(lambda: tf.data.Dataset.from_tensors((x, y)).repeat(), steps=2)
    main = [k for _, k in _events(str(tmp_path))][:5]
    assert main == ["file_version", "graph_def", "meta_graph_def", "graph_def",
                    "meta_graph_def"]
    assert [k for _, k in _events(str(tmp_path / "eval"))] == [
        "file_version", "graph_def", "meta_graph_def", "loss", "mae", "checkpoint_path"]
