"""``tf.keras.datasets.boston_housing.load_data()`` from ``<Keras cache>/boston_housing.npz``
(keys ``x`` [506, 13], ``y`` [506]), shuffled with ``RandomState(seed)`` and split as TF's."""
import numpy as np

from estimator_npu.keras.datasets._cache import locate

ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/boston_housing.npz"


def load_data(path="boston_housing.npz", test_split=0.2, seed=113):
    """``(x_train, y_train), (x_test, y_test)`` (float64; 404 / 102 rows for the real file).

    Raises:
        ValueError: ``test_split`` is not in [0, 1).
        FileNotFoundError: the file is not in the Keras cache.
    """
    if not 0 <= test_split < 1:
        raise ValueError(f"boston_housing.load_data: test_split must be in [0, 1), got "
                         f"{test_split}")
    with np.load(locate(path, "tf.keras.datasets.boston_housing.load_data", ORIGIN),
                 allow_pickle=True) as f:
        x, y = f["x"], f["y"]
    indices = np.arange(len(x))
    np.random.RandomState(seed).shuffle(indices)
    x, y = x[indices], y[indices]
    cut = int(len(x) * (1 - test_split))
    return (np.array(x[:cut]), np.array(y[:cut])), (np.array(x[cut:]), np.array(y[cut:]))
