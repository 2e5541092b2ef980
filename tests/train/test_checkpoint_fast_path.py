"""The fast checkpoint paths keep every value and every check.

``Saver.restore`` / warm start read each tensor once, into a fresh array, checking its
crc32c as it arrives, and swap the arrays into the variables only when every one has
passed; ``Saver.save`` computes each crc32c piece by piece as it writes. These tests pin
what must not change: exact values and dtypes, one read of each tensor, sharded and
partial restores, training that continues from a restore (fused optimizers re-pack the
swapped arrays), and corruption detected before any variable changes.
"""
import os
import shutil
import threading
import time

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import errors
from estimator_npu.engine import tf_protos as pb
from estimator_npu.train import bundle_files, checkpoint_io, sstable, tensor_bundle

GOLDEN = os.path.join(os.path.dirname(__file__), "golden_tf")
EXPECTED = np.load(os.path.join(GOLDEN, "expected.npz"))
NUMERIC = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
           "bool"]


def _values(rng):
    out = {f"v_{dt}": (rng.standard_normal((3, 5)) * 50).astype(dt) for dt in NUMERIC}
    out["v_float32"][0, :3] = [np.inf, -0.0, np.nan]
    out["scalar"] = np.float64(rng.standard_normal())
    out["empty"] = np.zeros((0, 4), np.float32)
    out["big"] = rng.standard_normal(700_000).astype(np.float32)     # > one 1 MiB piece
    if tf.bfloat16 is not None:
        out["v_bfloat16"] = rng.standard_normal(7).astype(tf.bfloat16.np)
    return out


def _graph_with(values):
    variables = {n: tf.Variable(np.asarray(v), name=n) for n, v in values.items()}
    variables["text"] = tf.Variable(b"hello", name="text")
    return variables


def _exact(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind == "O":
        assert got.tolist() == want.tolist()
    else:
        assert got.tobytes() == want.tobytes()      # bit-exact, NaN and -0.0 included


def _saved(tmp_path, seed=0):
    """A checkpoint of ``_values(seed)`` (and a string), written by ``Saver``."""
    values = _values(np.random.default_rng(seed))
    g = tf.Graph()
    with g.as_default():
        _graph_with(values)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = tf.train.Saver().save(sess, str(tmp_path / "m.ckpt"), global_step=1)
    return path, values


def test_restore_into_initialized_variables_is_exact_and_swaps_arrays(tmp_path):
    path, values = _saved(tmp_path)
    g = tf.Graph()
    with g.as_default():
        variables = _graph_with({n: np.zeros_like(v) for n, v in values.items()})
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            before = {n: sess.store(v.op).value for n, v in variables.items()}
            saver.restore(sess, path)
            for n, want in values.items():
                assert sess.store(variables[n].op).value is not before[n]   # swapped in
                _exact(sess.run(variables[n]), want)
                assert not np.asarray(before[n]).any()     # the old array was not written
            assert sess.run(variables["text"]) == b"hello"
            # the restored arrays are the session's own: training may update them
            assert all(sess.store(v.op).value.flags.writeable for v in variables.values())


def test_restore_into_uninitialized_variables_gives_fresh_writable_arrays(tmp_path):
    path, values = _saved(tmp_path, seed=1)
    g = tf.Graph()
    with g.as_default():
        variables = _graph_with({n: np.zeros_like(v) for n, v in values.items()})
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, path)
            for n, want in values.items():
                got = sess.store(variables[n].op).value
                _exact(got, want)
                assert got.flags.writeable and got.flags.owndata or got.base is not None
            got = sess.store(variables["big"].op).value
            got += 1                                   # not a read-only file mapping
            assert got[0] == np.float32(values["big"][0] + 1)


