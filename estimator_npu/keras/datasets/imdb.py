"""``tf.keras.datasets.imdb.load_data()`` / ``get_word_index()`` from
``<Keras cache>/imdb.npz`` and ``imdb_word_index.json``, with TF's shuffling, start/oov
characters, index offset, ``num_words``/``skip_top`` and ``maxlen`` filtering."""
import json

import numpy as np

from estimator_npu.keras.datasets._cache import locate
from estimator_npu.utils import logging

ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"


def _drop_long(maxlen, seqs, labels):
    kept = [(s, y) for s, y in zip(seqs, labels) if len(s) < maxlen]
    return [s for s, _ in kept], [y for _, y in kept]


def load_data(path="imdb.npz", num_words=None, skip_top=0, maxlen=None, seed=113,
              start_char=1, oov_char=2, index_from=3, **kwargs):
    """``(x_train, y_train), (x_test, y_test)``: object arrays of word-index lists and
    int labels, as TF's.

    Raises:
        TypeError: an unknown keyword argument.
        ValueError: ``maxlen`` leaves no sequence.
        FileNotFoundError: the file is not in the Keras cache.
    """
    if "nb_words" in kwargs:
        logging.warning("The `nb_words` argument in `load_data` has been renamed "
                        "`num_words`.")
        num_words = kwargs.pop("nb_words")
    if kwargs:
        raise TypeError(f"Unrecognized keyword arguments: {kwargs}.")
    with np.load(locate(path, "tf.keras.datasets.imdb.load_data", ORIGIN + "imdb.npz"),
                 allow_pickle=True) as f:
        x_train, labels_train = f["x_train"], f["y_train"]
        x_test, labels_test = f["x_test"], f["y_test"]
    rng = np.random.RandomState(seed)
    order = np.arange(len(x_train))
    rng.shuffle(order)
    x_train, labels_train = x_train[order], labels_train[order]
    order = np.arange(len(x_test))
    rng.shuffle(order)
    x_test, labels_test = x_test[order], labels_test[order]
    if start_char is not None:
        x_train = [[start_char] + [w + index_from for w in x] for x in x_train]
        x_test = [[start_char] + [w + index_from for w in x] for x in x_test]
    elif index_from:
        x_train = [[w + index_from for w in x] for x in x_train]
        x_test = [[w + index_from for w in x] for x in x_test]
    else:
        x_train, x_test = [list(x) for x in x_train], [list(x) for x in x_test]
    if maxlen:
        x_train, labels_train = _drop_long(maxlen, x_train, labels_train)
        x_test, labels_test = _drop_long(maxlen, x_test, labels_test)
        if not x_train or not x_test:
            raise ValueError(f"After filtering for sequences shorter than maxlen={maxlen}, "
                             "no sequence was kept. Increase maxlen.")
    xs = x_train + x_test
    labels = np.concatenate([labels_train, labels_test])
    if not num_words:
        num_words = max(max(x) for x in xs)
    if oov_char is not None:
        xs = [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
    else:
        xs = [[w for w in x if skip_top <= w < num_words] for x in xs]
    n = len(x_train)
    return ((_objects(xs[:n]), labels[:n]), (_objects(xs[n:]), labels[n:]))


def _objects(lists):
    # np.array as TF calls it: equal-length lists give a 2-D object array there too
    return np.array(lists, dtype="object")


def get_word_index(path="imdb_word_index.json"):
    """The word -> index dict of ``imdb_word_index.json``."""
    with open(locate(path, "tf.keras.datasets.imdb.get_word_index",
                     ORIGIN + "imdb_word_index.json")) as f:
        return json.load(f)
