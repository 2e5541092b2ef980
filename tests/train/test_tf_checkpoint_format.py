"""TF's V2 tensor-bundle checkpoints: golden files written by real TF 2.15 are read, ours
are written with the same layout, every byte is checked, and the old JSON format loads.

The golden files come from ``tools/record_tf_checkpoints.py`` (run with real TF)."""
import json
import logging
import os
import shutil
import zlib

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import errors
from estimator_npu.engine import tf_protos as pb
from estimator_npu.train import checkpoint_io, sstable

GOLDEN = os.path.join(os.path.dirname(__file__), "golden_tf")
EXPECTED = np.load(os.path.join(GOLDEN, "expected.npz"))
SINGLE = ["dtypes/model.ckpt", "slim/model.ckpt-1", "adam/model.ckpt-1", "graphs/mlp.ckpt"]


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _table(prefix):
    items = sstable.read_table(_read(prefix + ".index"))
    header = pb.BundleHeaderProto.FromString(items[0][1])
    entries = {k.decode(): pb.BundleEntryProto.FromString(v) for k, v in items[1:]}
    return items, header, entries


def test_dtypes_golden_every_dtype_zero_d_empty_and_string():
    path = os.path.join(GOLDEN, "dtypes", "model.ckpt")
    reader = checkpoint_io.verify_checkpoint(path)
    assert reader.format_name == "tensor-bundle V2"
    dts = reader.get_variable_to_dtype_map()
    for dt in ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
               "bool"]:
        got = reader.get_tensor(f"dtypes/v_{dt}")
        assert got.dtype == np.dtype(dt) and dts[f"dtypes/v_{dt}"] == np.dtype(dt)
        np.testing.assert_array_equal(got, EXPECTED[f"dtypes/v_{dt}"])
    bf = reader.get_tensor("dtypes/v_bfloat16")
    assert bf.dtype.name == "bfloat16" and dts["dtypes/v_bfloat16"] == tf.bfloat16
    np.testing.assert_array_equal(bf.astype(np.float32),
                                  EXPECTED["dtypes/v_bfloat16"].astype(tf.bfloat16.np)
                                  .astype(np.float32))
    assert reader.get_tensor("dtypes/scalar").shape == ()
    assert reader.get_tensor("dtypes/empty").shape == (0, 4)
    assert reader.get_tensor("dtypes/text") == b"hello checkpoint"
    assert dts["dtypes/text"] == tf.string
    names = [n for n, _ in tf.train.list_variables(os.path.dirname(path))]
    assert names == sorted(names) and "dtypes/empty" in names


def test_slim_adam_and_mlp_goldens_match_tf_values():
    for prefix, tag in [("slim/model.ckpt-1", "slim"), ("adam/model.ckpt-1", "adam")]:
        values = checkpoint_io.read_checkpoint(os.path.join(GOLDEN, prefix))
        want = {k.split(":", 1)[1]: EXPECTED[k] for k in EXPECTED.files
                if k.startswith(tag + ":")}
        assert sorted(values) == sorted(want)
        for k, v in want.items():
            np.testing.assert_array_equal(values[k], v, err_msg=k)
    slim = dict(tf.train.list_variables(os.path.join(GOLDEN, "slim")))
    assert slim["net/block1/unit_1/conv1/weights/Momentum"] == [3, 3, 2, 4]
    assert slim["global_step"] == []
    assert tf.train.load_variable(os.path.join(GOLDEN, "slim"), "global_step") == 1
    adam = checkpoint_io.read_checkpoint(os.path.join(GOLDEN, "adam", "model.ckpt-1"))
    assert adam["beta1_power"].shape == () and np.isclose(adam["beta1_power"], 0.9 ** 2)


def test_sharded_golden_is_read_across_both_data_files():
    prefix = os.path.join(GOLDEN, "sharded", "model.ckpt")
    _, header, entries = _table(prefix)
    assert header.num_shards == 2 and {e.shard_id for e in entries.values()} == {0, 1}
    reader = checkpoint_io.verify_checkpoint(prefix)
    assert len(reader.data_files()) == 2
    for name in ["a", "b", "c"]:
        np.testing.assert_array_equal(reader.get_tensor(name), EXPECTED["shard/" + name])


