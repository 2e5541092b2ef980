"""Small fake data set files in TF's Keras-cache names and formats (shared by the tests and
tools/record_keras_datasets.py)."""
import os
import pickle

import numpy as np


def _batch(path, rng, n, label_keys):
    d = {b"data": rng.integers(0, 256, (n, 3072)).astype(np.uint8)}
    for key, classes in label_keys:
        d[key.encode()] = [int(v) for v in rng.integers(0, classes, n)]
    with open(path, "wb") as f:
        pickle.dump(d, f)


def write_all(cache, cifar10_batch=10000):
    """Writes cifar-10-batches-py/ (``cifar10_batch`` images per file: TF's loader needs
    the real 10000), cifar-100-python/, boston_housing.npz and imdb.npz under ``cache`` (a
    Keras ``datasets`` folder)."""
    rng = np.random.default_rng(0)
    c10 = os.path.join(cache, "cifar-10-batches-py")
    os.makedirs(c10, exist_ok=True)
    for i in range(1, 6):
        _batch(os.path.join(c10, f"data_batch_{i}"), rng, cifar10_batch, [("labels", 10)])
    _batch(os.path.join(c10, "test_batch"), rng, 3, [("labels", 10)])
    c100 = os.path.join(cache, "cifar-100-python")
    os.makedirs(c100, exist_ok=True)
    for name, n in (("train", 4), ("test", 2)):
        _batch(os.path.join(c100, name), rng, n, [("fine_labels", 100),
                                                  ("coarse_labels", 20)])
    np.savez(os.path.join(cache, "boston_housing.npz"), x=rng.random((10, 13)),
             y=rng.random(10) * 50)
    seqs = [list(map(int, rng.integers(1, 12, rng.integers(1, 9)))) for _ in range(11)]
    x = np.empty(11, dtype=object)
    x[:] = seqs
    np.savez(os.path.join(cache, "imdb.npz"), x_train=x[:6], y_train=rng.integers(0, 2, 6),
             x_test=x[6:], y_test=rng.integers(0, 2, 5))
