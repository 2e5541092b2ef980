"""One TPUEstimator run (``use_tpu=False``) written against a ``tf`` module argument, so the
same code runs on real TF 2.15 (tools/record_tpu_estimator.py writes the golden) and on
estimator_npu (test_tpu_estimator.py compares). Returns a JSON-able dict of what a script
can observe: the params each function got, the checkpoint files, evaluate/predict results
and the errors bad arguments raise."""
import os

import numpy as np


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is what is recorded
        return type(e).__name__
    return None


def run(tf, model_dir):
    tpu = tf.estimator.tpu
    out = {"input_pipeline": {k: getattr(tpu.InputPipelineConfig, k)
                              for k in ("PER_SHARD_V1", "PER_HOST_V1", "PER_HOST_V2",
                                        "BROADCAST", "SLICED")}}
    default = tpu.TPUConfig()
    out["tpu_config"] = [default.iterations_per_loop, default.num_shards,
                         default.per_host_input_for_training,
                         tpu.TPUConfig(per_host_input_for_training=False)
                         .per_host_input_for_training,
                         default.eval_training_input_configuration]
    plain = tpu.RunConfig()
    named = tpu.RunConfig(master="grpc://h:1")
    out["run_config"] = [plain.master, plain.evaluation_master, named.master,
                         named.evaluation_master, plain.tpu_config.iterations_per_loop,
                         plain.save_checkpoints_secs, plain.save_checkpoints_steps,
                         type(named.replace(save_checkpoints_steps=5)).__name__]
    config = tpu.RunConfig(model_dir=model_dir, save_checkpoints_steps=3,
                           tpu_config=tpu.TPUConfig(
                               iterations_per_loop=2, num_shards=8,
                               per_host_input_for_training=tpu.InputPipelineConfig.PER_HOST_V2))
    seen = []
    x = np.arange(40, dtype=np.float32).reshape(20, 2) / 10.0
    y = (x[:, 0] > 2.0).astype(np.int32)

    def train_input_fn(params):
        seen.append(["input", sorted(params), params.get("batch_size")])
        d = tf.data.Dataset.from_tensor_slices(({"x": x}, y))
        return d.repeat().batch(params["batch_size"], drop_remainder=True)

    def eval_input_fn(params):
        seen.append(["input", sorted(params), params.get("batch_size")])
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(params["batch_size"])

    def predict_input_fn(params):
        seen.append(["input", sorted(params), params.get("batch_size")])
        return tf.data.Dataset.from_tensor_slices({"x": x}).batch(params["batch_size"])

    def model_fn(features, labels, mode, params):
        seen.append(["model", mode, sorted(params), params.get("batch_size"),
                     features["x"].shape.as_list()])
        logits = tf.layers.dense(features["x"], 2, kernel_initializer=tf.zeros_initializer())
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tpu.TPUEstimatorSpec(mode, predictions={"p": tf.nn.softmax(logits),
                                                           "i": tf.argmax(logits, 1)})
        loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.train.GradientDescentOptimizer(0.5).minimize(
            loss, global_step=tf.train.get_global_step())

        def metric_fn(labels, logits):
            return {"acc": tf.metrics.accuracy(labels, tf.argmax(logits, 1))}

        def host_fn(step, value):
            seen.append(["host", mode, step.shape.as_list()])
            return [tf.identity(value)]

        step = tf.reshape(tf.train.get_global_step(), [1])
        return tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op,
                                    eval_metrics=(metric_fn, [labels, logits]),
                                    host_call=(host_fn, [step, tf.reshape(loss, [1])]),
                                    scaffold_fn=lambda: tf.train.Scaffold())

    est = tpu.TPUEstimator(model_fn=model_fn, config=config, use_tpu=False,
                           train_batch_size=4, eval_batch_size=5, predict_batch_size=3,
                           params={"extra": 1})
    out["params"] = est.params
    est.train(train_input_fn, max_steps=7)
    out["files"] = sorted(f for f in os.listdir(model_dir) if not f.startswith("events"))
    result = est.evaluate(eval_input_fn)
    out["eval"] = {k: [type(v).__name__, float(v)] for k, v in sorted(result.items())}
    result = est.evaluate(eval_input_fn, steps=2)
    out["eval_steps2"] = {k: float(v) for k, v in sorted(result.items())}
    preds = list(est.predict(predict_input_fn))
    out["predict"] = [len(preds), sorted(preds[0]), [float(v) for v in preds[-1]["p"]],
                      int(preds[-1]["i"])]
    out["seen"] = seen

    def plain_spec_model_fn(features, labels, mode, params):
        logits = tf.layers.dense(features["x"], 2)
        loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=tf.train.AdamOptimizer(
            0.1).minimize(loss, global_step=tf.train.get_global_step()))

    plain_est = tpu.TPUEstimator(model_fn=plain_spec_model_fn, use_tpu=False,
                                 train_batch_size=4,
                                 config=tpu.RunConfig(model_dir=model_dir + "_plain"))
    plain_est.train(train_input_fn, steps=2)
    out["plain_spec_step"] = int(plain_est.get_variable_value("global_step"))
    no_params = tpu.TPUEstimator(model_fn=lambda features, labels, mode: None, use_tpu=False,
                                 train_batch_size=4,
                                 config=tpu.RunConfig(model_dir=model_dir + "_no_params"))

    loss = tf.constant(1.0)
    out["errors"] = {
        "plain_run_config": _error(lambda: tpu.TPUEstimator(
            model_fn=model_fn, config=tf.estimator.RunConfig(), use_tpu=False)),
        "reserved_param": _error(lambda: tpu.TPUEstimator(
            model_fn=model_fn, config=config, use_tpu=False, params={"batch_size": 3})),
        "eval_metrics_int": _error(lambda: tpu.TPUEstimatorSpec("eval", loss=loss,
                                                                eval_metrics=3)),
        "eval_metrics_fn": _error(lambda: tpu.TPUEstimatorSpec("eval", loss=loss,
                                                               eval_metrics=(1, []))),
        "eval_metrics_len": _error(lambda: tpu.TPUEstimatorSpec(
            "eval", loss=loss, eval_metrics=(lambda a: a, [1, 2]))),
        "host_call_tensors": _error(lambda: tpu.TPUEstimatorSpec(
            "eval", loss=loss, host_call=(lambda a: a, 5))),
        "iterations_zero": _error(lambda: tpu.TPUConfig(iterations_per_loop=0)),
        "iterations_text": _error(lambda: tpu.TPUConfig(iterations_per_loop="x")),
        "iterations_hours": _error(lambda: tpu.TPUConfig(iterations_per_loop="1h")),
        "model_fn_without_params": _error(lambda: no_params.train(train_input_fn, steps=1)),
        "num_shards_zero": _error(lambda: tpu.TPUConfig(num_shards=0)),
    }
    return out
