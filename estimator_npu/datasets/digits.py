"""The bundled UCI handwritten digits (8x8, 1,797 images), for offline examples and tests.

Data: E. Alpaydin and C. Kaynak, "Optical Recognition of Handwritten Digits", UCI Machine
Learning Repository, 1998, DOI 10.24432/C50P49, CC BY 4.0 (see `data/DIGITS_LICENSE.txt`).
Each image counts the "on" pixels of 4x4 blocks of a 32x32 bitmap, so pixels are integers
0..16; `load` scales them to `[0, 1]`. Classes are balanced (174 to 183 images each).

`load()` returns `Datasets(train, validation, test)` of `DataSet`s with the same interface
as `mnist.read_data_sets` (`images`, `labels`, `num_examples`, `next_batch`). The default
split is fixed: a stratified split (per class, a `seed`-ed permutation puts
`round(test_fraction * class_count)` images in test), 1,438 train / 359 test images.

Example (the MNIST softmax-regression code runs unchanged with `mnist_shape=True`):

    data = digits.load(one_hot=True, mnist_shape=True)   # images [N, 784] in [0, 1]
    batch_xs, batch_ys = data.train.next_batch(100)
    ...
    sess.run(accuracy, feed_dict={x: data.test.images, y_: data.test.labels})

`mnist_shape=True` (or `as_mnist_shape(images)`) upsamples each 8x8 image bilinearly to
20x20 and centres it in a 28x28 canvas with a 4-pixel zero border, like MNIST's digits
which are fitted into a 20x20 box inside 28x28 (MNIST centres by centre of mass; here the
box is centred geometrically).
"""

import importlib.resources
import numbers

import numpy as np

from estimator_npu.datasets._dataset import (DataSet, Datasets, check_image_dtype,
                                             check_validation_size, label_array)

__all__ = ['load', 'load_arrays', 'as_mnist_shape', 'NUM_EXAMPLES', 'NUM_CLASSES']

NUM_EXAMPLES = 1797
NUM_CLASSES = 10
MAX_PIXEL = 16
_SIDE = 8
_MNIST_BOX = 20
_MNIST_SIDE = 28


def _load_raw():
    """Returns the bundled uint8 pixels `[1797, 8, 8]` (0..16) and uint8 labels `[1797]`."""
    resource = importlib.resources.files(__package__).joinpath('data').joinpath('digits.npz')
    with resource.open('rb') as f, np.load(f) as data:
        return data['images'], data['labels']


def load_arrays():
    """Returns all 1,797 digits as raw arrays, in the UCI file's order.

    Returns:
        `(images, labels)`: float32 `[1797, 64]` in `[0, 1]` (row-major 8x8) and int64
        `[1797]` in `0..9`.
    """
    images, labels = _load_raw()
    images = images.reshape(NUM_EXAMPLES, _SIDE * _SIDE).astype(np.float32) / MAX_PIXEL
    return images, labels.astype(np.int64)


def _resize_matrix(src, dst):
    """Returns the `[dst, src]` bilinear (half-pixel centres) interpolation matrix."""
    coords = np.clip((np.arange(dst) + 0.5) * src / dst - 0.5, 0, src - 1)
    low = np.floor(coords).astype(np.int64)
    high = np.minimum(low + 1, src - 1)
    frac = coords - low
    matrix = np.zeros((dst, src))
    np.add.at(matrix, (np.arange(dst), low), 1 - frac)
    np.add.at(matrix, (np.arange(dst), high), frac)
    return matrix


