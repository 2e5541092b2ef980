"""Tests for the MNIST IDX reader and the shared `DataSet` (`estimator_npu.datasets.mnist`)."""

import gzip
import os

import numpy as np
import pytest

from estimator_npu.datasets import mnist
from estimator_npu.datasets.mnist import DataSet

NAMES = ['train-images-idx3-ubyte', 'train-labels-idx1-ubyte',
         't10k-images-idx3-ubyte', 't10k-labels-idx1-ubyte']


def _fake_mnist(folder, rng, gz=(True, True, True, True), num_train=30, num_test=10):
    """Writes a small MNIST-shaped folder; returns the uint8 arrays written."""
    arrays = [rng.integers(0, 256, (num_train, 28, 28), dtype=np.uint8),
              rng.integers(0, 10, num_train, dtype=np.uint8),
              rng.integers(0, 256, (num_test, 28, 28), dtype=np.uint8),
              rng.integers(0, 10, num_test, dtype=np.uint8)]
    os.makedirs(folder, exist_ok=True)
    for name, array, zipped in zip(NAMES, arrays, gz):
        mnist.write_idx(os.path.join(folder, name + ('.gz' if zipped else '')), array)
    return arrays


@pytest.mark.parametrize('gz', [(True,) * 4, (False,) * 4, (True, False, False, True)])
def test_round_trip_gz_and_raw(tmp_path, gz):
    rng = np.random.default_rng(0)
    train_x, train_y, test_x, test_y = _fake_mnist(tmp_path, rng, gz)
    data = mnist.read_data_sets(str(tmp_path), validation_size=5)
    assert data.train.images.shape == (25, 784)
    assert data.train.images.dtype == np.float32
    np.testing.assert_allclose(data.train.images, train_x[5:].reshape(25, 784) / 255.0,
                               rtol=1e-6)
    np.testing.assert_array_equal(data.train.labels, train_y[5:])
    assert data.train.labels.dtype == np.int64
    np.testing.assert_array_equal(data.validation.labels, train_y[:5])
    np.testing.assert_allclose(data.test.images * 255, test_x.reshape(10, 784), atol=1e-4)
    assert data.test.num_examples == 10


def test_gz_file_is_actually_gzipped_and_preferred_over_raw(tmp_path):
    rng = np.random.default_rng(1)
    _, train_y, _, _ = _fake_mnist(tmp_path, rng)
    with gzip.open(tmp_path / (NAMES[1] + '.gz'), 'rb') as f:
        assert int.from_bytes(f.read(4), 'big') == 2049
    mnist.write_idx(str(tmp_path / NAMES[1]), (train_y + 1) % 10)  # a decoy raw copy
    data = mnist.read_data_sets(str(tmp_path), validation_size=0)
    np.testing.assert_array_equal(data.train.labels, train_y)


@pytest.mark.parametrize('dtype', [np.uint8, np.int8, np.int16, np.int32, np.float32,
                                   np.float64])
@pytest.mark.parametrize('suffix', ['', '.gz'])
def test_write_read_idx_round_trip(tmp_path, dtype, suffix):
    rng = np.random.default_rng(2)
    array = (rng.random((3, 4, 5)) * 100).astype(dtype)
    path = str(tmp_path / ('array.idx' + suffix))
    mnist.write_idx(path, array)
    back = mnist.read_idx(path)
    assert back.dtype == array.dtype
    np.testing.assert_array_equal(back, array)


def test_wrong_magic_number_names_the_file(tmp_path):
    rng = np.random.default_rng(3)
    _fake_mnist(tmp_path, rng)
    bad = tmp_path / (NAMES[2] + '.gz')
    mnist.write_idx(str(bad), rng.integers(0, 10, 10, dtype=np.uint8))  # a labels file
    with pytest.raises(ValueError) as info:
        mnist.read_data_sets(str(tmp_path))
    message = str(info.value)
    assert str(bad) in message
    assert '2049' in message and '2051' in message


def test_truncated_file_and_count_mismatch(tmp_path):
    rng = np.random.default_rng(4)
    _fake_mnist(tmp_path, rng, gz=(False,) * 4)
    path = tmp_path / NAMES[0]
    path.write_bytes(path.read_bytes()[:-1])
    with pytest.raises(ValueError, match='bytes'):
        mnist.read_data_sets(str(tmp_path))
    mnist.write_idx(str(path), rng.integers(0, 256, (29, 28, 28), dtype=np.uint8))
    with pytest.raises(ValueError, match='29 images.*30 labels'):
        mnist.read_data_sets(str(tmp_path))


def test_missing_folder_names_folder_and_every_file(tmp_path):
    folder = tmp_path / 'nowhere'
    with pytest.raises(FileNotFoundError) as info:
        mnist.read_data_sets(str(folder))
    message = str(info.value)
    assert str(folder) in message
    assert 'does not exist' in message
    for name in NAMES:
        assert name + '.gz' in message
        assert name + ' ' in message or name + ',' in message or name + '.' in message


def test_missing_file_is_listed(tmp_path):
    _fake_mnist(tmp_path, np.random.default_rng(5))
    os.remove(tmp_path / (NAMES[3] + '.gz'))
    with pytest.raises(FileNotFoundError) as info:
        mnist.read_data_sets(str(tmp_path))
    message = str(info.value)
    assert str(tmp_path) in message
    assert 'Missing: ' + NAMES[3] in message
    assert 'does not exist' not in message


