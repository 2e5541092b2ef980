"""MNIST from local IDX files, as `tensorflow.contrib.learn.python.learn.datasets.mnist`.

`read_data_sets(train_dir)` reads the four standard files from `train_dir`, each either
gzipped (`<name>.gz`, preferred when both exist) or raw:

    train-images-idx3-ubyte   train-labels-idx1-ubyte
    t10k-images-idx3-ubyte    t10k-labels-idx1-ubyte

and returns `Datasets(train, validation, test)`; the first `validation_size` training
examples become the validation set. Nothing is downloaded: a missing folder or file raises
`FileNotFoundError` naming every expected file and the folder.

Example:

    mnist = read_data_sets('/data/mnist', one_hot=True)
    for _ in range(1000):
        batch_xs, batch_ys = mnist.train.next_batch(100)
        sess.run(train_step, feed_dict={x: batch_xs, y_: batch_ys})
    sess.run(accuracy, feed_dict={x: mnist.test.images, y_: mnist.test.labels})

IDX format (big endian): magic `0x0000 <type> <ndim>`, then `ndim` uint32 sizes, then the
data. MNIST images have magic 2051 (ubyte, 3 dims), labels 2049 (ubyte, 1 dim). `write_idx`
writes any such file, e.g. to build a tiny MNIST-shaped folder for tests or docs.
"""

import gzip
import os
import zlib

import numpy as np

from estimator_npu.datasets._dataset import (DataSet, Datasets, check_image_dtype,
                                             check_validation_size, dense_to_one_hot,
                                             label_array)

__all__ = ['DataSet', 'Datasets', 'dense_to_one_hot', 'read_data_sets', 'read_idx',
           'write_idx', 'FILE_NAMES']

TRAIN_IMAGES = 'train-images-idx3-ubyte'
TRAIN_LABELS = 'train-labels-idx1-ubyte'
TEST_IMAGES = 't10k-images-idx3-ubyte'
TEST_LABELS = 't10k-labels-idx1-ubyte'
FILE_NAMES = (TRAIN_IMAGES, TRAIN_LABELS, TEST_IMAGES, TEST_LABELS)

IMAGES_MAGIC = 2051
LABELS_MAGIC = 2049

# IDX type code -> big-endian numpy dtype.
_IDX_DTYPES = {0x08: np.dtype('>u1'), 0x09: np.dtype('>i1'), 0x0B: np.dtype('>i2'),
               0x0C: np.dtype('>i4'), 0x0D: np.dtype('>f4'), 0x0E: np.dtype('>f8')}


def _open(path, mode):
    return gzip.open(path, mode) if str(path).endswith('.gz') else open(path, mode)


def read_idx(path, expected_magic=None):
    """Reads an IDX file (gzipped if `path` ends with `.gz`).

    Args:
        path: File path.
        expected_magic: If given, the magic number the file must have (2051 for MNIST
            images, 2049 for MNIST labels).

    Returns:
        A numpy array in native byte order with the shape stored in the header.

    Raises:
        ValueError: If the magic number is wrong or unknown, or the file is truncated.
    """
    try:
        with _open(path, 'rb') as f:
            data = f.read()
    except (EOFError, gzip.BadGzipFile, zlib.error) as e:
        raise ValueError('IDX file %s is truncated or not a valid gzip file (%s: %s)'
                         % (path, type(e).__name__, e)) from None
    if len(data) < 4:
        raise ValueError('%s is not an IDX file: only %d bytes' % (path, len(data)))
    magic = int.from_bytes(data[:4], 'big')
    if expected_magic is not None and magic != expected_magic:
        raise ValueError('Invalid magic number %d in IDX file %s; expected %d'
                         % (magic, path, expected_magic))
    type_code, ndim = (magic >> 8) & 0xFF, magic & 0xFF
    if magic >> 16 or type_code not in _IDX_DTYPES:
        raise ValueError('Invalid magic number %d in IDX file %s: unknown IDX type'
                         % (magic, path))
    header = 4 + 4 * ndim
    if len(data) < header:
        raise ValueError('IDX file %s is truncated: header needs %d bytes, file has %d'
                         % (path, header, len(data)))
    shape = tuple(int(d) for d in np.frombuffer(data, '>u4', count=ndim, offset=4))
    dtype = _IDX_DTYPES[type_code]
    expected = header + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if len(data) != expected:
        raise ValueError('IDX file %s has %d bytes; header shape %s needs %d'
                         % (path, len(data), shape, expected))
    array = np.frombuffer(data, dtype, offset=header).reshape(shape)
    return array.astype(dtype.newbyteorder('='))


