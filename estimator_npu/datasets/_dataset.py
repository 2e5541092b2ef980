"""In-memory `DataSet` with TF1-tutorial `next_batch` semantics, shared by mnist and digits.

A `DataSet` holds prepared arrays (images already scaled and reshaped, labels already dense
or one-hot) and hands out mini-batches the way
`tensorflow.contrib.learn.python.learn.datasets.mnist.DataSet.next_batch` does:

    order = arange(n)
    on the very first call, if shuffle:  order = permutation(n)
    if start + batch_size > n:           # the epoch ends inside this batch
        epochs_completed += 1
        rest = order[start:]              # the tail of the finished epoch
        if shuffle: order = permutation(n)
        batch = rest + order[:batch_size - len(rest)]
    else:
        batch = order[start:start + batch_size]

So every example is seen exactly once per epoch, each epoch has a fresh order, and the batch
that straddles an epoch boundary is the old epoch's tail followed by the new epoch's head.
As in TF, `epochs_completed` is incremented only when a batch *crosses* the end, so a batch
size that divides `num_examples` increments it at the start of the following batch.

Example:

    ds = DataSet(images, labels, seed=0)
    for _ in range(100):
        x, y = ds.next_batch(32)

Unlike TF, `images`/`labels` keep their original order (batches gather through an index
permutation instead of shuffling the arrays in place), and the random stream is a private
`numpy.random.default_rng(seed)` instead of the global numpy seed.
"""

import collections
import numbers

import numpy as np

Datasets = collections.namedtuple('Datasets', ['train', 'validation', 'test'])
Datasets.__doc__ = """The `(train, validation, test)` triple of `DataSet`s, as in TF1."""


class DataSet:
    """Images and labels with a TF1-tutorial `next_batch`.

    Args:
        images: Array whose first axis indexes examples.
        labels: Array with the same first-axis length as `images`.
        seed: Seed for `numpy.random.default_rng` driving the per-epoch shuffles; `None`
            draws fresh entropy.

    Raises:
        ValueError: If `images` and `labels` differ in length.
    """

    def __init__(self, images, labels, seed=None):
        images = np.asarray(images)
        labels = np.asarray(labels)
        if images.ndim == 0 or labels.ndim == 0 or images.shape[0] != labels.shape[0]:
            raise ValueError(
                'images and labels must have the same number of examples (first axis); got '
                'images.shape=%s, labels.shape=%s' % (images.shape, labels.shape))
        self._images = images
        self._labels = labels
        self._num_examples = images.shape[0]
        self._order = np.arange(self._num_examples)
        self._rng = np.random.default_rng(seed)
        self._epochs_completed = 0
        self._index_in_epoch = 0

    @property
    def images(self):
        """All images, in their original order."""
        return self._images

    @property
    def labels(self):
        """All labels, aligned with `images`."""
        return self._labels

    @property
    def num_examples(self):
        """Number of examples."""
        return self._num_examples

    @property
    def epochs_completed(self):
        """Number of epochs whose end a `next_batch` call has crossed."""
        return self._epochs_completed

    @classmethod
    def fake(cls, one_hot=False, dtype=np.float32, num_examples=10000, image_size=784,
             num_classes=10):
        """The TF tutorials' `fake_data` set: no arrays, `num_examples` reported, and
        `next_batch` returning fake examples (see `next_batch`)."""
        out = cls(np.zeros((0, image_size), dtype), np.zeros(
            (0, num_classes) if one_hot else (0,), np.float32 if one_hot else np.int64))
        out._num_examples = num_examples
        out._fake_shape = (image_size, num_classes, bool(one_hot), np.dtype(dtype))
        return out

    def _fake_batch(self, batch_size):
        image_size, num_classes, one_hot, dtype = getattr(
            self, '_fake_shape', (int(np.prod(self._images.shape[1:])), 10,
                                  self._labels.ndim == 2, self._images.dtype))
        images = np.ones((batch_size, image_size), dtype)
        if one_hot:
            labels = np.zeros((batch_size, num_classes), np.float32)
            labels[:, 0] = 1
        else:
            labels = np.zeros((batch_size,), np.int64)
        return images, labels

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        """Returns the next `batch_size` examples as `(images, labels)`.

        Args:
            batch_size: Number of examples, an int in `[1, num_examples]`.
            fake_data: As in TF's tutorials: return `batch_size` copies of a fake example
                (an image of ones; label 0, or one-hot `[1, 0, ...]`) instead.
            shuffle: Whether to shuffle before the first epoch and between epochs.

        Returns:
            A tuple `(images, labels)` of arrays with `batch_size` rows.

        Raises:
            TypeError: If `batch_size` is not an int.
            ValueError: If `batch_size` is outside `[1, num_examples]`.
        """
        if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral):
            raise TypeError('batch_size must be an int; got %r' % (batch_size,))
        if fake_data:
            return self._fake_batch(batch_size)
        n = self._num_examples
        if not 1 <= batch_size <= n:
            raise ValueError('batch_size must be in [1, num_examples=%d]; got %d'
                             % (n, batch_size))
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            self._order = self._rng.permutation(n)
        if start + batch_size > n:
            self._epochs_completed += 1
            rest = self._order[start:]
            if shuffle:
                self._order = self._rng.permutation(n)
            self._index_in_epoch = batch_size - rest.shape[0]
            index = np.concatenate([rest, self._order[:self._index_in_epoch]])
        else:
            self._index_in_epoch = start + batch_size
            index = self._order[start:self._index_in_epoch]
        return self._images[index], self._labels[index]

    def __repr__(self):
        return 'DataSet(num_examples=%d, images=%s %s, labels=%s %s)' % (
            self._num_examples, self._images.shape, self._images.dtype,
            self._labels.shape, self._labels.dtype)


