"""What a TF1 script sees on stderr from tf.logging and an Estimator's training logs.

``python log_lines.py plain``: tf.logging calls before and after set_verbosity(INFO), then
four Estimator steps with a LoggingTensorHook and log_step_count_steps=2.
``python log_lines.py app``: the same calls inside tf.app.run (absl's handler on the root
logger, verbosity left alone), two Estimator steps with the default config.
"""
import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()


def model_fn(features, labels, mode):
    w = tf.get_variable("w", [3, 1], initializer=tf.constant_initializer(0.5))
    err = tf.matmul(features["x"], w) - labels
    loss = tf.reduce_mean(tf.square(err))
    step = tf.train.get_global_step()
    train_op = tf.train.GradientDescentOptimizer(0.05).minimize(loss, step)
    hooks = [tf.train.LoggingTensorHook({"mse": loss, "step_t": step}, every_n_iter=2)]
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      training_hooks=hooks)


def train(model_dir, steps, config):
    x = np.arange(24, dtype=np.float32).reshape(8, 3) / 10.0
    y = x.sum(axis=1, keepdims=True)
    input_fn = tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=4, num_epochs=None,
                                                  shuffle=False)
    tf.estimator.Estimator(model_fn, model_dir=model_dir, config=config).train(
        input_fn, steps=steps)


def calls():
    tf.logging.info("info %d", 1)
    tf.logging.warning("warning %s", "two")
    tf.logging.warn("warn")
    tf.logging.error("error %.1f", 3.0)
    tf.logging.debug("debug")
    for i in range(3):
        tf.logging.log_first_n(tf.logging.WARN, "first_n %d", 2, i)
    tf.logging.log_if(tf.logging.ERROR, "log_if true", True)
    tf.logging.log_if(tf.logging.ERROR, "log_if false", False)
    tf.logging.vlog(tf.logging.WARN, "vlog %s", "warn")
    print("verbosity", tf.logging.get_verbosity())


def main(argv):
    calls()
    if argv[1] == "plain":
        tf.logging.set_verbosity(tf.logging.INFO)
        calls()
        train("model_plain", 4, tf.estimator.RunConfig(log_step_count_steps=2))
    else:
        train("model_app", 2, None)
    print("done")


if __name__ == "__main__":
    if sys.argv[1] == "app":
        tf.app.run(main)
    main(sys.argv)
