"""A 784-512-512-10 ReLU multilayer perceptron trained with Adam (the W2 workload of bench/).

The bundled digits are upsampled to MNIST's 28x28 and flattened to 784 inputs, so the
network is the classic MNIST MLP: two hidden layers of 512 ReLU units (``tf.layers.dense``,
Glorot-uniform weights), a 10-way softmax, ``AdamOptimizer``.

    python -m model_zoo.mlp                                  # 0.97 test accuracy, ~5 s
    python -m model_zoo.mlp --precision_mode allow_mix_precision --loss_scale dynamic
    python -m model_zoo.mlp --data_dir ~/mnist --steps 3000 --batch_size 128

Defaults: 300 steps of batch 64, learning rate 1e-3, 10 steps per loop. Test accuracy on
the bundled digits (359 test images) with the defaults: 0.975. Stated accuracy
(``STATED_ACCURACY``, checked by ``tests/model_zoo/test_models.py``): 0.95.

``--dataset fashion_mnist`` trains on Fashion-MNIST with ``PRESETS["fashion_mnist"]``;
``FASHION_MNIST_ACCURACY`` and docs/results.md give what it reaches.
"""
import sys

import estimator_npu as tf
from model_zoo import common

STATED_ACCURACY = 0.95  # test accuracy on the bundled digits with the defaults (tested)
DEFAULTS = dict(steps=300, batch_size=64, learning_rate=1e-3, iterations_per_loop=10)
# Flags for --dataset fashion_mnist (docs/results.md: what they reach, how fast).
PRESETS = {"fashion_mnist": dict(steps=6000, batch_size=128, learning_rate=1e-3,
                                 iterations_per_loop=100, lr_schedule="cosine")}
# Test accuracy the Fashion-MNIST preset reaches here, measured by `estimator-npu benchmark`
# (docs/results.md); None: the preset has not been run to the end on this machine.
FASHION_MNIST_ACCURACY = 0.902
HIDDEN_UNITS = (512, 512)


def model_fn(features, labels, mode, params):
    """``features``: float32 ``[batch, 784]``; ``labels``: int64 ``[batch]``."""
    net = features
    for i, units in enumerate(HIDDEN_UNITS):
        net = tf.layers.dense(net, units, activation=tf.nn.relu, name=f"hidden{i + 1}")
    logits = tf.layers.dense(net, 10, name="logits")
    return common.classifier_spec(
        mode, logits, labels, params,
        lambda: tf.train.AdamOptimizer(common.learning_rate(params)))


def main(argv=None, prog=None):
    """Trains and evaluates (``--help`` lists the flags); returns the exit status."""
    args = common.parse_args(argv, __doc__, prog=prog, presets=PRESETS, **DEFAULTS)
    data = common.load_digits(args, layout="flat784")
    return common.run(model_fn, args, data)


if __name__ == "__main__":
    sys.exit(main())