def write_idx(path, array):
    """Writes `array` as an IDX file, gzipped if `path` ends with `.gz`.

    Args:
        path: File path.
        array: Array of dtype uint8, int8, int16, int32, float32 or float64 with at most
            255 dimensions. MNIST images are uint8 `[N, 28, 28]`, labels uint8 `[N]`.

    Raises:
        TypeError: If the dtype has no IDX type code.
    """
    array = np.asarray(array)
    codes = {dtype.newbyteorder('='): code for code, dtype in _IDX_DTYPES.items()}
    code = codes.get(array.dtype.newbyteorder('='))
    if code is None:
        raise TypeError('array dtype must be one of uint8, int8, int16, int32, float32, '
                        'float64 to write an IDX file; got %s' % array.dtype)
    header = bytes([0, 0, code, array.ndim]) + np.asarray(array.shape, '>u4').tobytes()
    with _open(path, 'wb') as f:
        f.write(header + array.astype(_IDX_DTYPES[code]).tobytes())


def _find_files(train_dir):
    """Maps each of `FILE_NAMES` to its path, preferring `.gz`; raises if any is missing."""
    found, missing = {}, []
    for name in FILE_NAMES:
        for candidate in (name + '.gz', name):
            path = os.path.join(train_dir, candidate)
            if os.path.isfile(path):
                found[name] = path
                break
        else:
            missing.append(name)
    if missing:
        folder = os.path.abspath(train_dir)
        state = '' if os.path.isdir(train_dir) else ' (the folder does not exist)'
        raise FileNotFoundError(
            'MNIST files not found in %s%s. Expected these 4 files there, each gzipped '
            '(<name>.gz) or raw (<name>): %s. Missing: %s. Download them from the MNIST '
            'page; read_data_sets does not download.'
            % (folder, state, ', '.join('%s.gz or %s' % (n, n) for n in FILE_NAMES),
               ', '.join(missing)))
    return found


def _read_split(images_path, labels_path):
    images = read_idx(images_path, IMAGES_MAGIC)
    labels = read_idx(labels_path, LABELS_MAGIC)
    if images.shape[0] != labels.shape[0]:
        raise ValueError('%s has %d images but %s has %d labels'
                         % (images_path, images.shape[0], labels_path, labels.shape[0]))
    if labels.size and (labels.min() < 0 or labels.max() > 9):
        bad = int(labels.max()) if labels.max() > 9 else int(labels.min())
        raise ValueError('%s holds label %d at index %d; MNIST labels must be in [0, 9]'
                         % (labels_path, bad, int(np.argmax(labels == bad))))
    return images, labels


def _to_dataset(images, labels, one_hot, dtype, reshape, seed):
    if reshape:
        images = images.reshape(images.shape[0], int(np.prod(images.shape[1:])))
    else:
        images = images[..., np.newaxis]
    if np.issubdtype(dtype, np.floating):
        images = np.multiply(images.astype(dtype), dtype.type(1.0 / 255.0))
    return DataSet(images, label_array(labels, one_hot, dtype), seed=seed)


def read_data_sets(train_dir, fake_data=False, one_hot=False, dtype=np.float32, reshape=True,
                   validation_size=5000, seed=None, source_url=None):
    """Reads MNIST from IDX files in `train_dir` (TF's argument order).

    Args:
        train_dir: Folder holding the four IDX files (see module docstring).
        fake_data: If True, read nothing: each split is `DataSet.fake` (10000 examples
            reported, `next_batch` returns fake examples), as in TF's tutorials.
        one_hot: If True, labels are one-hot rows `[N, 10]` (dtype `dtype` when floating,
            else float32); otherwise int64 class indices `[N]`.
        dtype: `numpy.float32` (or another float dtype) scales pixels to `[0, 1]`;
            `numpy.uint8` keeps the raw 0..255 values.
        reshape: If True, images are `[N, 784]`; otherwise `[N, 28, 28, 1]`.
        validation_size: Number of leading training examples moved to `validation`.
        seed: Seed of each split's `numpy.random.default_rng` used by `next_batch`.
        source_url: Accepted for TF's signature; nothing is downloaded.

    Returns:
        `Datasets(train, validation, test)`.

    Raises:
        FileNotFoundError: If the folder or one of the files is missing.
        ValueError: If a file is not a valid MNIST IDX file, or `validation_size` is not in
            `[0, number of training examples]`.
        TypeError: If `dtype` is neither uint8 nor floating, or `validation_size` not int.
    """
    dtype = check_image_dtype(dtype)
    if fake_data:
        return Datasets(*(DataSet.fake(one_hot=one_hot, dtype=dtype) for _ in range(3)))
    paths = _find_files(train_dir)
    train_images, train_labels = _read_split(paths[TRAIN_IMAGES], paths[TRAIN_LABELS])
    test_images, test_labels = _read_split(paths[TEST_IMAGES], paths[TEST_LABELS])
    check_validation_size(validation_size, train_images.shape[0])

    def make(images, labels):
        return _to_dataset(images, labels, one_hot, dtype, reshape, seed)

    return Datasets(
        train=make(train_images[validation_size:], train_labels[validation_size:]),
        validation=make(train_images[:validation_size], train_labels[:validation_size]),
        test=make(test_images, test_labels))