@pytest.mark.parametrize("opt", ["sgd", "momentum"])
def test_training_continues_from_a_restore_into_packed_variables(tmp_path, opt):
    """The fused optimizer packs the variables into flat buffers at its first step; a
    restore swaps new arrays in, and the next step updates those (re-packed)."""
    g = tf.Graph()
    with g.as_default():
        a = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="a")
        b = tf.Variable(np.arange(4, dtype=np.float32), name="b")
        loss = tf.reduce_sum(a * a) + tf.reduce_sum(3.0 * b)
        o = tf.train.GradientDescentOptimizer(0.125) if opt == "sgd" else \
            tf.train.MomentumOptimizer(0.125, 0.5)
        train = o.minimize(loss)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)                                     # packs the variables
            saved = sess.run([a, b])
            slots = [sess.run(o.get_slot(v, "momentum")) for v in (a, b)] \
                if opt == "momentum" else []
            path = saver.save(sess, str(tmp_path / "flat"))
            sess.run(train)
            sess.run(train)
            saver.restore(sess, path)
            for v, want in zip((a, b), saved):
                _exact(sess.run(v), want)
            sess.run(train)
            got = sess.run([a, b])
        with tf.Session() as ref:                               # one step from the saved state
            saver.restore(ref, path)
            ref.run(train)
            want = ref.run([a, b])
    for x, y in zip(got, want):
        _exact(x, y)
    if opt == "sgd":
        _exact(got[0], saved[0] - np.float32(0.125) * 2 * saved[0])
        _exact(got[1], saved[1] - np.float32(0.125 * 3.0))
    else:
        assert all(s.any() for s in slots)


