"""Partitioned variables against what TF 2.15 does (golden_tf/partitioned, recorded by
tools/record_tf_partitioned.py): the parts, PartitionedVariable, embedding lookups, slots,
the checkpoint layout (slices), restoring into another partitioning, and the data files of
Saver(sharded=True)."""
import importlib.util
import json
import os

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.engine import tf_protos as pb
from estimator_npu.train import sstable

GOLDEN = os.path.join(os.path.dirname(__file__), "golden_tf", "partitioned")
with open(os.path.join(GOLDEN, "facts.json")) as _f:
    FACTS = json.load(_f)


def _load_case():
    spec = importlib.util.spec_from_file_location(
        "partitioned_case", os.path.join(os.path.dirname(__file__), "partitioned_case.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASE = _load_case()
full_value, parts_of = CASE.full_value, CASE.parts_of
init = CASE.initializer(tf)


def build():
    """The recorder's model: four partitioned variables, lookups, one Adagrad step."""
    step = tf.train.get_or_create_global_step()
    emb, w, mm, axis = CASE.variables(tf)
    ids = tf.constant(FACTS["lookup_ids"])
    look = {s: tf.nn.embedding_lookup(emb, ids, partition_strategy=s) for s in ("mod", "div")}
    look["default"] = tf.nn.embedding_lookup(emb, ids)
    loss = tf.reduce_sum(tf.square(tf.matmul(look["mod"][0], w))) + tf.reduce_sum(
        mm) + tf.reduce_sum(axis)
    train = tf.train.AdagradOptimizer(0.1).minimize(loss, global_step=step)
    return {"emb": emb, "dense/w": w, "mm": mm, "axis": axis}, look, train



def _entries(path):
    """``[(key, BundleEntryProto)]`` of an index file, the header's key first."""
    out = []
    with open(path, "rb") as f:
        items = sstable.read_table(f.read())
    for key, value in items:
        e = pb.BundleHeaderProto() if key == b"" else pb.BundleEntryProto()
        e.ParseFromString(value)
        out.append((key, e))
    return out


def test_parts_names_collections_and_attributes_as_tf():
    with tf.Graph().as_default():
        pvs, _, _ = build()
        assert {n: parts_of(pv) for n, pv in pvs.items()} == FACTS["partitioned"]
        assert [v.op.name for v in tf.global_variables()] == FACTS["global_variables"]
        assert [v.op.name for v in tf.trainable_variables()] == FACTS["trainable_variables"]
        emb = pvs["emb"]
        with tf.variable_scope("", reuse=True):
            assert tf.get_variable("emb", [10, 4]) is emb
        tensor = tf.convert_to_tensor(emb)
        attrs = FACTS["attrs"]
        assert type(emb).__name__ == attrs["type"] and emb.name == attrs["name"]
        assert emb.dtype.name == attrs["dtype"] and len(list(emb)) == attrs["len"]
        assert emb.get_shape().as_list() == attrs["get_shape"]
        assert emb._get_partitions() == attrs["partitions"]
        assert tensor.name == attrs["convert_to_tensor_name"]
        assert emb.as_tensor().name == attrs["as_tensor_name"]
        assert [v.name for v in emb._get_variable_list()] == attrs["variable_list"]
        assert tensor.shape.as_list() == [10, 4]


def test_lookups_step_and_checkpoint_layout_as_tf(tmp_path):
    with tf.Graph().as_default():
        pvs, look, train = build()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(pvs["emb"])),
                                          full_value([10, 4]).astype(np.float32))
            got = sess.run(look)
            for k in ("mod", "div", "default"):
                np.testing.assert_array_equal(got[k], np.float32(FACTS["lookup"][k]))
            sess.run(train)
            for v in tf.global_variables():
                np.testing.assert_allclose(sess.run(v), FACTS["after_step"][v.op.name],
                                           rtol=2e-6, err_msg=v.op.name)
            path = tf.train.Saver(save_relative_paths=True).save(
                sess, str(tmp_path / "model.ckpt"), global_step=1, write_meta_graph=False)
    assert sorted(os.listdir(tmp_path)) == FACTS["files"]
    assert (tmp_path / "checkpoint").read_text() == FACTS["state_file"]
    assert [[n, s] for n, s in tf.train.list_variables(path)] == FACTS["list_variables"]
    ours = _entries(path + ".index")
    theirs = _entries(os.path.join(GOLDEN, "model.ckpt-1.index"))
    assert [k for k, _ in ours] == [k for k, _ in theirs]     # slice keys included
    for (key, a), (_, b) in zip(ours, theirs):
        # the values after the step differ from TF's in the last bits (crc32c too)
        if key:
            a.crc32c = b.crc32c = 0
        assert a == b, key
    # every value read back (slices put together) is TF's within rounding
    reader = tf.train.NewCheckpointReader(path)
    tf_reader = tf.train.NewCheckpointReader(os.path.join(GOLDEN, "model.ckpt-1"))
    for name, _ in FACTS["list_variables"]:
        np.testing.assert_allclose(reader.get_tensor(name), tf_reader.get_tensor(name),
                                   rtol=2e-6, err_msg=name)


