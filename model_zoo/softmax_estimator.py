"""The seed's softmax regression (784 -> 10, plain SGD) as a model_fn on the NPUEstimator.

The same model as ``model_zoo.mnist_softmax`` (which uses ``sess.run``), written the
Estimator way: ``model_fn`` builds the logits and an ``EstimatorSpec`` per mode, the
input functions hand the bundled digits (upsampled to MNIST's 28x28, flattened to 784) to
the estimator as ``tf.data`` Datasets, and ``NPURunConfig`` runs ``--iterations_per_loop``
training steps per host call.

    python -m model_zoo.softmax_estimator                  # 0.96 test accuracy, ~1 s
    python -m model_zoo.softmax_estimator --iterations_per_loop 100 --steps 1000
    python -m model_zoo.softmax_estimator --data_dir ~/mnist --steps 2000

Defaults: 300 steps of batch 100, learning rate 0.5, 10 steps per loop. Test accuracy on
the bundled digits (359 test images) with the defaults: 0.958. Stated accuracy
(``STATED_ACCURACY``, checked by ``tests/model_zoo/test_models.py``): 0.93.

``--dataset fashion_mnist`` trains on Fashion-MNIST with ``PRESETS["fashion_mnist"]``;
``FASHION_MNIST_ACCURACY`` and docs/results.md give what it reaches.
"""
import sys

import estimator_npu as tf
from model_zoo import common

STATED_ACCURACY = 0.93  # test accuracy on the bundled digits with the defaults (tested)
DEFAULTS = dict(steps=300, batch_size=100, learning_rate=0.5, iterations_per_loop=10)
# Flags for --dataset fashion_mnist (docs/results.md: what they reach, how fast).
PRESETS = {"fashion_mnist": dict(steps=6000, batch_size=500, learning_rate=0.5,
                                 iterations_per_loop=200, lr_schedule="cosine")}
# Test accuracy the Fashion-MNIST preset reaches here, measured by `estimator-npu benchmark`
# (docs/results.md); None: the preset has not been run to the end on this machine.
FASHION_MNIST_ACCURACY = 0.845


def model_fn(features, labels, mode, params):
    """Softmax regression: ``logits = x W + b`` with W, b starting at zero (as the seed)."""
    W = tf.get_variable("W", [784, 10], initializer=tf.zeros_initializer())
    b = tf.get_variable("b", [10], initializer=tf.zeros_initializer())
    logits = tf.matmul(features, W) + b
    return common.classifier_spec(
        mode, logits, labels, params,
        lambda: tf.train.GradientDescentOptimizer(common.learning_rate(params)))


def main(argv=None, prog=None):
    """Trains and evaluates (``--help`` lists the flags); returns the exit status."""
    args = common.parse_args(argv, __doc__, prog=prog, presets=PRESETS, **DEFAULTS)
    data = common.load_digits(args, layout="flat784")
    return common.run(model_fn, args, data)


if __name__ == "__main__":
    sys.exit(main())
