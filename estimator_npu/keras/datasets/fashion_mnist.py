"""``tf.keras.datasets.fashion_mnist.load_data()``: Fashion-MNIST from the four gzipped IDX
files in ``<Keras cache>/fashion-mnist/`` (``train-images-idx3-ubyte.gz``, ...)."""
import os

from estimator_npu.datasets import mnist as _idx
from estimator_npu.keras.datasets._cache import locate


def load_data():
    """``(x_train, y_train), (x_test, y_test)``: uint8 ``[N, 28, 28]`` images, uint8 labels.

    Raises:
        FileNotFoundError: a file is not in the Keras cache folder.
    """
    folder = os.path.join("fashion-mnist")
    out = []
    for images, labels in ((_idx.TRAIN_IMAGES, _idx.TRAIN_LABELS),
                           (_idx.TEST_IMAGES, _idx.TEST_LABELS)):
        x = _idx.read_idx(locate(os.path.join(folder, images + ".gz"),
                                 "tf.keras.datasets.fashion_mnist.load_data"),
                          _idx.IMAGES_MAGIC)
        y = _idx.read_idx(locate(os.path.join(folder, labels + ".gz"),
                                 "tf.keras.datasets.fashion_mnist.load_data"),
                          _idx.LABELS_MAGIC)
        out.append((x, y))
    return tuple(out)
