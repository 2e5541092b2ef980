"""Reading the CIFAR python pickles (``cifar-10-batches-py``, ``cifar-100-python``)."""
import pickle

import numpy as np

from estimator_npu.keras import backend


def load_batch(fpath, label_key="labels"):
    """``(data [N, 3, 32, 32] uint8, labels list)`` of one pickled batch file."""
    with open(fpath, "rb") as f:
        d = pickle.load(f, encoding="bytes")
    d = {(k.decode("utf8") if isinstance(k, bytes) else k): v for k, v in d.items()}
    if "data" not in d or label_key not in d:
        raise ValueError(f"{fpath}: not a CIFAR batch (keys {sorted(d)}; expected 'data' "
                         f"and {label_key!r})")
    data = np.asarray(d["data"])
    return data.reshape(data.shape[0], 3, 32, 32), d[label_key]


def finish(x_train, y_train, x_test, y_test):
    """TF's layout: labels ``[N, 1]``; images channels-last unless the backend says
    channels_first."""
    y_train = np.reshape(y_train, (len(y_train), 1))
    y_test = np.reshape(y_test, (len(y_test), 1))
    if backend.image_data_format() == "channels_last":
        x_train, x_test = x_train.transpose(0, 2, 3, 1), x_test.transpose(0, 2, 3, 1)
    return (x_train, y_train), (x_test, y_test)
