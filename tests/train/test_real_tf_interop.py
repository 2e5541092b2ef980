"""Real TensorFlow reads, restores and warm-starts from checkpoints estimator_npu wrote.

Runs only where a Python with ``tensorflow`` is available: ``$TF_PYTHON`` or
``/tmp/tf215/bin/python`` (see tools/record_tf_checkpoints.py for the other direction,
recorded as golden files). Skips, saying why, otherwise."""
import functools
import json
import os
import subprocess

import numpy as np
import pytest

import estimator_npu as tf

HERE = os.path.dirname(__file__)
TF_PYTHON = os.environ.get("TF_PYTHON", "/tmp/tf215/bin/python")


@functools.lru_cache(maxsize=None)
def _tf_available():
    if not os.path.exists(TF_PYTHON):
        return f"no TensorFlow python at {TF_PYTHON} (set TF_PYTHON)"
    try:
        r = subprocess.run([TF_PYTHON, "-c", "import tensorflow"], capture_output=True,
                           timeout=300, env=_env())
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{TF_PYTHON} could not run: {e}"
    if r.returncode:
        return f"{TF_PYTHON} cannot import tensorflow: {r.stderr.decode()[-300:]}"
    return None


def _env():
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    env.pop("PYTHONPATH", None)
    return env


def _run_tf(script, *args):
    why = _tf_available()
    if why:
        pytest.skip(why)
    r = subprocess.run([TF_PYTHON, os.path.join(HERE, "tf_side", script), *args],
                       capture_output=True, timeout=600, env=_env(), cwd=HERE)
    assert r.returncode == 0, r.stderr.decode()[-3000:]
    return json.loads(r.stdout.decode().strip().splitlines()[-1])


def test_real_tf_reads_restores_and_warm_starts_our_checkpoint(tmp_path):
    rng = np.random.default_rng(0)
    values = {
        "resnet_v1_50/block1/unit_1/bottleneck_v1/conv1/weights":
            rng.standard_normal((3, 3, 2, 4)).astype(np.float32),
        "resnet_v1_50/block1/unit_1/bottleneck_v1/conv1/weights/Momentum":
            rng.standard_normal((3, 3, 2, 4)).astype(np.float32),
        "dense/kernel": rng.standard_normal((4, 2)),
        "scalar": np.float32(2.5), "empty": np.zeros((0, 3), np.float32),
        "h": np.arange(4).astype(np.float16), "i8": np.arange(-3, 3).astype(np.int8),
        "i16": np.arange(5).astype(np.int16), "i32": np.arange(5).astype(np.int32),
        "u8": np.arange(5).astype(np.uint8), "flag": np.array([True, False]),
        "global_step": np.int64(42), "beta1_power": np.float32(0.81),
    }
    g = tf.Graph()
    with g.as_default():
        for name, v in values.items():
            tf.Variable(v, name=name)
        text = tf.Variable(b"label map", dtype=tf.string, name="text")
        bf = tf.Variable(np.array([1.5, -2.0, 3.25], tf.bfloat16.np), name="bf16")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            os.makedirs(tmp_path / "ours")
            tf.train.Saver().save(sess, str(tmp_path / "ours" / "model.ckpt"),
                                  global_step=42)
            assert sess.run(text) == b"label map"
    values["text"] = np.array(b"label map", dtype=object)
    values["bf16"] = np.array([1.5, -2.0, 3.25], np.float32)   # TF compares as float32
    assert bf.dtype == tf.bfloat16
    np.savez(tmp_path / "expected.npz", **values)
    report = _run_tf("read_ours.py", str(tmp_path / "ours"), str(tmp_path / "expected.npz"),
                     str(tmp_path))
    assert report["mismatch"] == []
    assert sorted(report["listed"]) == sorted(values)
    assert report["listed"]["empty"] == [0, 3] and report["listed"]["scalar"] == []
    assert report["restored"] is True
    assert report["warm_started"] is True and len(report["warm_started_names"]) >= 4


