"""train_and_evaluate with TrainSpec/EvalSpec, RunConfig.replace and an early-stopping hook."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
X = np.linspace(-1, 1, 128, dtype=np.float32)[:, None]
Y = 3.0 * X + 1.0


def model_fn(features, labels, mode):
    pred = tf.layers.dense(features["x"], 1)
    loss = tf.reduce_mean(tf.squared_difference(labels, pred))
    opt = tf.train.GradientDescentOptimizer(0.2)
    train_op = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      eval_metric_ops={"mse": tf.metrics.mean_squared_error(
                                          labels, pred)})


def main(argv):
    config = tf.estimator.RunConfig(model_dir=argv[1], save_checkpoints_steps=10)
    config = config.replace(keep_checkpoint_max=3)
    est = tf.estimator.Estimator(model_fn, config=config)
    train_fn = tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=16, num_epochs=None,
                                                  shuffle=True)
    eval_fn = tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=32, shuffle=False)
    stop = tf.estimator.experimental.stop_if_lower_hook(est, "mse", 1e-4, run_every_secs=None,
                                                        run_every_steps=10)
    metrics, exports = tf.estimator.train_and_evaluate(
        est, tf.estimator.TrainSpec(train_fn, max_steps=500, hooks=[stop]),
        tf.estimator.EvalSpec(eval_fn, steps=None, throttle_secs=0))
    print("final global_step %d mse %.6f exports %s" % (metrics["global_step"],
                                                        metrics["mse"], exports))
    print("keep", config.keep_checkpoint_max, "save", config.save_checkpoints_steps)


if __name__ == "__main__":
    tf.app.run()
