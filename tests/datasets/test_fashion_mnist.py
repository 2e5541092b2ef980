"""Tests for `estimator_npu.datasets.fashion_mnist`: finding the folder, the missing-dataset
error, truncated/corrupt files named, and `mnist.read_data_sets`'s interface."""

import gzip
import os

import numpy as np
import pytest

from estimator_npu.datasets import fashion_mnist, mnist


def _write(folder, num_train=30, num_test=10, gz=True, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.integers(0, 256, (num_train, 28, 28), dtype=np.uint8),
              rng.integers(0, 10, num_train, dtype=np.uint8),
              rng.integers(0, 256, (num_test, 28, 28), dtype=np.uint8),
              rng.integers(0, 10, num_test, dtype=np.uint8)]
    os.makedirs(folder, exist_ok=True)
    for name, array in zip(mnist.FILE_NAMES, arrays):
        mnist.write_idx(os.path.join(folder, name + ('.gz' if gz else '')), array)
    return arrays


def test_load_and_read_data_sets_from_a_folder(tmp_path):
    train_x, train_y, test_x, test_y = _write(tmp_path)
    arrays = fashion_mnist.load(str(tmp_path))
    np.testing.assert_array_equal(arrays.train_images, train_x)
    np.testing.assert_array_equal(arrays.test_labels, test_y)
    assert arrays.train_labels.dtype == np.int64
    data = fashion_mnist.read_data_sets(str(tmp_path), one_hot=True, validation_size=5)
    assert data.train.images.shape == (25, 784)
    assert data.train.labels.shape == (25, 10)
    np.testing.assert_array_equal(data.validation.labels.argmax(1), train_y[:5])


def test_default_folder_comes_from_the_search_paths(tmp_path, monkeypatch):
    _write(tmp_path / 'fm', gz=False)
    monkeypatch.setenv(fashion_mnist.ENV_VAR, str(tmp_path / 'fm'))
    assert fashion_mnist.find_data_dir() == str(tmp_path / 'fm')
    assert fashion_mnist.read_data_sets(validation_size=0).test.num_examples == 10


def test_missing_dataset_says_where_it_looked_and_how_to_install(tmp_path, monkeypatch):
    (tmp_path / 'half').mkdir()
    mnist.write_idx(str(tmp_path / 'half' / (mnist.TRAIN_IMAGES + '.gz')),
                    np.zeros((2, 28, 28), np.uint8))
    monkeypatch.setattr(fashion_mnist, 'search_paths',
                        lambda: [str(tmp_path / 'nowhere'), str(tmp_path / 'half')])
    with pytest.raises(FileNotFoundError) as e:
        fashion_mnist.read_data_sets()
    message = str(e.value)
    assert str(tmp_path / 'nowhere') in message and 'folder does not exist' in message
    assert str(tmp_path / 'half') in message and mnist.TRAIN_LABELS in message
    assert 'apt-get install dataset-fashion-mnist' in message
    assert 'download the four IDX files' in message
    with pytest.raises(FileNotFoundError, match='apt-get install dataset-fashion-mnist'):
        fashion_mnist.load(str(tmp_path / 'nowhere'))


def test_truncated_raw_file_is_named(tmp_path):
    _write(tmp_path, gz=False)
    path = tmp_path / mnist.TEST_IMAGES
    path.write_bytes(path.read_bytes()[:-100])
    for read in (fashion_mnist.load, fashion_mnist.read_data_sets):
        with pytest.raises(ValueError, match=str(path).replace('\\', '\\\\')):
            read(str(tmp_path))


def test_truncated_gzip_file_is_named(tmp_path):
    _write(tmp_path)
    path = tmp_path / (mnist.TRAIN_IMAGES + '.gz')
    path.write_bytes(path.read_bytes()[:len(path.read_bytes()) // 2])
    for read in (fashion_mnist.load, fashion_mnist.read_data_sets):
        with pytest.raises(ValueError, match='truncated') as e:
            read(str(tmp_path))
        assert str(path) in str(e.value)


def test_bad_magic_and_count_mismatch_are_named(tmp_path):
    _write(tmp_path)
    labels = str(tmp_path / (mnist.TRAIN_LABELS + '.gz'))
    mnist.write_idx(labels, np.zeros((3, 28, 28), np.uint8))       # image magic in labels
    with pytest.raises(ValueError, match='magic number'):
        fashion_mnist.load(str(tmp_path))
    mnist.write_idx(labels, np.zeros(7, np.uint8))                  # 30 images, 7 labels
    with pytest.raises(ValueError, match='30 images') as e:
        fashion_mnist.load(str(tmp_path))
    assert labels in str(e.value)


def test_installed_copy_has_the_published_sizes():
    try:
        folder = fashion_mnist.find_data_dir()
    except FileNotFoundError:
        pytest.skip('Fashion-MNIST not installed (apt-get install dataset-fashion-mnist)')
    with gzip.open(os.path.join(folder, mnist.TEST_LABELS + '.gz')) as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8)
    assert labels.shape == (10000,) and set(labels) == set(range(10))
