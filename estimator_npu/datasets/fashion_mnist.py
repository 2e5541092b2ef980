"""Zalando's Fashion-MNIST from local IDX files, with `mnist.read_data_sets`'s interface.

Fashion-MNIST has MNIST's format exactly: 60,000 training and 10,000 test 28x28 greyscale
images in the four (gzipped) IDX files `train-images-idx3-ubyte.gz`,
`train-labels-idx1-ubyte.gz`, `t10k-images-idx3-ubyte.gz`, `t10k-labels-idx1-ubyte.gz`;
the labels are 10 clothing classes (`CLASS_NAMES`). Debian's package installs it:

    apt-get install dataset-fashion-mnist      # -> /usr/share/datasets/fashion-mnist/

Without `train_dir` the first folder of `search_paths()` holding all four files is used:
`$FASHION_MNIST_DIR` if set, then the Debian package's folder, then
`/usr/local/share/datasets/fashion-mnist`. Nothing is downloaded.

Example:

    from estimator_npu.datasets import fashion_mnist
    data = fashion_mnist.read_data_sets(one_hot=True)      # Datasets(train, validation, test)
    x, y = data.train.next_batch(100)
    arrays = fashion_mnist.load()                           # raw uint8 arrays
    arrays.train_images.shape                               # (60000, 28, 28)
"""

import collections
import gzip
import os
import zlib

import numpy as np

from estimator_npu.datasets import mnist

__all__ = ['read_data_sets', 'load', 'find_data_dir', 'search_paths', 'Arrays',
           'CLASS_NAMES', 'DEBIAN_DIR', 'INSTALL_HINT']

DEBIAN_DIR = '/usr/share/datasets/fashion-mnist'
ENV_VAR = 'FASHION_MNIST_DIR'
CLASS_NAMES = ('T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat', 'Sandal', 'Shirt',
               'Sneaker', 'Bag', 'Ankle boot')
INSTALL_HINT = ('Install it with `apt-get install dataset-fashion-mnist` (Debian/Ubuntu: '
                'files go to %s), or download the four IDX files (%s) from '
                'https://github.com/zalandoresearch/fashion-mnist into a folder and pass '
                'that folder as train_dir (examples: --data_dir).'
                % (DEBIAN_DIR, ', '.join(n + '.gz' for n in mnist.FILE_NAMES)))

Arrays = collections.namedtuple(
    'Arrays', ['train_images', 'train_labels', 'test_images', 'test_labels'])
Arrays.__doc__ = """Raw arrays: uint8 images `[N, 28, 28]`, int64 labels `[N]` (0..9)."""


def search_paths():
    """The folders searched, in order, when no `train_dir` is given."""
    paths = []
    if os.environ.get(ENV_VAR):
        paths.append(os.environ[ENV_VAR])
    paths += [DEBIAN_DIR, '/usr/local/share/datasets/fashion-mnist']
    return paths


def _missing(folder):
    """The file names of `mnist.FILE_NAMES` found in `folder` neither gzipped nor raw."""
    return [name for name in mnist.FILE_NAMES
            if not any(os.path.isfile(os.path.join(folder, name + ext))
                       for ext in ('.gz', ''))]


def find_data_dir(train_dir=None):
    """The folder holding the four Fashion-MNIST files.

    Args:
        train_dir: a folder to use; `None` searches `search_paths()`.

    Raises:
        FileNotFoundError: no such folder holds all four files; the message lists each
            folder looked in, what it lacks, and how to install the dataset.
    """
    folders = [os.fspath(train_dir)] if train_dir is not None else search_paths()
    report = []
    for folder in folders:
        missing = _missing(folder)
        if not missing:
            return folder
        state = ('folder does not exist' if not os.path.isdir(folder)
                 else 'missing ' + ', '.join(missing))
        report.append('%s (%s)' % (os.path.abspath(folder), state))
    raise FileNotFoundError(
        'Fashion-MNIST not found. Looked in: %s. %s' % ('; '.join(report), INSTALL_HINT))


def _path(folder, name):
    gz = os.path.join(folder, name + '.gz')
    return gz if os.path.isfile(gz) else os.path.join(folder, name)


def _read(path, magic):
    """`mnist.read_idx`, with a damaged/truncated gzip stream named as a ValueError."""
    try:
        return mnist.read_idx(path, magic)
    except (EOFError, zlib.error, gzip.BadGzipFile) as e:
        raise ValueError('Fashion-MNIST file %s is truncated or corrupt (%s: %s); '
                         'reinstall it. %s' % (path, type(e).__name__, e, INSTALL_HINT)) from e


def _read_split(folder, images_name, labels_name):
    images_path, labels_path = _path(folder, images_name), _path(folder, labels_name)
    images = _read(images_path, mnist.IMAGES_MAGIC)
    labels = _read(labels_path, mnist.LABELS_MAGIC)
    if images.ndim != 3 or images.shape[1:] != (28, 28):
        raise ValueError('%s holds images of shape %s; Fashion-MNIST images are 28x28'
                         % (images_path, images.shape[1:]))
    if images.shape[0] != labels.shape[0]:
        raise ValueError('%s has %d images but %s has %d labels'
                         % (images_path, images.shape[0], labels_path, labels.shape[0]))
    if labels.size and labels.max() > 9:
        raise ValueError('%s has label %d; Fashion-MNIST labels are 0..9'
                         % (labels_path, labels.max()))
    return images, labels.astype(np.int64)


def load(train_dir=None):
    """The four arrays, unscaled: `Arrays(train_images, train_labels, test_images,
    test_labels)`, uint8 images `[N, 28, 28]`, int64 labels.

    Raises:
        FileNotFoundError: see `find_data_dir`.
        ValueError: a file with a bad magic number, a wrong size (truncated), a damaged
            gzip stream, or image/label counts that differ; the message names the file.
    """
    folder = find_data_dir(train_dir)
    train = _read_split(folder, mnist.TRAIN_IMAGES, mnist.TRAIN_LABELS)
    test = _read_split(folder, mnist.TEST_IMAGES, mnist.TEST_LABELS)
    return Arrays(*train, *test)


def read_data_sets(train_dir=None, one_hot=False, dtype=np.float32, reshape=True,
                   validation_size=5000, seed=None, **kwargs):
    """`mnist.read_data_sets` on Fashion-MNIST; `train_dir=None` finds the installed copy.

    Args:
        train_dir: folder of the four IDX files (`None`: see `search_paths()`).
        one_hot, dtype, reshape, validation_size, seed, **kwargs: as `mnist.read_data_sets`.

    Returns:
        `Datasets(train, validation, test)`.

    Raises:
        FileNotFoundError: see `find_data_dir`.
        ValueError: see `load`, and `mnist.read_data_sets`.
    """
    folder = find_data_dir(train_dir)
    try:
        return mnist.read_data_sets(folder, one_hot=one_hot, dtype=dtype, reshape=reshape,
                                    validation_size=validation_size, seed=seed, **kwargs)
    except (EOFError, zlib.error, gzip.BadGzipFile, ValueError):
        load(folder)   # names the damaged file in a Fashion-MNIST error, if one is
        raise
