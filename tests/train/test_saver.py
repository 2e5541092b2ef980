"""Saver, checkpoint files, the ``checkpoint`` state file, atomicity and checksums."""
import os

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import errors
from estimator_npu.train import checkpoint_io


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def _model(rng, w_shape=(3, 2)):
    w = tf.Variable(rng.standard_normal(w_shape), dtype=tf.float64, name="w")
    b = tf.Variable(np.zeros(2, np.float32), name="b")
    gs = tf.train.get_or_create_global_step()
    return w, b, gs


def _state_file(d):
    with open(os.path.join(d, "checkpoint")) as f:
        return f.read()


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def test_save_restore_and_readers(graph, tmp_path):
    rng = np.random.default_rng(0)
    w, b, gs = _model(rng)
    saver = tf.train.Saver()
    prefix = str(tmp_path / "model.ckpt")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        gs.load(100, sess)
        b.load([1.5, -2.0], sess)
        w_val = sess.run(w)
        path = saver.save(sess, prefix, global_step=gs)
    assert path == prefix + "-100"
    for suffix in (".index", ".data-00000-of-00001", ".meta"):
        assert os.path.isfile(path + suffix)
    assert tf.train.latest_checkpoint(str(tmp_path)) == path
    assert tf.train.checkpoint_exists(path) and not tf.train.checkpoint_exists(prefix + "-7")
    assert tf.train.list_variables(str(tmp_path)) == [("b", [2]), ("global_step", []),
                                                      ("w", [3, 2])]
    np.testing.assert_array_equal(tf.train.load_variable(path, "w:0"), w_val)
    assert tf.train.load_variable(str(tmp_path), "global_step") == 100
    reader = tf.train.NewCheckpointReader(path)
    assert reader.get_variable_to_dtype_map()["b"] == tf.float32
    assert reader.has_tensor("w") and not reader.has_tensor("v")
    with pytest.raises(errors.NotFoundError, match="Key v not found"):
        tf.train.load_variable(path, "v")
    # restore into a fresh session: variables never initialized there
    with tf.Session() as sess:
        saver.restore(sess, path)
        np.testing.assert_array_equal(sess.run(w), w_val)
        np.testing.assert_array_equal(sess.run(b), np.array([1.5, -2.0], np.float32))
        assert sess.run(gs) == 100
        assert sess.run(b).dtype == np.float32


def test_state_file_paths_are_as_given_by_default(graph, tmp_path, monkeypatch):
    """TF's Saver default (save_relative_paths=False): the state file holds the paths
    as given (absolute here); a relative save directory still gets paths relative to it
    (TF 2.15: 'model.ckpt-3' for 'rel/model.ckpt')."""
    _model(np.random.default_rng(1))
    saver = tf.train.Saver(max_to_keep=2)
    prefix = str(tmp_path / "model.ckpt")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rel").mkdir()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in (10, 20, 30):
            saver.save(sess, prefix, global_step=step)
        tf.train.Saver().save(sess, "rel/model.ckpt", global_step=3)
    assert _state_file(tmp_path).splitlines() == [
        f'model_checkpoint_path: "{prefix}-30"', f'all_model_checkpoint_paths: "{prefix}-20"',
        f'all_model_checkpoint_paths: "{prefix}-30"']
    assert _state_file(tmp_path / "rel").splitlines() == [
        'model_checkpoint_path: "model.ckpt-3"', 'all_model_checkpoint_paths: "model.ckpt-3"']


def test_state_file_relative_paths_and_max_to_keep(graph, tmp_path):
    _, _, gs = _model(np.random.default_rng(1))
    saver = tf.train.Saver(max_to_keep=2, save_relative_paths=True)
    prefix = str(tmp_path / "model.ckpt")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in (10, 20, 30):
            saver.save(sess, prefix, global_step=step)
    text = _state_file(tmp_path)
    assert text.splitlines()[:3] == ['model_checkpoint_path: "model.ckpt-30"',
                                     'all_model_checkpoint_paths: "model.ckpt-20"',
                                     'all_model_checkpoint_paths: "model.ckpt-30"']
    assert not any(f.startswith("model.ckpt-10") for f in os.listdir(tmp_path))
    assert tf.train.checkpoint_exists(prefix + "-20")
    st = tf.train.get_checkpoint_state(str(tmp_path))
    assert st.model_checkpoint_path == prefix + "-30"
    assert st.all_model_checkpoint_paths == [prefix + "-20", prefix + "-30"]
    assert saver.last_checkpoints == [prefix + "-20", prefix + "-30"]
    # a new saver adopting the old list keeps counting them
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        s2 = tf.train.Saver(max_to_keep=2, save_relative_paths=True)
        s2.recover_last_checkpoints(st.all_model_checkpoint_paths)
        s2.save(sess, prefix, global_step=40)
    assert not tf.train.checkpoint_exists(prefix + "-20")
    assert sorted(f for f in os.listdir(tmp_path) if f.endswith(".index")) == [
        "model.ckpt-30.index", "model.ckpt-40.index"]
    # the directory moves: relative paths still resolve
    moved = tmp_path.parent / (tmp_path.name + "_moved")
    os.rename(tmp_path, moved)
    assert tf.train.latest_checkpoint(str(moved)) == str(moved / "model.ckpt-40")


