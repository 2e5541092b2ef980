"""tf.contrib.tpu: InputPipelineConfig's values and TPUEstimatorSpec.as_estimator_spec."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.contrib import tpu


def test_input_pipeline_config_has_tfs_values():
    c = tf.contrib.tpu.InputPipelineConfig
    assert (c.PER_SHARD_V1, c.PER_HOST_V1, c.PER_HOST_V2, c.BROADCAST, c.SLICED) == \
        (1, 2, 3, 4, 5)


def test_tpu_estimator_spec_becomes_an_estimator_spec_with_metrics_and_scaffold():
    g = tf.Graph()
    with g.as_default():
        labels = tf.constant([1, 0, 1, 1])
        preds = tf.constant([1, 1, 1, 0])
        loss = tf.constant(0.5)
        saver = tf.train.Saver(var_list=[tf.Variable(1.0, name="v")])

        def metric_fn(labels, predictions):
            return {"acc": tf.metrics.accuracy(labels=labels, predictions=predictions)}
        for tensors in ([labels, preds], {"labels": labels, "predictions": preds}):
            spec = tpu.TPUEstimatorSpec(
                mode=tf.estimator.ModeKeys.EVAL, loss=loss, eval_metrics=(metric_fn, tensors),
                scaffold_fn=lambda: tf.train.Scaffold(saver=saver))
            est = spec.as_estimator_spec()
            assert isinstance(est, tf.estimator.EstimatorSpec)
            assert est.scaffold.saver is saver and est.loss is loss
            value, update = est.eval_metric_ops["acc"]
            with tf.Session(graph=g) as sess:
                sess.run(tf.local_variables_initializer())
                sess.run(update)
                np.testing.assert_allclose(sess.run(value), 0.5)


def test_tpu_estimator_spec_checks_eval_metrics_and_host_call():
    with pytest.raises(ValueError, match="eval_metrics must be a"):
        tpu.TPUEstimatorSpec(mode="eval", eval_metrics={"acc": None})
    spec = tpu.TPUEstimatorSpec(mode="train", host_call=(lambda: None, []))
    with pytest.raises(AttributeError, match="does not implement"):
        spec.as_estimator_spec()
