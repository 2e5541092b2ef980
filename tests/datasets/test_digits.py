"""Tests for the bundled UCI digits (`estimator_npu.datasets.digits`)."""

import numpy as np
import pytest

from estimator_npu.datasets import digits

CLASS_COUNTS = [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]


def _sorted_rows(images, labels):
    """Rows of `[images | label]` in lexicographic order, to compare multisets of examples."""
    rows = np.concatenate([images, np.asarray(labels, np.float64)[:, None]], axis=1)
    return rows[np.lexsort(rows.T[::-1])]


def test_load_arrays_shapes_range_and_counts():
    images, labels = digits.load_arrays()
    assert images.shape == (1797, 64)
    assert images.dtype == np.float32
    assert labels.shape == (1797,)
    assert labels.dtype == np.int64
    assert images.min() == 0.0
    assert images.max() == 1.0
    np.testing.assert_array_equal(images * 16, np.round(images * 16))  # counts 0..16
    assert np.bincount(labels).tolist() == CLASS_COUNTS


def test_default_split_is_fixed_stratified_and_partitions_the_data():
    data = digits.load()
    assert (data.train.num_examples, data.validation.num_examples,
            data.test.num_examples) == (1438, 0, 359)
    expected_test = [int(round(0.2 * c)) for c in CLASS_COUNTS]
    assert np.bincount(data.test.labels).tolist() == expected_test
    # Pinned fingerprint of the documented default split.
    assert data.test.labels[:10].tolist() == [2, 5, 1, 6, 4, 5, 8, 8, 4, 2]
    assert float(data.test.images.sum()) == pytest.approx(7008.4375)
    images, labels = digits.load_arrays()
    np.testing.assert_array_equal(
        _sorted_rows(np.concatenate([data.train.images, data.test.images]),
                     np.concatenate([data.train.labels, data.test.labels])),
        _sorted_rows(images, labels))


def test_split_is_deterministic_per_seed():
    first, second = digits.load(seed=3), digits.load(seed=3)
    np.testing.assert_array_equal(first.test.images, second.test.images)
    np.testing.assert_array_equal(first.train.labels, second.train.labels)
    other = digits.load(seed=4)
    assert not np.array_equal(first.test.images, other.test.images)
    # The same seed also fixes the batch order.
    np.testing.assert_array_equal(first.train.next_batch(50)[0], second.train.next_batch(50)[0])


def test_validation_split_comes_from_train():
    plain = digits.load()
    data = digits.load(validation_size=100)
    assert (data.train.num_examples, data.validation.num_examples,
            data.test.num_examples) == (1338, 100, 359)
    np.testing.assert_array_equal(data.test.images, plain.test.images)
    np.testing.assert_array_equal(
        _sorted_rows(np.concatenate([data.train.images, data.validation.images]),
                     np.concatenate([data.train.labels, data.validation.labels])),
        _sorted_rows(plain.train.images, plain.train.labels))


@pytest.mark.parametrize('kwargs, error, words', [
    ({'validation_size': 1439}, ValueError, ['validation_size', '1439', '1438']),
    ({'validation_size': -1}, ValueError, ['validation_size', '-1']),
    ({'validation_size': 1.5}, TypeError, ['validation_size', '1.5']),
    ({'test_fraction': 1.0}, ValueError, ['test_fraction', '1.0']),
    ({'test_fraction': -0.1}, ValueError, ['test_fraction', '-0.1']),
    ({'dtype': np.int32}, TypeError, ['dtype']),
])
def test_bad_arguments(kwargs, error, words):
    with pytest.raises(error) as info:
        digits.load(**kwargs)
    for word in words:
        assert word in str(info.value)


def test_one_hot_flatten_and_uint8():
    dense = digits.load()
    one_hot = digits.load(one_hot=True)
    assert one_hot.train.labels.shape == (1438, 10)
    assert one_hot.train.labels.dtype == np.float32
    np.testing.assert_array_equal(one_hot.train.labels.sum(axis=1), 1)
    np.testing.assert_array_equal(one_hot.train.labels.argmax(axis=1), dense.train.labels)

    square = digits.load(flatten=False)
    assert square.test.images.shape == (359, 8, 8, 1)
    np.testing.assert_array_equal(square.test.images.reshape(359, 64), dense.test.images)

    raw = digits.load(dtype=np.uint8)
    assert raw.test.images.dtype == np.uint8
    assert raw.test.images.max() == 16
    np.testing.assert_allclose(raw.test.images / 16, dense.test.images)


def test_mnist_shape_layouts_border_and_range():
    data = digits.load(mnist_shape=True)
    assert data.train.images.shape == (1438, 784)
    assert data.train.images.dtype == np.float32
    assert data.train.images.min() >= 0.0
    assert data.train.images.max() <= 1.0
    canvas = data.train.images.reshape(-1, 28, 28)
    box = np.zeros((28, 28), bool)
    box[4:24, 4:24] = True
    assert not canvas[:, ~box].any()
    assert digits.load(mnist_shape=True, flatten=False).test.images.shape == (359, 28, 28, 1)

    rng = np.random.default_rng(0)
    images = rng.random((3, 8, 8)).astype(np.float32)
    assert digits.as_mnist_shape(images).shape == (3, 28, 28)
    assert digits.as_mnist_shape(images[..., None]).shape == (3, 28, 28, 1)
    np.testing.assert_array_equal(digits.as_mnist_shape(images.reshape(3, 64)),
                                  digits.as_mnist_shape(images).reshape(3, 784))
    constant = digits.as_mnist_shape(np.full((1, 64), 0.75))
    np.testing.assert_allclose(constant.reshape(28, 28)[4:24, 4:24], 0.75)
    with pytest.raises(ValueError, match=r'\[N, 64\]'):
        digits.as_mnist_shape(np.zeros((2, 28, 28)))


def test_next_batch_covers_each_training_example_once_per_epoch():
    train = digits.load().train
    batches = [train.next_batch(719)[1] for _ in range(2)]  # 1438 = 2 * 719
    assert np.bincount(np.concatenate(batches)).tolist() == np.bincount(train.labels).tolist()


def test_softmax_regression_beats_90_percent():
    data = digits.load(one_hot=True)
    weights = np.zeros((64, 10))
    bias = np.zeros(10)
    for _ in range(300):
        images, labels = data.train.next_batch(100)
        logits = images @ weights + bias
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))
        probs /= probs.sum(axis=1, keepdims=True)
        grad = (probs - labels) / images.shape[0]
        weights -= 0.5 * images.T @ grad
        bias -= 0.5 * grad.sum(axis=0)
    predictions = (data.test.images @ weights + bias).argmax(axis=1)
    assert (predictions == data.test.labels.argmax(axis=1)).mean() > 0.9