@pytest.mark.parametrize("prefix", SINGLE)
def test_our_files_have_tfs_layout(tmp_path, prefix):
    """Rewriting TF's tensors gives TF's header, keys, entries, and data bytes."""
    src = os.path.join(GOLDEN, prefix)
    values = checkpoint_io.read_checkpoint(src)
    ours = str(tmp_path / "ours")
    checkpoint_io.write_checkpoint(ours, values)
    tf_items, tf_header, tf_entries = _table(src)
    our_items, our_header, our_entries = _table(ours)
    assert [k for k, _ in our_items] == [k for k, _ in tf_items]
    assert our_header == tf_header
    assert our_entries == tf_entries
    assert _read(ours + ".index") == _read(src + ".index")
    assert _read(ours + checkpoint_io.DATA_SUFFIX) == _read(src + checkpoint_io.DATA_SUFFIX)


def test_sharded_rewrite_keeps_every_entry_but_in_one_shard(tmp_path):
    src = os.path.join(GOLDEN, "sharded", "model.ckpt")
    ours = str(tmp_path / "ours")
    checkpoint_io.write_checkpoint(ours, checkpoint_io.read_checkpoint(src))
    _, header, entries = _table(ours)
    _, _, tf_entries = _table(src)
    assert header.num_shards == 1 and sorted(entries) == sorted(tf_entries)
    for k, e in entries.items():
        t = tf_entries[k]
        assert (e.dtype, e.shape, e.size, e.crc32c) == (t.dtype, t.shape, t.size, t.crc32c)


def test_saver_round_trip_of_every_dtype_and_large_tables(tmp_path):
    g = tf.Graph()
    with g.as_default():
        vs = {dt: tf.Variable(np.arange(6).reshape(2, 3).astype(dt), name=f"v_{dt}")
              for dt in ["float16", "float32", "float64", "int8", "int16", "int32",
                         "int64", "uint8", "bool"]}
        many = [tf.Variable(np.full([2], i, np.float32), name=f"scope_{i // 50}/var_{i}")
                for i in range(3000)]   # > one 256 KiB-ish index block of keys
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "m"), global_step=7)
        with tf.Session() as sess:
            saver.restore(sess, path)
            for dt, v in vs.items():
                np.testing.assert_array_equal(sess.run(v), np.arange(6).reshape(2, 3)
                                              .astype(dt))
            assert sess.run(many[2999])[0] == 2999.0
    assert len(tf.train.list_variables(path)) == 9 + 3000


def _golden_copy(tmp_path, prefix="slim/model.ckpt-1"):
    d = tmp_path / "ck"
    shutil.copytree(os.path.join(GOLDEN, os.path.dirname(prefix)), d)
    return str(d / os.path.basename(prefix))


def test_flipped_data_byte_names_the_file_and_tensor(tmp_path):
    prefix = _golden_copy(tmp_path)
    _, _, entries = _table(prefix)
    e = entries["net/logits/weights"]
    data = prefix + checkpoint_io.DATA_SUFFIX
    raw = bytearray(_read(data))
    raw[e.offset + 3] ^= 0x01
    with open(data, "wb") as f:
        f.write(raw)
    with pytest.raises(errors.DataLossError) as info:
        tf.train.load_variable(prefix, "net/logits/weights")
    assert data in str(info.value) and "'net/logits/weights'" in str(info.value)
    with pytest.raises(errors.DataLossError, match="net/logits/weights"):
        checkpoint_io.verify_checkpoint(prefix)
    tf.train.load_variable(prefix, "net/logits/biases")     # the others still read


