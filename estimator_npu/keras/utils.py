"""``tf.keras.utils``: ``to_categorical``, ``normalize``, ``get_file`` (local cache only),
``plot_model`` (not implemented: raises), ``Sequence`` and the custom objects that
``load_model`` / ``model_from_json`` look names up in (``custom_object_scope``,
``CustomObjectScope``, ``get_custom_objects``)."""
import os

import numpy as np

from estimator_npu.keras.engine.model_config import (CustomObjectScope,  # noqa: F401
                                                     custom_object_scope, get_custom_objects)


def to_categorical(y, num_classes=None, dtype="float32"):
    y = np.asarray(y, dtype="int")
    shape = y.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = shape[:-1]
    y = y.ravel()
    num_classes = int(num_classes or (np.max(y) + 1))
    out = np.zeros((len(y), num_classes), dtype=dtype)
    out[np.arange(len(y)), y] = 1
    return out.reshape(shape + (num_classes,))


def normalize(x, axis=-1, order=2):
    n = np.atleast_1d(np.linalg.norm(x, order, axis))
    n[n == 0] = 1
    return x / np.expand_dims(n, axis)


def get_file(fname, origin=None, cache_subdir="datasets", cache_dir=None, **kwargs):
    """The path of ``fname`` in the Keras cache (``~/.keras/<cache_subdir>``); nothing is
    downloaded (no network)."""
    root = cache_dir or os.environ.get("KERAS_HOME", os.path.join(os.path.expanduser("~"),
                                                                   ".keras"))
    path = os.path.join(root, cache_subdir, fname)
    if not os.path.exists(path):
        raise FileNotFoundError(f"get_file: {path} is not in the Keras cache and "
                                f"estimator_npu does not download ({origin})")
    return path


class Sequence:
    """Base class of batch sequences for ``fit_generator``: ``__getitem__``, ``__len__``."""

    def __getitem__(self, index):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    def __iter__(self):
        while True:
            for i in range(len(self)):
                yield self[i]
            self.on_epoch_end()

    def on_epoch_end(self):
        pass


def plot_model(model, *args, **kwargs):
    raise NotImplementedError("estimator_npu does not implement tf.keras.utils.plot_model")