def test_corrupted_tensor_in_the_middle_leaves_every_variable_as_it_was(tmp_path):
    path, values = _saved(tmp_path, seed=8)
    entries = tf.train.NewCheckpointReader(path)._index.entries
    by_offset = sorted(entries, key=lambda n: entries[n].offset)
    victim = [n for n in by_offset if entries[n].size][len(by_offset) // 2]
    data = path + checkpoint_io.DATA_SUFFIX
    _flip(data, entries[victim].offset)
    g = tf.Graph()
    with g.as_default():
        variables = _graph_with({n: np.ones_like(v) for n, v in values.items()})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            arrays = {n: sess.store(v.op).value for n, v in variables.items()}
            before = {n: np.array(a, copy=True) for n, a in arrays.items()}
            with pytest.raises(errors.DataLossError) as info:
                tf.train.Saver().restore(sess, path)
            assert data in str(info.value) and repr(victim) in str(info.value)
            for n, v in variables.items():      # before and after the victim alike
                assert sess.store(v.op).value is arrays[n]
                _exact(arrays[n], before[n])
            # the intact tensors before it were read: they are fine, and untouched
            assert by_offset.index(victim) > 0


def test_restore_reads_each_tensor_once(tmp_path, monkeypatch):
    path, values = _saved(tmp_path, seed=9)
    reads = []
    original = tensor_bundle._DataFile.read

    def counting(self, offset, size, name, buf=None):
        reads.append(name)
        return original(self, offset, size, name, buf)
    monkeypatch.setattr(tensor_bundle._DataFile, "read", counting)
    monkeypatch.setattr(tensor_bundle._DataFile, "checksum", None)   # no separate pass
    g = tf.Graph()
    with g.as_default():
        variables = _graph_with({n: np.ones_like(v) for n, v in values.items()})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().restore(sess, path)
            for n, want in values.items():
                _exact(sess.run(variables[n]), want)
    assert sorted(reads) == sorted(set(reads)) == sorted(variables)


def test_sharded_tf_checkpoint_partial_restore_into_initialized_variables():
    prefix = os.path.join(GOLDEN, "sharded", "model.ckpt")
    g = tf.Graph()
    with g.as_default():
        a = tf.Variable(np.zeros((3, 2), np.float32), name="a")
        b = tf.Variable(np.zeros((2, 2), np.float64), name="b")
        other = tf.Variable(np.full(3, 7, np.int32), name="not_in_checkpoint")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            kept = sess.store(b.op).value
            tf.train.Saver({"a": a, "b": b}).restore(sess, prefix)
            np.testing.assert_array_equal(sess.run(a), EXPECTED["shard/a"])
            np.testing.assert_array_equal(sess.run(b), EXPECTED["shard/b"])
            assert sess.store(b.op).value is not kept and not kept.any()
            np.testing.assert_array_equal(sess.run(other), [7, 7, 7])   # untouched
    reader = tf.train.NewCheckpointReader(prefix)
    dest = np.empty(4, np.int32)
    got = reader.read_many(["c", "a"], out={"c": dest})
    assert got["c"] is dest
    np.testing.assert_array_equal(dest, EXPECTED["shard/c"])
    np.testing.assert_array_equal(got["a"], EXPECTED["shard/a"])


def test_read_many_ignores_unsuitable_destinations(tmp_path):
    path, values = _saved(tmp_path, seed=2)
    reader = tf.train.NewCheckpointReader(path)
    wrong_shape = np.zeros((5, 3), np.float32)
    wrong_dtype = np.zeros((3, 5), np.float64)
    read_only = np.zeros((3, 5), np.int32)
    read_only.flags.writeable = False
    got = reader.read_many(["v_float32", "v_int16", "v_int32"],
                           out={"v_float32": wrong_shape, "v_int16": wrong_dtype,
                                "v_int32": read_only})
    for n in ["v_float32", "v_int16", "v_int32"]:
        _exact(got[n], values[n])
    assert not wrong_shape.any() and not wrong_dtype.any() and not read_only.any()
    with pytest.raises(errors.NotFoundError, match="v_float33.*nearest keys.*v_float32"):
        reader.read_many(["v_float33"])


def _flip(path, offset):
    with open(path, "r+b") as f:
        f.seek(offset)
        byte = f.read(1)
        f.seek(offset)
        f.write(bytes([byte[0] ^ 0x04]))


@pytest.mark.parametrize("victim", ["v_uint8", "big", "text"])
@pytest.mark.parametrize("initialized", [True, False])
def test_flipped_byte_is_caught_before_any_variable_changes(tmp_path, monkeypatch, victim,
                                                            initialized):
    """Initialized variables take the read-into-place path, the others fresh arrays."""
    monkeypatch.setattr(tensor_bundle, "_CHUNK", 4096)     # many pieces per tensor
    monkeypatch.setattr(bundle_files, "_CHUNK", 4096)   # the reads' pieces
    path, values = _saved(tmp_path, seed=3)
    entry = tf.train.NewCheckpointReader(path)._index.entries[victim]
    data = path + checkpoint_io.DATA_SUFFIX
    _flip(data, entry.offset + entry.size - 1)
    g = tf.Graph()
    with g.as_default():
        variables = _graph_with({n: np.ones_like(v) for n, v in values.items()})
        with tf.Session() as sess:
            if initialized:
                sess.run(tf.global_variables_initializer())
                before = {n: sess.run(v) for n, v in variables.items()}
            with pytest.raises(errors.DataLossError) as info:
                tf.train.Saver().restore(sess, path)
            assert data in str(info.value) and repr(victim) in str(info.value)
            for n, v in variables.items():          # nothing was half-restored
                if initialized:
                    np.testing.assert_array_equal(sess.run(v), before[n])
                else:
                    assert sess.store(v.op).value is None
    with pytest.raises(errors.DataLossError, match=repr(victim)):
        checkpoint_io.verify_checkpoint(path)
    with pytest.raises(errors.DataLossError, match=repr(victim)):
        tf.train.load_variable(path, victim)


def test_truncated_data_file_is_caught_before_any_variable_changes(tmp_path):
    path, values = _saved(tmp_path, seed=4)
    data = path + checkpoint_io.DATA_SUFFIX
    size = os.path.getsize(data)
    with open(data, "r+b") as f:
        f.truncate(size - 1)
    g = tf.Graph()
    with g.as_default():
        variables = _graph_with({n: np.ones_like(v) for n, v in values.items()})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(errors.DataLossError, match="truncated") as info:
                tf.train.Saver().restore(sess, path)
            assert data in str(info.value)
            np.testing.assert_array_equal(sess.run(variables["v_float64"]),
                                          np.ones((3, 5)))


def test_streamed_save_writes_tfs_crc_of_every_tensor(tmp_path, monkeypatch):
    monkeypatch.setattr(tensor_bundle, "_CHUNK", 1000)   # many pieces per tensor
    monkeypatch.setattr(bundle_files, "_CHUNK", 1000)   # the reads' pieces
    rng = np.random.default_rng(5)
    values = {"odd": rng.standard_normal(1001).astype(np.float32),   # 4004 bytes
              "exact": rng.standard_normal(250).astype(np.float32),  # 1000 bytes
              "empty": np.zeros(0, np.int64), "s": np.array([b"ab", b""], object)}
    prefix = str(tmp_path / "s")
    checkpoint_io.write_checkpoint(prefix, values)
    with open(prefix + ".index", "rb") as f:
        index_bytes = f.read()
    items = sstable.read_table(index_bytes)
    entries = {k.decode(): pb.BundleEntryProto.FromString(v) for k, v in items[1:]}
    with open(prefix + checkpoint_io.DATA_SUFFIX, "rb") as f:
        data = f.read()
    for n in ["odd", "exact", "empty"]:
        e = entries[n]
        raw = data[e.offset:e.offset + e.size]
        assert raw == values[n].tobytes()
        assert e.crc32c == sstable.mask(sstable.crc32c(raw))
    chunks, index = tensor_bundle.encode(values)          # the one-call form agrees
    assert b"".join(bytes(c) for c in chunks) == data
    assert index == index_bytes
    got = checkpoint_io.read_checkpoint(prefix)
    for n in ["odd", "exact", "empty"]:
        _exact(got[n], values[n])
    assert list(got["s"]) == [b"ab", b""]


def test_warm_start_into_initialized_variables_is_exact(tmp_path):
    path, values = _saved(tmp_path, seed=6)
    from estimator_npu.estimator import warm_starting
    g = tf.Graph()
    with g.as_default():
        variables = _graph_with({n: np.zeros_like(v) for n, v in values.items()})
        settings = tf.estimator.WarmStartSettings(path, vars_to_warm_start=[".*"])
        init_fn = warm_starting.make_init_fn(settings, g)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            init_fn(None, sess)
            for n, want in values.items():
                _exact(sess.run(variables[n]), want)
            assert sess.run(variables["text"]) == b"hello"


def test_earlier_json_format_restores_into_initialized_variables(tmp_path):
    from tests.train.test_tf_checkpoint_format import _write_legacy
    prefix = str(tmp_path / "old.ckpt-3")
    w = np.arange(6, dtype=np.float64).reshape(3, 2)
    _write_legacy(prefix, {"w": w})
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(np.zeros((3, 2)), name="w")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver([v]).restore(sess, prefix)
            _exact(sess.run(v), w)


def test_golden_tf_dtypes_read_exactly_into_given_arrays(tmp_path):
    src = os.path.join(GOLDEN, "dtypes")
    d = tmp_path / "dtypes"
    shutil.copytree(src, d)
    prefix = str(d / "model.ckpt")
    reader = tf.train.NewCheckpointReader(prefix)
    fresh = reader.read_all()
    dests = {n: np.empty_like(v) for n, v in fresh.items() if v.dtype.kind != "O"}
    got = reader.read_many(sorted(fresh), out=dests)
    for n, v in fresh.items():
        if n in dests:
            assert got[n] is dests[n]
        _exact(got[n], v)
    for dt in NUMERIC:
        _exact(got[f"dtypes/v_{dt}"], EXPECTED[f"dtypes/v_{dt}"])
    assert got["dtypes/text"] == b"hello checkpoint"


def test_init_from_checkpoint_sees_a_checkpoint_rewritten_at_the_same_prefix(tmp_path):
    prefix = str(tmp_path / "pre.ckpt")
    for value in (1.0, 2.0):
        checkpoint_io.write_checkpoint(prefix, {"k": np.full(3, value, np.float32)})
        g = tf.Graph()
        with g.as_default():
            k = tf.get_variable("k", [3])
            tf.train.init_from_checkpoint(prefix, {"k": "k"})
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                np.testing.assert_array_equal(sess.run(k), [value] * 3)


def test_warm_start_of_two_variables_from_one_tensor_gives_separate_arrays(tmp_path):
    path, values = _saved(tmp_path, seed=10)
    from estimator_npu.estimator import warm_starting
    g = tf.Graph()
    with g.as_default():
        x = tf.Variable(np.zeros((3, 5), np.float32), name="x")
        y = tf.Variable(np.zeros((3, 5), np.float32), name="y")
        settings = tf.estimator.WarmStartSettings(
            path, vars_to_warm_start=["x", "y"],
            var_name_to_prev_var_name={"x": "v_float32", "y": "v_float32"})
        init_fn = warm_starting.make_init_fn(settings, g)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            init_fn(None, sess)
            assert sess.store(x.op).value is not sess.store(y.op).value
            sess.run(tf.assign_add(x, tf.ones([3, 5])))
            _exact(sess.run(y), values["v_float32"])


def test_atomic_write_starts_the_disk_write_as_it_goes(tmp_path, monkeypatch):
    calls = []
    real = checkpoint_io._start_writeback
    monkeypatch.setattr(checkpoint_io, "_WRITEBACK_BYTES", 1000)
    monkeypatch.setattr(checkpoint_io, "_start_writeback",
                        lambda fd, offset, n: (calls.append((offset, n)), real(fd, offset, n)))
    chunks = [bytes([i]) * 700 for i in range(10)]
    path = str(tmp_path / "f.bin")
    checkpoint_io.atomic_write(path, chunks)
    with open(path, "rb") as f:
        assert f.read() == b"".join(chunks)
    assert calls == [(0, 1400), (1400, 1400), (2800, 1400), (4200, 1400), (5600, 1400)]


@pytest.mark.parametrize("check_only", [False, True])
def test_threaded_read_checks_every_tensor_and_names_the_first_damaged(tmp_path,
                                                                       monkeypatch,
                                                                       check_only):
    """Large reads are shared by threads: the values are still exact, each tensor is read
    by one thread, and with two damaged tensors the error names the first in file order
    (whichever thread found which)."""
    monkeypatch.setattr(tensor_bundle, "_PARALLEL_BYTES", 0)
    monkeypatch.setattr(tensor_bundle, "_WORKERS", 3)
    monkeypatch.setattr(tensor_bundle, "_CHUNK", 4096)
    monkeypatch.setattr(bundle_files, "_CHUNK", 4096)   # the reads' pieces
    path, values = _saved(tmp_path, seed=5)
    threads, original = {}, tensor_bundle._DataFile._read_crc

    def recording(self, buf, offset, size, name, reuse):
        threads.setdefault(name, set()).add(threading.get_ident())
        time.sleep(0.005)                   # a slow disk: the other threads take jobs
        return original(self, buf, offset, size, name, reuse)
    monkeypatch.setattr(tensor_bundle._DataFile, "_read_crc", recording)
    reader = checkpoint_io.CheckpointReader(path)
    if check_only:
        reader.verify()
    else:
        got = reader.read_many(list(values))
        for n, want in values.items():
            _exact(got[n], want)
    assert all(len(t) == 1 for t in threads.values())
    assert len(set().union(*threads.values())) > 1          # more than one thread read
    entries = reader._index.entries
    by_offset = sorted((n for n in values if entries[n].size), key=lambda n:
                       entries[n].offset)
    first, second = by_offset[1], by_offset[-1]
    data = path + checkpoint_io.DATA_SUFFIX
    _flip(data, entries[first].offset)
    _flip(data, entries[second].offset + entries[second].size - 1)
    for _ in range(3):
        with pytest.raises(errors.DataLossError) as info:
            reader.verify() if check_only else reader.read_many(list(values))
        assert data in str(info.value) and repr(first) in str(info.value)
    reader.close()
