"""LeNet-5 on the bundled digits as 28x28x1 images, trained with momentum 0.9 (W3).

The classic network: conv 5x5x6 (``same`` padding, so 28x28 plays the role of LeNet's
zero-padded 32x32), 2x2 max pool, conv 5x5x16 (``valid``: 10x10), 2x2 max pool, then fully
connected 400 -> 120 -> 84 -> 10, ReLU activations; ``MomentumOptimizer(lr, 0.9)``.

    python -m model_zoo.lenet                                # 0.98 test accuracy, ~10 s
    python -m model_zoo.lenet --iterations_per_loop 100 --steps 1000
    python -m model_zoo.lenet --data_dir ~/mnist --steps 2000

Defaults: 400 steps of batch 64, learning rate 0.02, momentum 0.9, 10 steps per loop.
Test accuracy on the bundled digits (359 test images) with the defaults: 0.978. Stated
accuracy (``STATED_ACCURACY``, checked by ``tests/model_zoo/test_models.py``): 0.95.

``--dataset fashion_mnist`` trains on Fashion-MNIST with ``PRESETS["fashion_mnist"]``;
``FASHION_MNIST_ACCURACY`` and docs/results.md give what it reaches.
"""
import sys

import estimator_npu as tf
from model_zoo import common

STATED_ACCURACY = 0.95  # test accuracy on the bundled digits with the defaults (tested)
DEFAULTS = dict(steps=400, batch_size=64, learning_rate=0.02, iterations_per_loop=10)
# Flags for --dataset fashion_mnist (docs/results.md: what they reach, how fast).
PRESETS = {"fashion_mnist": dict(steps=6000, batch_size=64, learning_rate=0.02,
                                 iterations_per_loop=100, lr_schedule="cosine")}
# Test accuracy the Fashion-MNIST preset reaches here, measured by `estimator-npu benchmark`
# (docs/results.md); None: the preset has not been run to the end on this machine.
FASHION_MNIST_ACCURACY = 0.899
MOMENTUM = 0.9


def model_fn(features, labels, mode, params):
    """``features``: float32 ``[batch, 28, 28, 1]``; ``labels``: int64 ``[batch]``."""
    net = tf.layers.conv2d(features, 6, 5, padding="same", activation=tf.nn.relu,
                           name="conv1")
    net = tf.layers.max_pooling2d(net, 2, 2, name="pool1")                 # 14x14x6
    net = tf.layers.conv2d(net, 16, 5, padding="valid", activation=tf.nn.relu,
                           name="conv2")                                   # 10x10x16
    net = tf.layers.max_pooling2d(net, 2, 2, name="pool2")                 # 5x5x16
    net = tf.layers.flatten(net)                                           # 400
    net = tf.layers.dense(net, 120, activation=tf.nn.relu, name="fc1")
    net = tf.layers.dense(net, 84, activation=tf.nn.relu, name="fc2")
    logits = tf.layers.dense(net, 10, name="logits")
    return common.classifier_spec(
        mode, logits, labels, params,
        lambda: tf.train.MomentumOptimizer(common.learning_rate(params), MOMENTUM))


def main(argv=None, prog=None):
    """Trains and evaluates (``--help`` lists the flags); returns the exit status."""
    args = common.parse_args(argv, __doc__, prog=prog, presets=PRESETS, **DEFAULTS)
    data = common.load_digits(args, layout="image28")
    return common.run(model_fn, args, data)


if __name__ == "__main__":
    sys.exit(main())