def test_flipped_index_byte_and_truncations_are_data_loss(tmp_path):
    prefix = _golden_copy(tmp_path)
    index = prefix + ".index"
    good = _read(index)
    for pos in (5, len(good) // 2):
        raw = bytearray(good)
        raw[pos] ^= 0x40
        with open(index, "wb") as f:
            f.write(raw)
        with pytest.raises(errors.DataLossError, match=index.replace(".", r"\.")):
            tf.train.list_variables(prefix)
    with open(index, "wb") as f:
        f.write(good[:-10])                       # footer cut: neither format
    with pytest.raises(errors.DataLossError, match="no known format"):
        tf.train.list_variables(prefix)
    with open(index, "wb") as f:
        f.write(good)
    data = prefix + checkpoint_io.DATA_SUFFIX
    raw = _read(data)
    with open(data, "wb") as f:
        f.write(raw[:-5])
    with pytest.raises(errors.DataLossError, match="truncated"):
        checkpoint_io.verify_checkpoint(prefix)
    os.remove(data)
    with pytest.raises(errors.NotFoundError, match=data.replace(".", r"\.")):
        checkpoint_io.verify_checkpoint(prefix)
    os.remove(index)
    with pytest.raises(errors.NotFoundError, match="model.ckpt-1"):
        checkpoint_io.CheckpointReader(prefix)


def test_missing_shard_names_the_file(tmp_path):
    prefix = _golden_copy(tmp_path, "sharded/model.ckpt")
    os.remove(prefix + ".data-00001-of-00002")
    with pytest.raises(errors.NotFoundError, match=r"data-00001-of-00002"):
        checkpoint_io.verify_checkpoint(prefix)


def test_file_in_neither_format_says_what_was_expected(tmp_path):
    prefix = str(tmp_path / "m")
    with open(prefix + ".index", "wb") as f:
        f.write(b'{"not": "a checkpoint"}\n' * 4)
    with pytest.raises(errors.DataLossError) as info:
        tf.train.list_variables(prefix)
    msg = str(info.value)
    assert "tensor-bundle" in msg and "ENPUCKPT1" in msg and "m.index" in msg
    assert "b'{\"not\"" in msg


def _write_legacy(prefix, tensors):
    """The earlier estimator_npu format, written here the way it was."""
    entries, chunks, offset = {}, [], 0
    for name in sorted(tensors):
        arr = np.ascontiguousarray(tensors[name])
        raw = arr.reshape(-1).view(np.uint8).tobytes()
        pad = (-offset) % 16
        chunks.append(bytes(pad))
        offset += pad
        entries[name] = {"dtype": arr.dtype.name, "shape": list(arr.shape),
                         "offset": offset, "nbytes": len(raw), "crc32": zlib.crc32(raw)}
        chunks.append(raw)
        offset += len(raw)
    data = b"".join(chunks)
    with open(prefix + checkpoint_io.DATA_SUFFIX, "wb") as f:
        f.write(data)
    body = json.dumps({"data_file": os.path.basename(prefix + checkpoint_io.DATA_SUFFIX),
                       "data_size": len(data), "data_crc32": zlib.crc32(data),
                       "tensors": entries}).encode()
    with open(prefix + ".index", "wb") as f:
        f.write(b"ENPUCKPT1 %08x\n" % zlib.crc32(body) + body)


def test_earlier_json_format_still_loads_with_one_info_line(tmp_path, caplog):
    prefix = str(tmp_path / "old.ckpt-3")
    w = np.arange(6, dtype=np.float64).reshape(3, 2)
    _write_legacy(prefix, {"w": w, "global_step": np.int64(3)})
    with caplog.at_level(logging.INFO):
        reader = checkpoint_io.CheckpointReader(prefix)
    lines = [r.getMessage() for r in caplog.records if "earlier JSON-index" in r.getMessage()]
    assert len(lines) == 1 and prefix in lines[0]
    assert reader.format_name == "estimator_npu JSON-index"
    np.testing.assert_array_equal(reader.get_tensor("w"), w)
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(np.zeros((3, 2)), name="w")
        with tf.Session() as sess:
            tf.train.Saver([v]).restore(sess, prefix)
            np.testing.assert_array_equal(sess.run(v), w)
    raw = bytearray(_read(prefix + checkpoint_io.DATA_SUFFIX))
    raw[17] ^= 1
    with open(prefix + checkpoint_io.DATA_SUFFIX, "wb") as f:
        f.write(raw)
    with pytest.raises(errors.DataLossError, match="old.ckpt-3"):
        checkpoint_io.verify_checkpoint(prefix)


def test_missing_key_lists_the_nearest_keys():
    with pytest.raises(errors.NotFoundError) as info:
        tf.train.load_variable(os.path.join(GOLDEN, "slim"), "net/logits/weight")
    assert "net/logits/weights" in str(info.value)