@pytest.mark.parametrize("label,parts", [("emb_2_parts", 2), ("emb_whole", None), (
    "emb_5_parts", 5)])
def test_restore_tfs_checkpoint_into_another_partitioning(label, parts):
    want = np.float32(FACTS.get("restored_" + label, FACTS["restored_emb_whole"]))
    with tf.Graph().as_default():
        v = tf.get_variable("emb", [10, 4], initializer=tf.zeros_initializer(),
                            partitioner=tf.fixed_size_partitioner(parts) if parts else None)
        with tf.Session() as sess:
            saver = tf.train.Saver([v] if parts is None else list(v))
            saver.restore(sess, os.path.join(GOLDEN, "model.ckpt-1"))
            np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(v)), want)


def test_slots_and_partitioning_round_trip_through_our_checkpoint(tmp_path):
    rng = np.random.default_rng(0)
    table = rng.standard_normal((9, 3)).astype(np.float32)
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", initializer=lambda shape, dtype=None, partition_info=None:
                              table[partition_info.var_offset[0]:][:shape[0]],
                              shape=[9, 3], partitioner=tf.fixed_size_partitioner(2))
        loss = tf.reduce_sum(tf.nn.embedding_lookup(emb, [1, 8, 8]))
        train = tf.train.AdagradOptimizer(0.5).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            trained = sess.run(tf.convert_to_tensor(emb))
            acc = np.concatenate([sess.run(v) for v in tf.global_variables()
                                  if v.op.name.endswith("/Adagrad")])
            path = tf.train.Saver().save(sess, str(tmp_path / "m.ckpt"))
    assert dict(tf.train.list_variables(path)) == {"emb": [9, 3], "emb/Adagrad": [9, 3]}
    # into three parts (slots too), and into one whole variable
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", [9, 3], partitioner=tf.fixed_size_partitioner(3))
        tf.train.AdagradOptimizer(0.5).minimize(tf.reduce_sum(
            tf.nn.embedding_lookup(emb, [0])))
        names = [v.op.name for v in tf.global_variables()]
        assert names[3:] == [f"emb/part_{i}/Adagrad" for i in range(3)]
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, path)
            np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(emb)), trained)
            slots = np.concatenate([sess.run(v) for v in tf.global_variables()[3:]])
            np.testing.assert_array_equal(slots, acc)
    with tf.Graph().as_default():
        whole = tf.get_variable("emb", [9, 3])
        with tf.Session() as sess:
            tf.train.Saver([whole]).restore(sess, path)
            np.testing.assert_array_equal(sess.run(whole), trained)
        # init_from_checkpoint and Slim's assign_from_checkpoint_fn into parts
    with tf.Graph().as_default():
        a = tf.get_variable("a", [9, 3], partitioner=tf.fixed_size_partitioner(4))
        b = tf.get_variable("b", [9, 3], partitioner=tf.fixed_size_partitioner(2))
        tf.train.init_from_checkpoint(path, {"emb": "a"})
        fn = tf.contrib.framework.assign_from_checkpoint_fn(path, {"emb": b})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            fn(sess)
            for v in (a, b):
                np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(v)), trained)