def dense_to_one_hot(labels_dense, num_classes=10, dtype=np.float32):
    """Converts class indices to one-hot rows.

    Args:
        labels_dense: 1-D integer array of class indices in `[0, num_classes)`.
        num_classes: Number of classes.
        dtype: Dtype of the result.

    Returns:
        Array of shape `[len(labels_dense), num_classes]`.

    Raises:
        ValueError: If a label is outside `[0, num_classes)`.
    """
    labels_dense = np.asarray(labels_dense).reshape(-1)
    if labels_dense.size and (labels_dense.min() < 0 or labels_dense.max() >= num_classes):
        raise ValueError('labels must be in [0, num_classes=%d); got values in [%d, %d]'
                         % (num_classes, labels_dense.min(), labels_dense.max()))
    one_hot = np.zeros((labels_dense.shape[0], num_classes), dtype=dtype)
    one_hot[np.arange(labels_dense.shape[0]), labels_dense] = 1
    return one_hot


def check_image_dtype(dtype):
    """Returns `np.dtype(dtype)` if it is uint8 or floating, else raises `TypeError`."""
    dtype = getattr(dtype, 'as_numpy_dtype', dtype)  # a tf.DType such as tf.float32
    try:
        result = np.dtype(dtype)
    except TypeError:
        result = None
    if result is None or not (result == np.uint8 or np.issubdtype(result, np.floating)):
        raise TypeError('dtype must be numpy.uint8 or a floating dtype such as numpy.float32; '
                        'got %r' % (dtype,))
    return result


def label_array(labels, one_hot, image_dtype, num_classes=10):
    """Returns int64 class labels, or one-hot rows (float32, or `image_dtype` if floating)."""
    if not one_hot:
        return np.asarray(labels, dtype=np.int64)
    dtype = image_dtype if np.issubdtype(image_dtype, np.floating) else np.float32
    return dense_to_one_hot(labels, num_classes, dtype)


def check_validation_size(validation_size, num_train):
    """Raises `TypeError`/`ValueError` unless `validation_size` is an int in `[0, num_train]`."""
    if isinstance(validation_size, bool) or not isinstance(validation_size, numbers.Integral):
        raise TypeError('validation_size must be an int; got %r' % (validation_size,))
    if not 0 <= validation_size <= num_train:
        raise ValueError('validation_size must be between 0 and %d (the number of training '
                         'examples); got %d' % (num_train, validation_size))