def test_real_tf_imports_our_graph_def_and_meta_graph(tmp_path):
    rng = np.random.default_rng(1)
    x_val = rng.standard_normal((2, 3)).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(rng.standard_normal((3, 2)).astype(np.float32), name="w")
        b = tf.Variable(rng.standard_normal(2).astype(np.float32), name="b")
        h = tf.nn.relu(tf.matmul(x, w) + b, name="hidden")
        y = tf.nn.softmax(tf.matmul(h, w, transpose_b=True), name="probs")
        total = tf.identity(tf.reduce_sum(y * 2.0, axis=1), name="total")
        tf.train.write_graph(g, str(tmp_path), "g.pbtxt")
        tf.train.write_graph(g, str(tmp_path), "g.pb", as_text=False)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want = sess.run(total, {x: x_val})
            prefix = tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"), global_step=1)
    np.save(tmp_path / "x.npy", x_val)
    report = _run_tf("import_ours.py", str(tmp_path / "g.pbtxt"), str(tmp_path / "g.pb"),
                     prefix, str(tmp_path / "x.npy"))
    assert report["text_equals_binary"] is True
    np.testing.assert_allclose(report["graph_total"], want, rtol=1e-6)
    np.testing.assert_allclose(report["meta_total"], want, rtol=1e-6)
    assert report["variables"] == ["b", "w"]


def test_real_tf_and_we_restore_each_others_partitioned_variables(tmp_path):
    """Partitioned variables (and their slots) cross in both directions, into another
    partitioning; sharded files (one per device) too."""
    rng = np.random.default_rng(2)
    table = rng.standard_normal((9, 3)).astype(np.float32)
    small = rng.standard_normal((7, 2)).astype(np.float32)

    def sliced(full):
        return lambda shape, dtype=None, partition_info=None: \
            full[partition_info.var_offset[0]:][:shape[0]]
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", [9, 3], initializer=sliced(table),
                              partitioner=tf.fixed_size_partitioner(3))
        train = tf.train.AdagradOptimizer(0.5).minimize(
            tf.reduce_sum(tf.nn.embedding_lookup(emb, [0, 4, 8, 8])))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            want = sess.run(tf.convert_to_tensor(emb))
            slots = np.concatenate([sess.run(v) for v in tf.global_variables()[3:]])
            ours = tf.train.Saver().save(sess, str(tmp_path / "ours" / "model.ckpt"))
    with tf.Graph().as_default():
        with tf.device(lambda op: "/cpu:1" if "part_1" in op.name else "/cpu:0"):
            tf.get_variable("table", [7, 2], initializer=sliced(small),
                            partitioner=tf.fixed_size_partitioner(2))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sharded = tf.train.Saver(sharded=True).save(
                sess, str(tmp_path / "sharded" / "model.ckpt"))
    assert sorted(os.listdir(tmp_path / "sharded"))[1:3] == [
        "model.ckpt.data-00000-of-00002", "model.ckpt.data-00001-of-00002"]
    report = _run_tf("partitioned.py", ours, sharded, str(tmp_path))
    assert dict((n, s) for n, s in report["listed"]) == {"emb": [9, 3], "emb/Adagrad": [9, 3]}
    for key in ("ours_into_2", "ours_whole"):
        np.testing.assert_array_equal(np.float32(report[key]["value"]), want)
    np.testing.assert_array_equal(np.float32(report["ours_into_2"]["slot"]), slots)
    np.testing.assert_array_equal(np.float32(report["sharded_into_2"]["value"]), small)
    # TF's 4 parts over two devices: 2 data files; restored here into 3 parts
    assert report["tf_files"][1:3] == ["model.ckpt.data-00000-of-00002",
                                       "model.ckpt.data-00001-of-00002"]
    with tf.Graph().as_default():
        v = tf.get_variable("tf_emb", [11, 2], partitioner=tf.fixed_size_partitioner(3))
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, report["tf_prefix"])
            np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(v)),
                                          np.float32(report["tf_value"]))
