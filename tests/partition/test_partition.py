"""dynamic_partition / dynamic_stitch / sharded embedding lookups against real TF 2.15
(values recorded by ``tools/record_tf_partition.py``), their static shapes and errors."""
import importlib.util
import json
import pathlib

import pytest

import estimator_npu as tf

HERE = pathlib.Path(__file__).parent
GOLDEN = json.loads((HERE / "partition_golden.json").read_text())
_spec = importlib.util.spec_from_file_location("estimator_npu_tests_partition_cases",
                                               HERE / "partition_cases.py")
CASES = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(CASES)


def test_every_case_has_a_golden_record():
    assert sorted(CASES.CASES) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(CASES.CASES))
def test_values_match_tf(name, check_recorded_values):
    check_recorded_values(CASES.CASES[name], GOLDEN[name])


def test_static_shapes_as_tf():
    with tf.Graph().as_default():
        d = tf.placeholder(tf.float32, [None, 3])
        p = tf.placeholder(tf.int32, [None])
        parts = tf.dynamic_partition(d, p, 3)
        assert [x.shape.as_list() for x in parts] == [[None, 3]] * 3
        assert tf.dynamic_stitch([p, p], parts[:2]).shape.as_list() == [None, 3]
        assert tf.dynamic_stitch([[0, 2], [[1], [3]]],
                                 [tf.zeros([2, 2]), tf.zeros([2, 1, 2])]).shape == [4, 2]
        assert tf.dynamic_partition(tf.placeholder(tf.float32), tf.placeholder(tf.int32),
                                    2)[0].shape.ndims is None
        assert tf.dynamic_partition(tf.zeros([4, 5, 6]), tf.zeros([4, 5], tf.int32),
                                    2)[1].shape.as_list() == [None, 6]
        shards = [tf.zeros([4, 2]), tf.zeros([4, 2]), tf.zeros([3, 2])]
        ids = tf.placeholder(tf.int32, [None, 2])
        assert tf.nn.embedding_lookup(shards, ids).shape.as_list() == [None, 2, 2]
        assert tf.nn.embedding_lookup(shards, tf.placeholder(tf.int32)).shape.ndims is None
        assert tf.nn.embedding_lookup(shards[0], ids, name="el").name == "el/Identity:0"


def test_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimensions must be equal"):
            tf.dynamic_partition(tf.zeros([4]), tf.zeros([3], tf.int32), 2)
        with pytest.raises(TypeError, match="partitions"):
            tf.dynamic_partition(tf.zeros([4]), tf.zeros([4], tf.int64), 2)
        with pytest.raises(ValueError, match="Need at least one param"):
            tf.nn.embedding_lookup([], [0])
        with pytest.raises(ValueError, match="Unrecognized partition strategy: x"):
            tf.nn.embedding_lookup([tf.zeros([2, 2])] * 2, [0], partition_strategy="x")
        d = tf.placeholder(tf.float32, [None])
        p = tf.placeholder(tf.int32, [None])
        parts = tf.dynamic_partition(d, p, 2)
        with tf.Session() as s:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"partitions\[1\] = 3 is not in \[0, 2\)"):
                s.run(parts, {d: [1., 2.], p: [0, 3]})
            with pytest.raises(tf.errors.InvalidArgumentError, match="must start with"):
                s.run(parts, {d: [1., 2.], p: [0, 1, 1]})


def test_partitioners_as_tf():
    shape = tf.TensorShape([100, 4])
    assert tf.fixed_size_partitioner(3)(shape=shape, dtype=tf.float32) == [3, 1]
    assert tf.fixed_size_partitioner(3, axis=1)(shape=shape, dtype=tf.float32) == [1, 3]
    mm = tf.min_max_variable_partitioner
    assert mm(4, min_slice_size=16)(shape=shape, dtype=tf.float32) == [4, 1]
    assert mm(4, min_slice_size=1000)(shape=shape, dtype=tf.float32) == [2, 1]
    assert mm(400, min_slice_size=16)(shape=shape, dtype=tf.float32) == [100, 1]
    va = tf.variable_axis_size_partitioner
    assert va(100)(shape=shape, dtype=tf.float32) == [17, 1]
    assert va(1000, max_shards=2)(shape=shape, dtype=tf.float32) == [2, 1]
    assert va(10)(shape=shape, dtype=tf.float32) == [100, 1]
    with tf.Graph().as_default():
        with tf.variable_scope("s", partitioner=tf.fixed_size_partitioner(2)):
            v = tf.get_variable("emb", [10, 3])
        # as TF1: the scope's partitioner makes a partitioned variable
        assert isinstance(v, tf.PartitionedVariable) and v.shape == [10, 3]
        assert [p.op.name for p in v] == ["s/emb/part_0", "s/emb/part_1"]
