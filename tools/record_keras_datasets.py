"""Records what TF 2.15's tf.keras.datasets.*.load_data() return for small fake files in
TF's cache formats (tests/keras/datasets/fake_files.py writes them), for
tests/keras/datasets. TF's get_file would try to download (its hash check fails on fake
files), so it is replaced by the plain cache path; everything after it is TF's own code.
    /tmp/tf215/bin/python tools/record_keras_datasets.py
"""
import hashlib
import importlib.util
import json
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "tests", "keras", "datasets")


def _fake():
    spec = importlib.util.spec_from_file_location("fake_files",
                                                  os.path.join(TESTS, "fake_files.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _describe(result):
    (a, b), (c, d) = result
    out = []
    for arr in (a, b, c, d):
        arr = np.asarray(arr)
        if arr.dtype == object:
            values = [list(map(int, s)) for s in arr]
        elif arr.size > 1000:  # the full-size fake cifar10: a digest and a corner
            values = {"sha256": hashlib.sha256(np.ascontiguousarray(arr).tobytes()).hexdigest(),
                      "corner": arr.reshape(-1)[:20].tolist()}
        else:
            values = arr.tolist()
        out.append({"dtype": str(arr.dtype), "shape": list(arr.shape), "values": values})
    return out


def main():
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    import keras.src.datasets.boston_housing as boston
    import keras.src.datasets.cifar10 as c10
    import keras.src.datasets.cifar100 as c100
    import keras.src.datasets.imdb as imdb
    root = tempfile.mkdtemp()
    cache = os.path.join(root, "datasets")
    _fake().write_all(cache)
    for mod in (boston, c10, c100, imdb):
        mod.get_file = lambda fname, *a, **k: os.path.join(cache, fname)
    gold = {"cifar10": _describe(c10.load_data()),
            "cifar100_fine": _describe(c100.load_data()),
            "cifar100_coarse": _describe(c100.load_data("coarse")),
            "boston": _describe(boston.load_data()),
            "boston_split": _describe(boston.load_data(test_split=0.5, seed=3)),
            "imdb": _describe(imdb.load_data()),
            "imdb_opts": _describe(imdb.load_data(num_words=8, skip_top=2, maxlen=6,
                                                  seed=5)),
            "imdb_no_start": _describe(imdb.load_data(start_char=None, oov_char=None,
                                                      num_words=10))}
    with open(os.path.join(TESTS, "datasets_goldens.json"), "w") as f:
        json.dump(gold, f)
    print("wrote", TESTS, file=sys.stderr)


if __name__ == "__main__":
    main()