def as_mnist_shape(images):
    """Upsamples 8x8 digits to MNIST's 28x28 layout.

    Each image is resized bilinearly to 20x20 and centred in a 28x28 zero canvas, so a model
    built for MNIST's 784 inputs runs unchanged. Values stay within the input's range.

    Args:
        images: Array `[N, 64]`, `[N, 8, 8]` or `[N, 8, 8, 1]`.

    Returns:
        Array of the input's dtype, `[N, 784]`, `[N, 28, 28]` or `[N, 28, 28, 1]` to match
        the input layout (integer inputs are rounded).

    Raises:
        ValueError: If `images` has another shape.
    """
    images = np.asarray(images)
    shape = images.shape
    if not (len(shape) == 2 and shape[1] == _SIDE * _SIDE
            or len(shape) == 3 and shape[1:] == (_SIDE, _SIDE)
            or len(shape) == 4 and shape[1:] == (_SIDE, _SIDE, 1)):
        raise ValueError('images must have shape [N, 64], [N, 8, 8] or [N, 8, 8, 1]; got %s'
                         % (shape,))
    resize = _resize_matrix(_SIDE, _MNIST_BOX)
    square = images.reshape(shape[0], _SIDE, _SIDE).astype(np.float64)
    boxed = np.einsum('ij,njk,lk->nil', resize, square, resize)
    border = (_MNIST_SIDE - _MNIST_BOX) // 2
    canvas = np.zeros((shape[0], _MNIST_SIDE, _MNIST_SIDE))
    canvas[:, border:border + _MNIST_BOX, border:border + _MNIST_BOX] = boxed
    if not np.issubdtype(images.dtype, np.floating):
        canvas = np.rint(canvas)
    out_shape = {2: (shape[0], _MNIST_SIDE * _MNIST_SIDE),
                 3: (shape[0], _MNIST_SIDE, _MNIST_SIDE),
                 4: (shape[0], _MNIST_SIDE, _MNIST_SIDE, 1)}[len(shape)]
    return canvas.reshape(out_shape).astype(images.dtype)


def _stratified_split(labels, test_fraction, rng):
    """Returns sorted `(train_index, test_index)`, `round(fraction * count)` tests per class."""
    test = []
    for label in range(NUM_CLASSES):
        members = np.flatnonzero(labels == label)
        test.append(rng.permutation(members)[:int(round(test_fraction * members.shape[0]))])
    test = np.sort(np.concatenate(test))
    train = np.setdiff1d(np.arange(labels.shape[0]), test)
    return train, test


def load(one_hot=False, test_fraction=0.2, seed=0, flatten=True, dtype=np.float32,
         mnist_shape=False, validation_size=0):
    """Loads the bundled digits as `Datasets(train, validation, test)`.

    Args:
        one_hot: If True, labels are one-hot rows `[N, 10]` (dtype `dtype` when floating,
            else float32); otherwise int64 class indices `[N]`.
        test_fraction: Fraction of each class held out for `test`, in `[0, 1)`.
        seed: Seed of the stratified split, of the validation draw and of each split's
            `next_batch` shuffling. The default 0 gives the documented fixed split;
            `None` draws fresh entropy (a different split each call).
        flatten: If True, images are `[N, 64]` (or `[N, 784]`); otherwise `[N, 8, 8, 1]`
            (or `[N, 28, 28, 1]`).
        dtype: A floating dtype scales pixels to `[0, 1]`; `numpy.uint8` keeps the raw
            counts 0..16.
        mnist_shape: If True, images are upsampled to 28x28 with `as_mnist_shape`.
        validation_size: Number of training images (a seeded random subset) moved to
            `validation`; 0 leaves `validation` empty.

    Returns:
        `Datasets(train, validation, test)` of `DataSet`s; each keeps the UCI file's order.

    Raises:
        TypeError: If `dtype` is neither uint8 nor floating, or `validation_size` not int.
        ValueError: If `test_fraction` is outside `[0, 1)` or `validation_size` outside
            `[0, number of training images]`.
    """
    dtype = check_image_dtype(dtype)
    if (isinstance(test_fraction, bool) or not isinstance(test_fraction, numbers.Real)
            or not 0 <= test_fraction < 1):
        raise ValueError('test_fraction must be a number in [0, 1); got %r' % (test_fraction,))
    split_seq, valid_seq, *shuffle_seqs = np.random.SeedSequence(seed).spawn(5)
    raw_images, labels = _load_raw()
    train, test = _stratified_split(labels, test_fraction, np.random.default_rng(split_seq))
    check_validation_size(validation_size, train.shape[0])
    valid = np.sort(np.random.default_rng(valid_seq).permutation(train)[:validation_size])
    train = np.setdiff1d(train, valid)

    images = raw_images[..., np.newaxis]
    if np.issubdtype(dtype, np.floating):
        images = images.astype(dtype) / dtype.type(MAX_PIXEL)
    if mnist_shape:
        images = as_mnist_shape(images)
    if flatten:
        images = images.reshape(images.shape[0], -1)
    labels = label_array(labels, one_hot, dtype, NUM_CLASSES)

    splits = [DataSet(images[index], labels[index], seed=shuffle_seq)
              for index, shuffle_seq in zip((train, valid, test), shuffle_seqs)]
    return Datasets(*splits)
