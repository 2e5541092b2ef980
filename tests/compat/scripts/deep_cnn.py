"""A deep CNN in the style of the TF r1 'expert' tutorial: tf.nn ops, dropout through a
keep_prob placeholder, argparse + tf.app.run(main=..., argv=...)."""
import argparse
import sys

import tensorflow as tf
from tensorflow.examples.tutorials.mnist import input_data

FLAGS = None


def weight(shape):
    return tf.Variable(tf.truncated_normal(shape, stddev=0.1))


def bias(shape):
    return tf.Variable(tf.constant(0.1, shape=shape))


def network(x):
    with tf.name_scope("reshape"):
        image = tf.reshape(x, [-1, 28, 28, 1])
    with tf.name_scope("conv1"):
        h1 = tf.nn.relu(tf.nn.conv2d(image, weight([5, 5, 1, 8]), strides=[1, 1, 1, 1],
                                     padding="SAME") + bias([8]))
        p1 = tf.nn.max_pool(h1, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
    with tf.name_scope("conv2"):
        h2 = tf.nn.relu(tf.nn.conv2d(p1, weight([5, 5, 8, 16]), [1, 1, 1, 1], "SAME")
                        + bias([16]))
        p2 = tf.nn.max_pool(h2, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    with tf.name_scope("fc1"):
        flat = tf.reshape(p2, [-1, 7 * 7 * 16])
        fc1 = tf.nn.relu(tf.matmul(flat, weight([7 * 7 * 16, 64])) + bias([64]))
    with tf.name_scope("dropout"):
        keep_prob = tf.placeholder(tf.float32, shape=[])
        dropped = tf.nn.dropout(fc1, keep_prob)
    print("dropout static shape:", dropped.get_shape())
    with tf.name_scope("fc2"):
        w2 = tf.get_variable("w2", [dropped.get_shape()[1], 10],
                             initializer=tf.truncated_normal_initializer(stddev=0.1))
        logits = tf.matmul(dropped, w2) + bias([10])
    return logits, keep_prob


def main(_):
    mnist = input_data.read_data_sets(FLAGS.data_dir)
    x = tf.placeholder(tf.float32, [None, 784])
    y_ = tf.placeholder(tf.int64, [None])
    logits, keep_prob = network(x)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y_,
                                                                         logits=logits))
    train_step = tf.train.AdamOptimizer(1e-3).minimize(loss)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y_), tf.float32))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(FLAGS.steps):
            xs, ys = mnist.train.next_batch(32)
            if i % 10 == 0:
                print("step %d, training accuracy %g"
                      % (i, accuracy.eval(feed_dict={x: xs, y_: ys, keep_prob: 1.0})))
            train_step.run(feed_dict={x: xs, y_: ys, keep_prob: 0.5})
        print("test accuracy %g" % accuracy.eval(feed_dict={
            x: mnist.test.images, y_: mnist.test.labels, keep_prob: 1.0}))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", type=str, default="/tmp/mnist")
    parser.add_argument("--steps", type=int, default=20)
    FLAGS, unparsed = parser.parse_known_args()
    tf.app.run(main=main, argv=[sys.argv[0]] + unparsed)
