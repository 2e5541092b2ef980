"""ModelZoo-style sess.run training on the adapter: npu_init helpers, a ConfigProto with
the NpuOptimizer entry, set_iteration_per_loop, npu_tf_optimizer."""
from npu_bridge.npu_init import *
import time
import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig
from tensorflow.examples.tutorials.mnist import input_data
from npu_bridge.estimator.npu import util

tf.flags.DEFINE_string("data_path", "/tmp/mnist", "dataset folder")
tf.flags.DEFINE_integer("epochs", 1, "epochs")
tf.flags.DEFINE_integer("iterations_per_loop", 5, "steps per sess.run")
FLAGS = tf.flags.FLAGS


def main(_):
    mnist = input_data.read_data_sets(FLAGS.data_path, one_hot=True, validation_size=5000)
    x = tf.placeholder(tf.float32, [None, 784])
    y = tf.placeholder(tf.float32, [None, 10])
    W = tf.Variable(tf.zeros([784, 10]))
    b = tf.Variable(tf.zeros([10]))
    pred = tf.nn.softmax(tf.matmul(x, W) + b)
    cost = tf.reduce_mean(-tf.reduce_sum(y * tf.log(pred + 1e-8), reduction_indices=1))
    optimizer = npu_tf_optimizer(tf.train.GradientDescentOptimizer(0.5)).minimize(cost)
    config = tf.ConfigProto()
    custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.name = "NpuOptimizer"
    custom_op.parameter_map["use_off_line"].b = True
    custom_op.parameter_map["iterations_per_loop"].i = FLAGS.iterations_per_loop
    config.graph_options.rewrite_options.remapping = RewriterConfig.OFF
    config = npu_config_proto(config_proto=config)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        train_op = util.set_iteration_per_loop(sess, optimizer, FLAGS.iterations_per_loop)
        for epoch in range(FLAGS.epochs):
            total_batch = 20
            start = time.time()
            avg_cost = 0.
            for _ in range(total_batch):
                xs, ys = mnist.train.next_batch(10)
                _, c = sess.run([train_op, cost], feed_dict={x: xs, y: ys})
                avg_cost += c / total_batch
            print("Epoch: %04d cost= %.9f time %.2f" % (epoch + 1, avg_cost,
                                                      time.time() - start))
        correct = tf.equal(tf.argmax(pred, 1), tf.argmax(y, 1))
        acc = tf.reduce_mean(tf.cast(correct, tf.float32))
        print("Accuracy:", sess.run(acc, {x: mnist.test.images, y: mnist.test.labels}))
        print("rank", get_rank_id(), "of", get_rank_size(), "proto", type(config).__name__)


if __name__ == "__main__":
    tf.app.run()
