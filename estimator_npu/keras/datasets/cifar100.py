"""``tf.keras.datasets.cifar100.load_data(label_mode)`` from the unpacked
``<Keras cache>/cifar-100-python/`` (``train``, ``test``)."""
import os

import numpy as np

from estimator_npu.keras.datasets._cache import locate
from estimator_npu.keras.datasets.cifar import finish, load_batch

ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"


def load_data(label_mode="fine"):
    """``(x_train, y_train), (x_test, y_test)``: uint8 ``[N, 32, 32, 3]`` images, labels
    ``[N, 1]`` ("fine": 100 classes, "coarse": 20), in the pickles' dtype (int64).

    Raises:
        ValueError: ``label_mode`` is not "fine" or "coarse".
        FileNotFoundError: the folder is not in the Keras cache.
    """
    if label_mode not in ("fine", "coarse"):
        raise ValueError('`label_mode` must be one of `"fine"`, `"coarse"`. '
                         f"Received: label_mode={label_mode}.")
    path = locate("cifar-100-python", "tf.keras.datasets.cifar100.load_data", ORIGIN)
    key = label_mode + "_labels"
    x_train, y_train = load_batch(os.path.join(path, "train"), label_key=key)
    x_test, y_test = load_batch(os.path.join(path, "test"), label_key=key)
    return finish(x_train, np.asarray(y_train), x_test, np.asarray(y_test))