def test_one_hot_uint8_and_unreshaped(tmp_path):
    train_x, train_y, _, _ = _fake_mnist(tmp_path, np.random.default_rng(6))
    data = mnist.read_data_sets(str(tmp_path), one_hot=True, dtype=np.uint8, reshape=False,
                                validation_size=0)
    assert data.train.images.shape == (30, 28, 28, 1)
    assert data.train.images.dtype == np.uint8
    np.testing.assert_array_equal(data.train.images[..., 0], train_x)
    assert data.train.labels.shape == (30, 10)
    assert data.train.labels.dtype == np.float32
    np.testing.assert_array_equal(data.train.labels.argmax(axis=1), train_y)
    np.testing.assert_array_equal(data.train.labels.sum(axis=1), 1)


@pytest.mark.parametrize('size', [0, 30])
def test_validation_size_bounds_are_accepted(tmp_path, size):
    _fake_mnist(tmp_path, np.random.default_rng(7))
    data = mnist.read_data_sets(str(tmp_path), validation_size=size)
    assert (data.train.num_examples, data.validation.num_examples) == (30 - size, size)


@pytest.mark.parametrize('size, error', [(-1, ValueError), (31, ValueError),
                                         (5.0, TypeError), (True, TypeError)])
def test_bad_validation_size(tmp_path, size, error):
    _fake_mnist(tmp_path, np.random.default_rng(8))
    with pytest.raises(error) as info:
        mnist.read_data_sets(str(tmp_path), validation_size=size)
    assert 'validation_size' in str(info.value)
    assert repr(size) in str(info.value)


def test_bad_dtype(tmp_path):
    _fake_mnist(tmp_path, np.random.default_rng(9))
    with pytest.raises(TypeError, match='dtype'):
        mnist.read_data_sets(str(tmp_path), dtype=np.int32)


def _stream(dataset, batch_size, num_batches, shuffle=True):
    return [dataset.next_batch(batch_size, shuffle=shuffle)[1] for _ in range(num_batches)]


def test_next_batch_each_example_once_per_epoch_and_reshuffled():
    n, batch_size = 30, 7
    dataset = DataSet(np.arange(n) * 10, np.arange(n), seed=0)
    batches = _stream(dataset, batch_size, 30)  # 210 examples = 7 epochs
    assert all(b.shape == (batch_size,) for b in batches)
    epochs = np.concatenate(batches).reshape(7, n)
    for epoch in epochs:
        np.testing.assert_array_equal(np.sort(epoch), np.arange(n))
    assert len({tuple(epoch) for epoch in epochs}) == 7
    assert not np.array_equal(epochs[0], np.arange(n))


def test_next_batch_partial_batch_concatenation_and_epoch_count():
    n = 30
    dataset = DataSet(np.arange(n) * 10, np.arange(n), seed=1)
    first = _stream(dataset, 7, 4)
    assert dataset.epochs_completed == 0
    images, labels = dataset.next_batch(7)  # 2 from epoch 0, 5 from epoch 1
    assert dataset.epochs_completed == 1
    np.testing.assert_array_equal(images, labels * 10)
    seen = np.concatenate(first)
    np.testing.assert_array_equal(np.sort(np.concatenate([seen, labels[:2]])), np.arange(n))
    rest = np.concatenate([labels[2:]] + _stream(dataset, 5, 5))  # epoch 1, to its end
    np.testing.assert_array_equal(np.sort(rest), np.arange(n))
    assert dataset.epochs_completed == 1


def test_next_batch_epoch_count_lags_when_batch_divides():
    dataset = DataSet(np.zeros((30, 2)), np.arange(30), seed=2)
    _stream(dataset, 10, 3)
    assert dataset.epochs_completed == 0  # as in TF: counted when the next batch crosses
    _stream(dataset, 10, 1)
    assert dataset.epochs_completed == 1


def test_next_batch_without_shuffle_and_seeding():
    dataset = DataSet(np.zeros((5, 1)), np.arange(5))
    np.testing.assert_array_equal(np.concatenate(_stream(dataset, 3, 4, shuffle=False)),
                                  [0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1])
    same = [DataSet(np.zeros((20, 1)), np.arange(20), seed=5) for _ in range(2)]
    np.testing.assert_array_equal(np.concatenate(_stream(same[0], 6, 9)),
                                  np.concatenate(_stream(same[1], 6, 9)))
    other = DataSet(np.zeros((20, 1)), np.arange(20), seed=6)
    assert not np.array_equal(np.concatenate(_stream(same[0], 6, 9)),
                              np.concatenate(_stream(other, 6, 9)))


def test_images_keep_their_order_and_bad_batch_size():
    images = np.arange(12).reshape(6, 2)
    dataset = DataSet(images, np.arange(6), seed=3)
    dataset.next_batch(4)
    np.testing.assert_array_equal(dataset.images, images)
    for size, error in [(0, ValueError), (7, ValueError), (2.0, TypeError)]:
        with pytest.raises(error, match='batch_size'):
            dataset.next_batch(size)
    with pytest.raises(ValueError, match='same number of examples'):
        DataSet(np.zeros((3, 2)), np.zeros(4))
