"""A Slim-era classifier: arg_scope'd conv2d / fully_connected with batch_norm, slim.repeat
and slim.stack, trained with slim.learning.create_train_op, then its trunk restored into
a fresh graph with get_variables_to_restore(exclude=[the head]).

(batch_norm fused=False here; tests/engine/test_dimensions.py runs tf_slim's fused path,
which reads TensorShape.dims[i].value.)

Usage: slim_arg_scope.py [--package tf_slim|contrib] [--steps N] [--ckpt_dir DIR]
"""
import argparse
import os

import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--package", default="contrib")
parser.add_argument("--steps", type=int, default=40)
parser.add_argument("--ckpt_dir", default="slim_ckpt")
args = parser.parse_args()

if args.package == "tf_slim":
    import tf_slim as slim
else:
    slim = tf.contrib.slim


def net(images, is_training):
    with slim.arg_scope([slim.conv2d, slim.fully_connected],
                        weights_initializer=tf.truncated_normal_initializer(stddev=0.1),
                        weights_regularizer=slim.l2_regularizer(1e-4),
                        normalizer_fn=slim.batch_norm,
                        normalizer_params={"is_training": is_training, "decay": 0.9,
                                           "fused": False}):
        with slim.arg_scope([slim.conv2d], padding="SAME"):
            h = slim.repeat(images, 2, slim.conv2d, 8, [3, 3], scope="block")
            h = slim.max_pool2d(h, [2, 2], scope="pool")
            h = slim.flatten(h)
            h = slim.stack(h, slim.fully_connected, [16, 12], scope="fc")
            return slim.fully_connected(h, 3, activation_fn=None, normalizer_fn=None,
                                        scope="head")


def data(rng, n):
    x = rng.rand(n, 6, 6, 1).astype(np.float32)
    y = (x[:, :3].mean((1, 2, 3)) > x[:, 3:].mean((1, 2, 3))).astype(np.int64)
    y += (x.mean((1, 2, 3)) > 0.5).astype(np.int64)
    return x, y


rng = np.random.RandomState(0)
xs, ys = data(rng, 64)
with tf.Graph().as_default():
    tf.set_random_seed(0)
    images = tf.placeholder(tf.float32, [None, 6, 6, 1])
    labels = tf.placeholder(tf.int64, [None])
    logits = net(images, True)
    tf.losses.sparse_softmax_cross_entropy(labels, logits)
    total = tf.losses.get_total_loss()
    print("model variables", len(slim.get_model_variables()))
    print("first", [v.op.name for v in slim.get_model_variables()][:4])
    print("regularization losses", len(tf.losses.get_regularization_losses()))
    print("update ops", len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)))
    train_op = slim.learning.create_train_op(total, tf.train.AdamOptimizer(0.02))
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {images: xs, labels: ys}
        first = sess.run(total, feed)
        for _ in range(args.steps):
            sess.run(train_op, feed)
        last = sess.run(total, feed)
        mean = sess.run(slim.get_variables_by_name("moving_mean")[0])
        print("loss %.4f -> %.4f" % (first, last))
        print("moving mean updated:", bool(np.abs(mean).sum() > 0))
        os.makedirs(args.ckpt_dir, exist_ok=True)
        path = saver.save(sess, os.path.join(args.ckpt_dir, "model.ckpt"))
        trunk_value = sess.run(slim.get_variables_by_name("weights")[0])

with tf.Graph().as_default():
    images = tf.placeholder(tf.float32, [None, 6, 6, 1])
    net(images, False)
    restore = slim.get_variables_to_restore(exclude=["head"])
    print("restoring", len(restore), "of", len(slim.get_variables()))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.train.Saver(restore).restore(sess, path)
        same = np.array_equal(sess.run(slim.get_variables_by_name("weights")[0]), trunk_value)
        print("trunk restored:", same)
