"""One run of an Estimator and of the strategy API under ``tf.distribute`` strategies on a
host without GPUs, written for both TF 2.15 and estimator_npu (``run(tf, model_dir)``):
the Estimator's logged steps and losses, what input_fn and model_fn see, the variables,
events and evaluation with ``train_distribute`` / ``eval_distribute`` against the same run
without a strategy; and what ``scope`` / ``run`` / ``reduce`` return. Recorded from TF by
``tools/record_tf_strategy.py`` into ``golden/strategy_tf215.json``."""
import glob
import os
import re

import numpy as np

from tests.log_capture import capturing

_LOSS = re.compile(r"loss = ([-+0-9.e]+), step = (\d+)")
_LINES = ("Initializing RunConfig with distribution strategies.",
          "Not using Distribute Coordinator.",
          "The `input_fn` accepts an `input_context` which will be given by "
          "DistributionStrategy")


def _data():
    x = np.arange(32, dtype=np.float32).reshape(16, 2) / 8.0
    y = (x.sum(1, keepdims=True) > 2.0).astype(np.float32)
    return x, y


def _estimator_run(tf, model_dir, strategy):
    seen = {}

    def input_fn(params, input_context=None):
        seen["input_context"] = None if input_context is None else [
            input_context.num_input_pipelines, input_context.input_pipeline_id,
            input_context.num_replicas_in_sync, input_context.get_per_replica_batch_size(4)]
        return tf.data.Dataset.from_tensor_slices(_data()).repeat().batch(4)

    def model_fn(features, labels, mode, params):
        seen.setdefault("model_fn", []).append(
            [mode, tf.distribute.has_strategy(), tf.distribute.in_cross_replica_context(),
             tf.distribute.get_replica_context() is not None])
        logits = tf.layers.dense(features, 1, kernel_initializer=tf.ones_initializer())
        loss = tf.losses.sigmoid_cross_entropy(labels, logits)
        tf.summary.scalar("my_loss", loss)
        train = tf.train.GradientDescentOptimizer(0.2).minimize(
            loss, tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train,
                                          eval_metric_ops={"m": tf.metrics.mean(loss)})

    logger_name = "tensorflow" if tf.__name__.startswith("tensorflow") else "estimator_npu"
    with capturing(logger_name) as lines:
        config = tf.estimator.RunConfig(train_distribute=strategy, eval_distribute=strategy,
                                        log_step_count_steps=2, save_summary_steps=2)
        est = tf.estimator.Estimator(model_fn, model_dir, config=config, params={})
        est.train(input_fn, steps=5)
        results = est.evaluate(input_fn, steps=2)
    events = []
    for path in sorted(glob.glob(os.path.join(model_dir, "events.*"))):
        for event in tf.train.summary_iterator(path):
            events.extend([int(event.step), v.tag] for v in event.summary.value
                          if v.tag != "global_step/sec")
    return {
        "logged": [[float(f"{float(m.group(1)):.5g}"), int(m.group(2))]
                   for m in map(_LOSS.search, lines.lines) if m],
        "lines": [line for line in _LINES if line in lines.lines],
        "config_keys": sorted(re.findall(r"'(_distribute_coordinator_mode)'",
                                         " ".join(lines.lines))),
        "seen": seen,
        "kernel": [float(v) for v in est.get_variable_value("dense/kernel").ravel()],
        "variables": sorted(est.get_variable_names()),
        "events": events,
        "eval": {k: float(v) for k, v in sorted(results.items())},
    }


def _api(tf):
    out = {}
    mirrored = tf.distribute.MirroredStrategy()
    one = tf.distribute.OneDeviceStrategy("/cpu:0")
    out["replicas"] = [mirrored.num_replicas_in_sync, one.num_replicas_in_sync]
    out["devices"] = [list(mirrored.extended.worker_devices),
                      list(one.extended.worker_devices)]
    out["outside"] = [tf.distribute.has_strategy(), tf.distribute.in_cross_replica_context(),
                      tf.distribute.get_replica_context() is not None]
    with mirrored.scope():
        out["in_scope"] = [tf.distribute.has_strategy(),
                           tf.distribute.in_cross_replica_context(),
                           tf.distribute.get_replica_context() is not None,
                           tf.distribute.get_strategy() is mirrored]
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        doubled = mirrored.run(lambda v: v * 2.0, args=(x,))
        inside = mirrored.run(lambda: [tf.distribute.has_strategy(),
                                       tf.distribute.in_cross_replica_context()])
        summed = mirrored.reduce(tf.distribute.ReduceOp.SUM, x, axis=0)
        mean = mirrored.reduce(tf.distribute.ReduceOp.MEAN, x, axis=None)
        with tf.Session() as sess:
            out["values"] = [v.tolist() for v in sess.run([doubled, summed, mean])]
        out["run_inside"] = inside
        out["shapes"] = [summed.shape.as_list(), mean.shape.as_list()]
    return out


def run(tf, model_dir):
    return {
        "plain": _estimator_run(tf, model_dir + "_plain", None),
        "mirrored": _estimator_run(tf, model_dir + "_mirrored",
                                   tf.distribute.MirroredStrategy()),
        "one_device": _estimator_run(tf, model_dir + "_one",
                                     tf.distribute.OneDeviceStrategy("/cpu:0")),
        "api": _api(tf),
    }