@pytest.mark.parametrize("crash_at", [".data-00000-of-00001", ".index", "checkpoint"])
def test_interrupted_save_keeps_previous_checkpoint(graph, tmp_path, monkeypatch, crash_at):
    w, _, gs = _model(np.random.default_rng(2))
    saver = tf.train.Saver()
    prefix = str(tmp_path / "model.ckpt")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = saver.save(sess, prefix, global_step=1)
        w_first = sess.run(w)
        w.load(np.full((3, 2), 7.0), sess)
        real_replace = os.replace
        calls = []

        def crash(src, dst):
            calls.append(os.path.basename(dst))
            if dst.endswith(crash_at):
                raise OSError("disk died")
            real_replace(src, dst)
        monkeypatch.setattr(os, "replace", crash)
        with pytest.raises(OSError, match="disk died"):
            saver.save(sess, prefix, global_step=2)
        monkeypatch.setattr(os, "replace", real_replace)
    order = ["model.ckpt-2.data-00000-of-00001", "model.ckpt-2.index", "model.ckpt-2.meta",
             "checkpoint"]
    assert calls == order[:[i for i, n in enumerate(order) if n.endswith(crash_at)][0] + 1]
    assert not any(".tmp" in f for f in os.listdir(tmp_path))  # temp files cleaned up
    assert f'model_checkpoint_path: "{prefix}-1"' in _state_file(tmp_path)
    assert tf.train.latest_checkpoint(str(tmp_path)) == first
    assert tf.train.checkpoint_exists(prefix + "-2") is (crash_at == "checkpoint")
    with tf.Session() as sess:
        saver.restore(sess, tf.train.latest_checkpoint(str(tmp_path)))
        np.testing.assert_array_equal(sess.run(w), w_first)


def test_interrupted_data_write_keeps_previous_checkpoint(graph, tmp_path, monkeypatch):
    w, _, gs = _model(np.random.default_rng(3))
    saver = tf.train.Saver()
    prefix = str(tmp_path / "model.ckpt")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saver.save(sess, prefix, global_step=5)
        w_saved = sess.run(w)

        def broken(prefix_, tensors):
            checkpoint_io.atomic_write(prefix_ + checkpoint_io.DATA_SUFFIX,
                                       [b"partial", _raise()])
        monkeypatch.setattr(checkpoint_io, "write_checkpoint", broken)
        with pytest.raises(KeyboardInterrupt):
            saver.save(sess, prefix, global_step=6)
    assert os.listdir(tmp_path) and not any(f.startswith("model.ckpt-6")
                                            for f in os.listdir(tmp_path))
    with tf.Session() as sess:
        saver.restore(sess, tf.train.latest_checkpoint(str(tmp_path)))
        np.testing.assert_array_equal(sess.run(w), w_saved)


def _raise():
    raise KeyboardInterrupt


@pytest.mark.parametrize("target", ["data", "index"])
def test_flipped_byte_is_data_loss(graph, tmp_path, target):
    w, _, _ = _model(np.random.default_rng(4))
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=3)
    fname = path + (checkpoint_io.DATA_SUFFIX if target == "data" else ".index")
    raw = bytearray(_read(fname))
    pos = 40 if target == "data" else len(raw) // 2
    raw[pos] ^= 0x10
    _write(fname, bytes(raw))
    with tf.Session() as sess:
        with pytest.raises(errors.DataLossError, match="model.ckpt-3"):
            saver.restore(sess, path)
        assert sess.store(w.op).value is None  # nothing was half-restored
    with pytest.raises(errors.DataLossError, match="model.ckpt-3"):
        tf.train.load_variable(path, "w")


def test_truncated_data_file_is_data_loss(graph, tmp_path):
    _model(np.random.default_rng(5))
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "m"))
    fname = path + checkpoint_io.DATA_SUFFIX
    _write(fname, _read(fname)[:-3])
    with tf.Session() as sess, pytest.raises(errors.DataLossError, match="truncated"):
        saver.restore(sess, path)


