"""``tf.keras.datasets.fashion_mnist.load_data()``: Fashion-MNIST from the four gzipped IDX
files in ``<Keras cache>/fashion-mnist/`` (``train-images-idx3-ubyte.gz``, ...), or, when
they are not cached, from the system copy ``/usr/share/datasets/fashion-mnist/``."""
import os

from estimator_npu.datasets import mnist as _idx
from estimator_npu.keras.datasets._cache import locate

SYSTEM_DIR = "/usr/share/datasets/fashion-mnist"
ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"


def load_data():
    """``(x_train, y_train), (x_test, y_test)``: uint8 ``[N, 28, 28]`` images, uint8 labels.

    Raises:
        FileNotFoundError: a file is neither in the Keras cache folder nor the system one.
    """
    out = []
    for images, labels in ((_idx.TRAIN_IMAGES, _idx.TRAIN_LABELS),
                           (_idx.TEST_IMAGES, _idx.TEST_LABELS)):
        arrays = []
        for name, magic in ((images, _idx.IMAGES_MAGIC), (labels, _idx.LABELS_MAGIC)):
            fname = name + ".gz"
            path = locate(os.path.join("fashion-mnist", fname),
                          "tf.keras.datasets.fashion_mnist.load_data", ORIGIN + fname,
                          extra=(os.path.join(SYSTEM_DIR, fname),))
            arrays.append(_idx.read_idx(path, magic))
        out.append(tuple(arrays))
    return tuple(out)