def test_sharded_saver_files_as_tf(tmp_path):
    # one CPU, no tf.device: one data file, as TF
    with tf.Graph().as_default():
        tf.get_variable("emb", [7, 2], initializer=init,
                        partitioner=tf.fixed_size_partitioner(2))
        tf.get_variable("b", [3], initializer=tf.ones_initializer())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            d = tmp_path / "one"
            d.mkdir()
            p = tf.train.Saver(sharded=True, save_relative_paths=True).save(
                sess, str(d / "model.ckpt"), write_meta_graph=False)
    one = FACTS["sharded_one_cpu"]
    assert os.path.basename(p) == one["returned"] and sorted(os.listdir(d)) == one["files"]
    assert (d / "checkpoint").read_text() == one["state_file"]
    assert [[n, s] for n, s in tf.train.list_variables(p)] == one["list_variables"]
    # the parts on /cpu:0 and /cpu:1, b on no device: three data files, TF's bytes
    with tf.Graph().as_default():
        with tf.device(lambda op: "/cpu:1" if "part_1" in op.name else "/cpu:0"):
            tf.get_variable("emb", [7, 2], initializer=init,
                            partitioner=tf.fixed_size_partitioner(2))
        tf.get_variable("b", [3], initializer=tf.ones_initializer())
        two = FACTS["sharded_two_cpus"]
        assert {v.op.name: v.device for v in tf.global_variables()} == two["devices"]
        saver = tf.train.Saver(sharded=True, save_relative_paths=True)
        assert saver.as_saver_def().sharded
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            d = tmp_path / "two"
            d.mkdir()
            p = saver.save(sess, str(d / "model.ckpt"), write_meta_graph=False)
    assert sorted(os.listdir(d)) == two["files"]
    assert (d / "checkpoint").read_text() == two["state_file"]
    for name in two["files"]:
        if name != "checkpoint":
            with open(os.path.join(GOLDEN, "sharded", name), "rb") as f:
                assert (d / name).read_bytes() == f.read(), name
    # and TF's sharded files restore here
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", [7, 2], partitioner=tf.fixed_size_partitioner(3))
        with tf.Session() as sess:
            tf.train.Saver(list(emb)).restore(sess, os.path.join(GOLDEN, "sharded",
                                                                 "model.ckpt"))
            np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(emb)),
                                          full_value([7, 2]).astype(np.float32))


def test_partition_edge_cases_as_tf():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="along one dimension: variable x"):
            tf.get_variable("x", [4, 4], partitioner=lambda shape, dtype: [2, 2])
        with pytest.raises(ValueError, match="variable y.*expected 2 positive integers"):
            tf.get_variable("y", [4, 4], partitioner=lambda shape, dtype: [2])
        # as TF 2.15: a tensor initializer is sliced, no more parts than rows, and one
        # part is still a part
        z = tf.get_variable("z", initializer=tf.constant([1.0, 2.0]),
                            partitioner=tf.fixed_size_partitioner(2))
        w = tf.get_variable("w", [2, 4], partitioner=tf.fixed_size_partitioner(3))
        one = tf.get_variable("one", [4, 4], partitioner=tf.fixed_size_partitioner(1))
        assert [v.shape.as_list() for v in z] == [[1], [1]]
        assert [v.shape.as_list() for v in w] == [[1, 4], [1, 4]]
        assert [v.name for v in one] == ["one/part_0:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(tf.convert_to_tensor(z)).tolist() == [1.0, 2.0]
