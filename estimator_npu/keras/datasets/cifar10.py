"""``tf.keras.datasets.cifar10.load_data()`` from the unpacked
``<Keras cache>/cifar-10-batches-py/`` (``data_batch_1`` .. ``_5``, ``test_batch``)."""
import os

import numpy as np

from estimator_npu.keras.datasets._cache import locate
from estimator_npu.keras.datasets.cifar import finish, load_batch

ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"


def load_data():
    """``(x_train, y_train), (x_test, y_test)``: uint8 ``[N, 32, 32, 3]`` images, uint8
    labels ``[N, 1]`` (50000 / 10000 for the real files).

    Raises:
        FileNotFoundError: the folder is not in the Keras cache.
    """
    path = locate("cifar-10-batches-py", "tf.keras.datasets.cifar10.load_data", ORIGIN)
    xs, ys = [], []
    for i in range(1, 6):
        x, y = load_batch(os.path.join(path, f"data_batch_{i}"))
        xs.append(x.astype("uint8"))
        ys.append(np.asarray(y, dtype="uint8"))
    x_test, y_test = load_batch(os.path.join(path, "test_batch"))
    return finish(np.concatenate(xs), np.concatenate(ys), x_test.astype("uint8"),
                  np.asarray(y_test, dtype="uint8"))