def test_restore_mismatches_name_the_variable(tmp_path):
    rng = np.random.default_rng(6)
    with tf.Graph().as_default():
        _model(rng)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"), global_step=1)
    # the graph has a variable the checkpoint lacks
    with tf.Graph().as_default():
        _model(rng)
        tf.Variable(1.0, name="extra")
        with tf.Session() as sess, pytest.raises(errors.NotFoundError,
                                                 match="Key extra not found in checkpoint"):
            tf.train.Saver().restore(sess, path)
        # restricting var_list makes the checkpoint's extra tensors irrelevant
        with tf.Session() as sess:
            tf.train.Saver([v for v in tf.global_variables() if v.op.name != "extra"]) \
                .restore(sess, path)
    # a mis-shaped variable
    with tf.Graph().as_default():
        _model(rng, w_shape=(4, 2))
        with tf.Session() as sess, pytest.raises(
                errors.InvalidArgumentError, match=r"variable w .*\[4, 2\].*\[3, 2\]"):
            tf.train.Saver().restore(sess, path)
    # a dtype change, and a dict var_list renaming a variable
    with tf.Graph().as_default():
        b = tf.Variable(np.zeros(2), dtype=tf.float64, name="b")
        with tf.Session() as sess:
            with pytest.raises(errors.InvalidArgumentError, match="b .*float64.*float32"):
                tf.train.Saver([b]).restore(sess, path)
            w2 = tf.Variable(np.zeros((3, 2)), dtype=tf.float64, name="renamed")
            tf.train.Saver({"w": w2}).restore(sess, path)
            np.testing.assert_array_equal(sess.run(w2), tf.train.load_variable(path, "w"))
    with tf.Graph().as_default():
        _model(rng)
        with tf.Session() as sess:
            with pytest.raises(ValueError, match="not a valid checkpoint"):
                tf.train.Saver().restore(sess, str(tmp_path / "nope"))
            with pytest.raises(ValueError, match="save_path when it is None"):
                tf.train.Saver().restore(sess, None)


def test_saver_works_on_finalized_graph_and_checks_arguments(graph, tmp_path):
    w, _, _ = _model(np.random.default_rng(7))
    init = tf.global_variables_initializer()
    graph.finalize()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        with pytest.raises(errors.FailedPreconditionError, match="uninitialized value w"):
            saver.save(sess, str(tmp_path / "m"))
        sess.run(init)
        path = saver.save(sess, str(tmp_path / "m"), global_step=np.int64(4))
        saver.restore(sess, path)
        with pytest.raises(ValueError, match="Parent directory of .* doesn't exist"):
            saver.save(sess, str(tmp_path / "missing" / "deeper" / "m"))  # TF makes one level
    with pytest.raises(ValueError, match="max_to_keep"):
        tf.train.Saver(max_to_keep=-1)
    with tf.Graph().as_default(), pytest.raises(ValueError, match="No variables to save"):
        tf.train.Saver()


def test_optimizer_slots_are_checkpointed(tmp_path):
    """Resuming from a checkpoint continues exactly as an uninterrupted Adam run."""
    def build():
        w = tf.Variable(np.array([1.0, -2.0, 3.0]), dtype=tf.float64, name="w")
        gs = tf.train.get_or_create_global_step()
        loss = tf.reduce_sum(tf.square(w - tf.constant([0.5, 0.5, 0.5], tf.float64)))
        return w, tf.train.AdamOptimizer(0.1).minimize(loss, global_step=gs)

    with tf.Graph().as_default():
        w, train_op = build()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(6):
                sess.run(train_op)
            straight = sess.run(w)
    with tf.Graph().as_default():
        w, train_op = build()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train_op)
            path = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=3)
        names = [n for n, _ in tf.train.list_variables(path)]
        assert {"w/Adam", "w/Adam_1", "beta1_power", "beta2_power"} <= set(names)
        with tf.Session() as sess:
            saver.restore(sess, path)
            for _ in range(3):
                sess.run(train_op)
            np.testing.assert_allclose(sess.run(w), straight, rtol=1e-12)
            assert tf.train.global_step(sess, tf.train.get_global_step()) == 6


def test_keep_checkpoint_every_n_hours_preserves_dropped_checkpoints(graph, tmp_path):
    _model(np.random.default_rng(8))
    saver = tf.train.Saver(max_to_keep=1, keep_checkpoint_every_n_hours=1e-9)
    keep_all = tf.train.Saver(max_to_keep=None)
    prefix = str(tmp_path / "a" / "m")
    os.makedirs(tmp_path / "a")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in (1, 2, 3):
            saver.save(sess, prefix, global_step=step)
            keep_all.save(sess, str(tmp_path / "k"), global_step=step, latest_filename="kept")
    assert all(tf.train.checkpoint_exists(f"{prefix}-{s}") for s in (1, 2, 3))
    assert saver.last_checkpoints == [prefix + "-3"]
    st = tf.train.get_checkpoint_state(str(tmp_path / "a"))
    assert st.all_model_checkpoint_paths == [prefix + "-3"]
    # TF1's Saver writes no timestamps into the state file (checked against TF 2.15)
    assert st.last_preserved_timestamp == 0 and st.all_model_checkpoint_timestamps == []
    assert "timestamp" not in (tmp_path / "a" / "checkpoint").read_text()
    assert all(tf.train.checkpoint_exists(str(tmp_path / f"k-{s}")) for s in (1, 2, 3))
    assert tf.train.latest_checkpoint(str(tmp_path), latest_filename="kept") == \
        str(tmp_path / "k-3")
