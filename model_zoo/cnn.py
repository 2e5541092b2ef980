"""TF's layers-tutorial CNN ("2 Conv+pooling" in Fashion-MNIST's benchmark table).

conv 5x5x32 (``same``, ReLU), 2x2 max pool (14x14), conv 5x5x64 (``same``, ReLU), 2x2 max
pool (7x7x64 = 3,136), dense 1024 (ReLU), dropout 0.4 (training only), dense 10;
``AdamOptimizer``. 3.27M parameters, almost all in the 3,136 x 1,024 dense layer.

    python -m model_zoo.cnn                                   # bundled digits
    python -m model_zoo.cnn --dataset fashion_mnist           # Fashion-MNIST preset
    python -m model_zoo.cnn --dataset mnist --data_dir ~/mnist

Defaults (digits): 200 steps of batch 64, learning rate 1e-3, 10 steps per loop.
``PRESETS["fashion_mnist"]``: see ``docs/results.md`` for what it reaches and how long it
takes on two CPU cores. Stated accuracy on the digits (``STATED_ACCURACY``): 0.95.
"""
import sys

import estimator_npu as tf
from model_zoo import common

STATED_ACCURACY = 0.95  # test accuracy on the bundled digits with the defaults
DEFAULTS = dict(steps=200, batch_size=64, learning_rate=1e-3, iterations_per_loop=10)
PRESETS = {"fashion_mnist": dict(steps=3000, batch_size=100, learning_rate=1e-3,
                                 iterations_per_loop=100, lr_schedule="cosine")}
# Test accuracy the Fashion-MNIST preset reaches here, measured by `estimator-npu benchmark`
# (docs/results.md); None: the preset has not been run to the end on this machine.
FASHION_MNIST_ACCURACY = 0.917
DROPOUT_RATE = 0.4


def model_fn(features, labels, mode, params):
    """``features``: float32 ``[batch, 28, 28, 1]``; ``labels``: int64 ``[batch]``."""
    training = mode == tf.estimator.ModeKeys.TRAIN
    net = tf.layers.conv2d(features, 32, 5, padding="same", activation=tf.nn.relu,
                           name="conv1")
    net = tf.layers.max_pooling2d(net, 2, 2, name="pool1")                 # 14x14x32
    net = tf.layers.conv2d(net, 64, 5, padding="same", activation=tf.nn.relu,
                           name="conv2")
    net = tf.layers.max_pooling2d(net, 2, 2, name="pool2")                 # 7x7x64
    net = tf.layers.flatten(net)                                           # 3136
    net = tf.layers.dense(net, 1024, activation=tf.nn.relu, name="dense")
    net = tf.layers.dropout(net, rate=DROPOUT_RATE, training=training, name="dropout")
    logits = tf.layers.dense(net, 10, name="logits")
    return common.classifier_spec(
        mode, logits, labels, params,
        lambda: tf.train.AdamOptimizer(common.learning_rate(params)))


def main(argv=None, prog=None):
    """Trains and evaluates (``--help`` lists the flags); returns the exit status."""
    args = common.parse_args(argv, __doc__, prog=prog, presets=PRESETS, **DEFAULTS)
    data = common.load_digits(args, layout="image28")
    return common.run(model_fn, args, data)


if __name__ == "__main__":
    sys.exit(main())
