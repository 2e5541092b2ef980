"""A small ResNet for 32x32 images (3 stages of 2 basic blocks, batch norm), on the digits.

The CIFAR-style ResNet of He et al. (2016), scaled down so that a few hundred steps train
in well under a minute on two CPU cores: a 3x3 stem convolution with stride 2 (32x32 ->
16x16, as ImageNet ResNets downsample in their stem), three stages of two basic blocks
(two 3x3 convolutions with batch norm and ReLU, plus the identity shortcut, or a strided
1x1 projection where the shape changes) with ``WIDTHS`` channels and strides 1, 2, 2
(16x16, 8x8, 4x4), global average pooling and a 10-way dense layer;
``MomentumOptimizer(lr, 0.9)``. The bundled digits are upsampled to 28x28 and zero-padded to
32x32x1 (``--data_dir`` MNIST is padded the same way).

    python -m model_zoo.resnet                              # ~0.98 test accuracy, ~30 s
    python -m model_zoo.resnet --steps 50 --iterations_per_loop 5
    python -m model_zoo.resnet --precision_mode allow_mix_precision --loss_scale 128

Batch norm's moving averages (``UPDATE_OPS``) run with every training step; evaluation
uses them. Defaults: 300 steps of batch 32, learning rate 0.1, 10 steps per loop. Test
accuracy on the bundled digits (359 test images) with the defaults: 0.98. Stated accuracy
(``STATED_ACCURACY``): 0.95 (the test suite trains a short budget and checks that the
loss falls).

``--dataset fashion_mnist`` trains on Fashion-MNIST with ``PRESETS["fashion_mnist"]``;
``FASHION_MNIST_ACCURACY`` and docs/results.md give what it reaches.
"""
import sys

import estimator_npu as tf
from model_zoo import common

STATED_ACCURACY = 0.95  # test accuracy on the bundled digits with the defaults
DEFAULTS = dict(steps=300, batch_size=32, learning_rate=0.1, iterations_per_loop=10)
# Flags for --dataset fashion_mnist (docs/results.md: what they reach, how fast).
PRESETS = {"fashion_mnist": dict(steps=6000, batch_size=64, learning_rate=0.1,
                                 iterations_per_loop=100, lr_schedule="cosine")}
# Test accuracy the Fashion-MNIST preset reaches here, measured by `estimator-npu benchmark`
# (docs/results.md); None: the preset has not been run to the end on this machine.
FASHION_MNIST_ACCURACY = 0.902
WIDTHS = (8, 16, 32)
BLOCKS_PER_STAGE = 2
MOMENTUM = 0.9
BN_MOMENTUM = 0.9


def _conv(x, filters, kernel, stride, name):
    return tf.layers.conv2d(x, filters, kernel, strides=stride, padding="same",
                            use_bias=False, kernel_initializer=tf.he_normal(), name=name)


def _bn(x, training, name):
    return tf.layers.batch_normalization(x, momentum=BN_MOMENTUM, training=training,
                                         name=name)


def basic_block(x, filters, stride, training, name):
    """``relu(bn(conv(relu(bn(conv(x))))) + shortcut(x))``."""
    with tf.variable_scope(name):
        shortcut = x
        if stride != 1 or x.shape[-1] != filters:
            shortcut = _bn(_conv(x, filters, 1, stride, "projection"), training, "bn_proj")
        y = tf.nn.relu(_bn(_conv(x, filters, 3, stride, "conv1"), training, "bn1"))
        y = _bn(_conv(y, filters, 3, 1, "conv2"), training, "bn2")
        return tf.nn.relu(y + shortcut)


def model_fn(features, labels, mode, params):
    """``features``: float32 ``[batch, 32, 32, 1]``; ``labels``: int64 ``[batch]``."""
    training = mode == tf.estimator.ModeKeys.TRAIN
    net = tf.nn.relu(_bn(_conv(features, WIDTHS[0], 3, 2, "stem"), training, "bn_stem"))
    for stage, filters in enumerate(WIDTHS):
        for block in range(BLOCKS_PER_STAGE):
            stride = 2 if stage > 0 and block == 0 else 1
            net = basic_block(net, filters, stride, training, f"stage{stage + 1}_block{block + 1}")
    net = tf.reduce_mean(net, axis=[1, 2])                                 # global average
    logits = tf.layers.dense(net, 10, name="logits")
    return common.classifier_spec(
        mode, logits, labels, params,
        lambda: tf.train.MomentumOptimizer(common.learning_rate(params), MOMENTUM))


def main(argv=None, prog=None):
    """Trains and evaluates (``--help`` lists the flags); returns the exit status."""
    args = common.parse_args(argv, __doc__, prog=prog, presets=PRESETS, **DEFAULTS)
    data = common.load_digits(args, layout="image32")
    # Fashion-MNIST: random left-right flips and 2-pixel crops per image in the input
    # pipeline (tf.image ops in Dataset.map).
    augment = common.random_flip_crop(2, args.seed) if args.dataset != "digits" else None
    return common.run(model_fn, args, data, augment=augment)


if __name__ == "__main__":
    sys.exit(main())
