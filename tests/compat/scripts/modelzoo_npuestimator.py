"""ModelZoo-style NPUEstimator training: NPURunConfig(iterations_per_loop=...), NPUOptimizer
with dynamic loss scaling, npu_hooks_append, a Dataset input_fn."""
import os
import numpy as np
import tensorflow as tf
from npu_bridge.estimator.npu.npu_config import NPURunConfig
from npu_bridge.estimator.npu.npu_estimator import NPUEstimator
from npu_bridge.estimator.npu.npu_optimizer import NPUOptimizer
from npu_bridge.estimator.npu.npu_loss_scale_manager import ExponentialUpdateLossScaleManager
from npu_bridge.npu_init import npu_hooks_append

flags = tf.app.flags
flags.DEFINE_string("model_dir", "./npu_model", "")
flags.DEFINE_integer("max_steps", 40, "")
flags.DEFINE_integer("iterations_per_loop", 10, "")
FLAGS = flags.FLAGS


def input_fn():
    rng = np.random.RandomState(0)
    x = rng.randn(512, 8).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int32)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(32, drop_remainder=True)
    return ds


def model_fn(features, labels, mode, params):
    hidden = tf.layers.dense(features, 16, activation=tf.nn.relu)
    logits = tf.layers.dense(hidden, 2)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                                         logits=logits))
    if mode == tf.estimator.ModeKeys.EVAL:
        acc = tf.metrics.accuracy(labels, tf.argmax(logits, 1))
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"acc": acc})
    manager = ExponentialUpdateLossScaleManager(init_loss_scale=2 ** 10,
                                                incr_every_n_steps=20,
                                                decr_every_n_nan_or_inf=2, decr_ratio=0.5)
    opt = NPUOptimizer(tf.train.MomentumOptimizer(0.1, 0.9), loss_scale_manager=manager,
                       is_loss_scale=True)
    train_op = opt.minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def main(_):
    config = NPURunConfig(model_dir=FLAGS.model_dir, save_checkpoints_steps=20,
                          iterations_per_loop=FLAGS.iterations_per_loop,
                          log_step_count_steps=10, precision_mode="allow_mix_precision")
    est = NPUEstimator(model_fn=model_fn, config=config, model_dir=FLAGS.model_dir)
    est.train(input_fn=input_fn, max_steps=FLAGS.max_steps, hooks=npu_hooks_append())
    result = est.evaluate(input_fn=lambda: input_fn().take(4))
    print("FINAL global_step=%d acc=%.3f" % (result["global_step"], result["acc"]))
    print("checkpoints:", sorted(f for f in os.listdir(FLAGS.model_dir) if f.endswith(".index")))


if __name__ == "__main__":
    tf.app.run()
