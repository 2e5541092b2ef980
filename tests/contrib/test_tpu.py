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
    with pytest.raises(ValueError, match="eval_metrics should be tuple or list"):
        tpu.TPUEstimatorSpec(mode="eval", eval_metrics={"acc": None})
    with tf.Graph().as_default():  # host_call runs on the host, as TF's CPU fallback does
        spec = tpu.TPUEstimatorSpec(mode="train", loss=tf.constant(1.0), train_op=tf.no_op(),
                                    host_call=(lambda: None, []))
        assert isinstance(spec.as_estimator_spec(), tf.estimator.EstimatorSpec)


def test_tpu_estimator_off_tpu_trains_evaluates_predicts_with_mode_batch_sizes(tmp_path):
    """As TF's TPUEstimator(use_tpu=False): params['batch_size'] is the mode's batch size
    in both input_fn and model_fn; a TPUEstimatorSpec (scaffold_fn, eval_metrics) works."""
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((64, 3)).astype(np.float32)
    ys = (xs @ np.array([1.0, -2.0, 0.5], np.float32) > 0).astype(np.int32)
    seen = []

    def input_fn(params):
        seen.append(("input", params["batch_size"]))
        ds = tf.data.Dataset.from_tensor_slices((xs, ys)).repeat()
        return ds.batch(params["batch_size"], drop_remainder=True)

    def model_fn(features, labels, mode, params):
        seen.append((mode, params["batch_size"], params["scale"]))
        logits = tf.layers.dense(features, 2)
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tpu.TPUEstimatorSpec(mode, predictions={"p": tf.argmax(logits, 1)})
        loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.train.GradientDescentOptimizer(0.5).minimize(
            loss, global_step=tf.train.get_global_step())

        def metric_fn(labels, logits):
            return {"acc": tf.metrics.accuracy(labels, tf.argmax(logits, 1))}
        return tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op,
                                    eval_metrics=(metric_fn, [labels, logits]),
                                    scaffold_fn=lambda: tf.train.Scaffold())
    config = tf.contrib.tpu.RunConfig(
        model_dir=str(tmp_path), tpu_config=tf.contrib.tpu.TPUConfig(iterations_per_loop=5))
    est = tf.contrib.tpu.TPUEstimator(model_fn=model_fn, config=config, params={"scale": 2},
                                      use_tpu=False, train_batch_size=16, eval_batch_size=8,
                                      predict_batch_size=4)
    est.train(input_fn, max_steps=30)
    result = est.evaluate(input_fn, steps=4)
    preds = [p["p"] for p, _ in zip(est.predict(input_fn), range(4))]
    assert result["global_step"] == 30 and result["acc"] > 0.8
    assert len(preds) == 4
    assert ("input", 16) in seen and ("input", 8) in seen and ("input", 4) in seen
    assert (tf.estimator.ModeKeys.TRAIN, 16, 2) in seen
    assert (tf.estimator.ModeKeys.EVAL, 8, 2) in seen
    assert (tf.estimator.ModeKeys.PREDICT, 4, 2) in seen


def test_tpu_estimator_refuses_reserved_params_and_a_missing_config():
    def model_fn(features, labels, mode, params):
        return None
    cfg = tf.contrib.tpu.RunConfig()
    with pytest.raises(ValueError, match="reserved"):
        tf.contrib.tpu.TPUEstimator(model_fn=model_fn, config=cfg, use_tpu=False,
                                    params={"batch_size": 2})
    with pytest.raises(ValueError, match="config"):
        tf.contrib.tpu.TPUEstimator(model_fn=model_fn, use_tpu=False)
    # use_tpu=True (TF's default): there is no TPU, so it runs on the host as use_tpu=False
    assert isinstance(tf.contrib.tpu.TPUEstimator(model_fn=model_fn, config=cfg),
                      tf.contrib.tpu.TPUEstimator)
