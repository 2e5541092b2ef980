"""``tf.keras.datasets.mnist.load_data(path="mnist.npz")``: ``(x_train, y_train), (x_test,
y_test)`` as uint8 arrays ``[N, 28, 28]`` / ``[N]`` from Keras' cached ``mnist.npz``."""
import numpy as np

from estimator_npu.keras.datasets._cache import locate


def load_data(path="mnist.npz"):
    """Reads the cached ``mnist.npz`` (keys ``x_train``, ``y_train``, ``x_test``,
    ``y_test``).

    Raises:
        FileNotFoundError: the file is not in the Keras cache folder.
    """
    with np.load(locate(path, "tf.keras.datasets.mnist.load_data")) as f:
        return (f["x_train"], f["y_train"]), (f["x_test"], f["y_test"])
