"""Bad input to datasets (issue 3, acceptance 5)."""
import numpy as np
import pytest

import estimator_npu as tf
from dataset_helpers import fresh_graph  # noqa: F401 (fresh_graph: autouse)

Dataset = tf.data.Dataset


def test_slices_of_different_lengths_name_both_lengths():
    with pytest.raises(ValueError, match=r"component 0 has 5 and component 1 has 4"):
        Dataset.from_tensor_slices((np.zeros((5, 2)), np.zeros(4)))
    with pytest.raises(ValueError, match=r"has 3 and component 2 has 7"):
        Dataset.from_tensor_slices({"a": np.zeros(3), "b": np.zeros(3), "c": np.zeros(7)})
    with pytest.raises(ValueError, match="scalar"):
        Dataset.from_tensor_slices((np.zeros(3), np.float32(1.0)))


@pytest.mark.parametrize("bad", [0, -3])
def test_batch_size_must_be_positive(bad):
    with pytest.raises(ValueError, match=rf"batch_size must be a positive int.*got {bad}"):
        Dataset.range(3).batch(bad)
    with pytest.raises(ValueError, match=rf"batch_size must be a positive int.*got {bad}"):
        Dataset.range(3).padded_batch(bad, padded_shapes=[])


@pytest.mark.parametrize("bad", [0, -2])
def test_buffer_size_must_be_positive(bad):
    with pytest.raises(ValueError, match=rf"buffer_size must be a positive int.*got {bad}"):
        Dataset.range(3).shuffle(bad)
    with pytest.raises(ValueError, match=rf"buffer_size must be a positive int.*got {bad}"):
        Dataset.range(3).prefetch(bad)


def test_shard_arguments():
    with pytest.raises(ValueError, match=r"index must be less than num_shards \(3\), got 3"):
        Dataset.range(9).shard(3, 3)
    with pytest.raises(ValueError, match=r"index must be less than num_shards \(2\), got 5"):
        Dataset.range(9).shard(2, 5)
    with pytest.raises(ValueError, match=r"num_shards must be a positive int.*got 0"):
        Dataset.range(9).shard(0, 0)
    with pytest.raises(ValueError, match=r"index must be a non-negative int.*got -1"):
        Dataset.range(9).shard(2, -1)


def test_type_errors_name_the_argument():
    with pytest.raises(TypeError, match="batch_size must be an int, got float: 2.5"):
        Dataset.range(3).batch(2.5)
    with pytest.raises(TypeError, match="batch_size must be an int, got bool"):
        Dataset.range(3).batch(True)
    with pytest.raises(TypeError, match="drop_remainder must be a bool"):
        Dataset.range(3).batch(2, drop_remainder=1)
    with pytest.raises(TypeError, match="seed must be an int"):
        Dataset.range(3).shuffle(2, seed="x")
    with pytest.raises(TypeError, match="integer tensor"):
        Dataset.range(3).batch(tf.constant(2.0))


def test_other_counts():
    with pytest.raises(ValueError, match=r"count must be a non-negative int.*got -2"):
        Dataset.range(3).repeat(-2)
    with pytest.raises(ValueError, match=r"count must be a non-negative int.*got -5"):
        Dataset.range(3).take(-5)
    with pytest.raises(ValueError, match=r"num_parallel_calls must be a positive int.*got 0"):
        Dataset.range(3).map(lambda v: v, num_parallel_calls=0)
    with pytest.raises(ValueError, match="step must not be 0"):
        Dataset.range(0, 3, 0)


def test_zip_and_structure_errors():
    with pytest.raises(TypeError, match="nested structure of Datasets"):
        Dataset.zip((Dataset.range(2), 3))
    with pytest.raises(TypeError, match="output_shapes must be a sequence of 2 shapes"):
        Dataset.from_generator(lambda: iter([]), (tf.int32, tf.int32), [None])
    with pytest.raises(TypeError, match="different types"):
        Dataset.range(2).concatenate(Dataset.from_tensor_slices(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="generator must be callable"):
        Dataset.from_generator([1, 2], tf.int32)
