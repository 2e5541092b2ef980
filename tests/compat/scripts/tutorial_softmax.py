"""Softmax regression on MNIST in the style of the TF r1 beginner tutorial: tf.app flags."""
from __future__ import absolute_import, division, print_function

import tensorflow as tf
from tensorflow.examples.tutorials.mnist import input_data

flags = tf.app.flags
flags.DEFINE_string("data_dir", "/tmp/mnist", "Folder with the MNIST IDX files.")
flags.DEFINE_integer("train_steps", 60, "Training steps.")
flags.DEFINE_float("learning_rate", 0.5, "SGD learning rate.")
FLAGS = flags.FLAGS


def main(argv):
    print("leftover args:", argv[1:])
    mnist = input_data.read_data_sets(FLAGS.data_dir, one_hot=True)
    x = tf.placeholder(tf.float32, [None, 784])
    W = tf.Variable(tf.zeros([784, 10]))
    b = tf.Variable(tf.zeros([10]))
    y = tf.matmul(x, W) + b
    y_ = tf.placeholder(tf.float32, [None, 10])
    cross_entropy = tf.reduce_mean(
        tf.nn.softmax_cross_entropy_with_logits_v2(labels=y_, logits=y))
    train_step = tf.train.GradientDescentOptimizer(FLAGS.learning_rate).minimize(cross_entropy)
    sess = tf.InteractiveSession()
    tf.global_variables_initializer().run()
    for _ in range(FLAGS.train_steps):
        batch_xs, batch_ys = mnist.train.next_batch(50)
        sess.run(train_step, feed_dict={x: batch_xs, y_: batch_ys})
    correct = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    print("test accuracy %.3f" % sess.run(accuracy, feed_dict={x: mnist.test.images,
                                                              y_: mnist.test.labels}))


if __name__ == "__main__":
    tf.app.run()
