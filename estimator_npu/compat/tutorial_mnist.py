"""``tensorflow.examples.tutorials.mnist.mnist``: the small MNIST model API that TF's
``fully_connected_feed`` tutorial imports (``inference``, ``loss``, ``training``,
``evaluation`` and the size constants), written on estimator_npu."""
import math

import estimator_npu as tf

NUM_CLASSES = 10
IMAGE_SIZE = 28
IMAGE_PIXELS = IMAGE_SIZE * IMAGE_SIZE


def _layer(name, inputs, fan_in, fan_out, activation):
    with tf.name_scope(name):
        weights = tf.Variable(tf.truncated_normal([fan_in, fan_out],
                                                  stddev=1.0 / math.sqrt(float(fan_in))),
                              name="weights")
        biases = tf.Variable(tf.zeros([fan_out]), name="biases")
        out = tf.matmul(inputs, weights) + biases
        return activation(out) if activation else out


def inference(images, hidden1_units, hidden2_units):
    """Logits ``[batch, NUM_CLASSES]`` of a two-hidden-layer ReLU network on ``images``
    ``[batch, IMAGE_PIXELS]`` (scopes ``hidden1``, ``hidden2``, ``softmax_linear``)."""
    hidden1 = _layer("hidden1", images, IMAGE_PIXELS, hidden1_units, tf.nn.relu)
    hidden2 = _layer("hidden2", hidden1, hidden1_units, hidden2_units, tf.nn.relu)
    return _layer("softmax_linear", hidden2, hidden2_units, NUM_CLASSES, None)


def loss(logits, labels):
    """Mean sparse softmax cross-entropy of ``logits`` against int ``labels``."""
    labels = tf.to_int64(labels)
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits), name="xentropy_mean")


def training(loss, learning_rate):
    """A gradient-descent train op on ``loss`` that increments a ``global_step``
    variable, with a ``loss`` scalar summary."""
    tf.summary.scalar("loss", loss)
    optimizer = tf.train.GradientDescentOptimizer(learning_rate)
    global_step = tf.Variable(0, name="global_step", trainable=False)
    return optimizer.minimize(loss, global_step=global_step)


def evaluation(logits, labels):
    """The number of examples whose label is the top-1 prediction (an int32 scalar)."""
    correct = tf.nn.in_top_k(logits, labels, 1)
    return tf.reduce_sum(tf.cast(correct, tf.int32))
