"""tf.keras.datasets.*.load_data() from fake files in TF's cache names and formats, against
what TF 2.15's own loaders return on the same files (tools/record_keras_datasets.py)."""
import gzip
import importlib.util
import json
import os

import numpy as np
import pytest

from estimator_npu.datasets import mnist as idx
from estimator_npu.keras import datasets

HERE = os.path.dirname(__file__)


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


FAKE = _load("fake_files", os.path.join(HERE, "fake_files.py"))
REC = _load("record_keras_datasets",
            os.path.join(HERE, "..", "..", "..", "tools", "record_keras_datasets.py"))
with open(os.path.join(HERE, "datasets_goldens.json")) as _f:
    GOLD = json.load(_f)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    home = tmp_path_factory.mktemp("keras_home")
    FAKE.write_all(str(home / "datasets"))
    return home


@pytest.fixture
def keras_home(cache, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(cache))
    return cache


@pytest.mark.parametrize("key,call", [
    ("cifar10", lambda: datasets.cifar10.load_data()),
    ("cifar100_fine", lambda: datasets.cifar100.load_data()),
    ("cifar100_coarse", lambda: datasets.cifar100.load_data("coarse")),
    ("boston", lambda: datasets.boston_housing.load_data()),
    ("boston_split", lambda: datasets.boston_housing.load_data(test_split=0.5, seed=3)),
    ("imdb", lambda: datasets.imdb.load_data()),
    ("imdb_opts", lambda: datasets.imdb.load_data(num_words=8, skip_top=2, maxlen=6, seed=5)),
    ("imdb_no_start", lambda: datasets.imdb.load_data(start_char=None, oov_char=None,
                                                      num_words=10)),
])
def test_load_data_as_tf(keras_home, key, call):
    assert REC._describe(call()) == GOLD[key]


def test_cifar10_layout(keras_home):
    (x, y), (xt, yt) = datasets.cifar10.load_data()
    assert x.shape == (50000, 32, 32, 3) and x.dtype == np.uint8
    assert y.shape == (50000, 1) and y.dtype == np.uint8
    assert xt.shape == (3, 32, 32, 3) and yt.shape == (3, 1) and yt.dtype == np.uint8


def test_missing_files_name_the_path(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    for mod, name in ((datasets.cifar10, "cifar-10-batches-py"),
                      (datasets.cifar100, "cifar-100-python"),
                      (datasets.imdb, "imdb.npz"),
                      (datasets.boston_housing, "boston_housing.npz")):
        want = os.path.join(str(tmp_path), "datasets", name)
        with pytest.raises(FileNotFoundError, match=r"does not download.*TF downloads it "
                                                    r"from https://") as err:
            mod.load_data()
        assert want in str(err.value)
    with pytest.raises(ValueError, match="label_mode"):
        datasets.cifar100.load_data("medium")
    with pytest.raises(TypeError, match="Unrecognized keyword arguments"):
        datasets.imdb.load_data(bogus=1)


def test_imdb_word_index(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    (tmp_path / "datasets").mkdir()
    (tmp_path / "datasets" / "imdb_word_index.json").write_text('{"the": 1, "and": 2}')
    assert datasets.imdb.get_word_index() == {"the": 1, "and": 2}


def test_fashion_mnist_falls_back_to_the_system_copy(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "empty"))
    system = tmp_path / "system"
    system.mkdir()
    x = np.arange(3 * 28 * 28, dtype=np.uint8).reshape(3, 28, 28)
    y = np.array([1, 2, 3], np.uint8)
    for images, labels in ((idx.TRAIN_IMAGES, idx.TRAIN_LABELS),
                           (idx.TEST_IMAGES, idx.TEST_LABELS)):
        idx.write_idx(system / (images + ".gz"), x)
        idx.write_idx(system / (labels + ".gz"), y)
    monkeypatch.setattr(datasets.fashion_mnist, "SYSTEM_DIR", str(system))
    (a, b), (c, d) = datasets.fashion_mnist.load_data()
    np.testing.assert_array_equal(a, x)
    assert a.dtype == np.uint8 and b.tolist() == [1, 2, 3] and c.shape == (3, 28, 28)
    with gzip.open(system / (idx.TRAIN_LABELS + ".gz")) as f:
        assert f.read(4) == b"\x00\x00\x08\x01"  # the real IDX labels magic


@pytest.mark.skipif(not os.path.exists("/usr/share/datasets/fashion-mnist"),
                    reason="no system Fashion-MNIST copy at /usr/share/datasets/fashion-mnist")
def test_fashion_mnist_system_copy_shapes(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    (x, y), (xt, yt) = datasets.fashion_mnist.load_data()
    assert x.shape == (60000, 28, 28) and x.dtype == np.uint8 and y.shape == (60000,)
    assert xt.shape == (10000, 28, 28) and yt.dtype == np.uint8
