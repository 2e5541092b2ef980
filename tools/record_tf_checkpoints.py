"""Records golden checkpoints and graphs written by real TensorFlow (run once, by hand).

    /tmp/tf215/bin/python tools/record_tf_checkpoints.py [OUT_DIR]

OUT_DIR defaults to tests/train/golden_tf/. Every value is a deterministic function of
its name and shape, so the tests can recompute the expected arrays without TF; the
expected values are also written to ``expected.npz`` (bfloat16 as float32, strings as
a JSON file) for a second, independent check.

Written (a few KB each):
  dtypes/model.ckpt         one variable per dtype TF checkpoints (+0-d, empty, string)
  slim/model.ckpt-1         a Slim-style conv net (nested scopes, batch norm, Momentum
                            slots, global_step) after one Momentum step
  adam/model.ckpt-1         a dense layer trained one Adam step (beta1_power, ...)
  sharded/model.ckpt        a 2-shard checkpoint (Saver(sharded=True) over two devices)
  graphs/mlp.pbtxt, mlp.pb  the GraphDef of a small MLP (text and binary)
  graphs/mlp.ckpt(.meta)    the MLP's checkpoint and the MetaGraphDef the Saver writes
  graphs/train.ckpt-1       a dense net after one training step, with its meta graph
  graphs/ops.pb             an inference graph of further op types (fused batch norm, ...)
"""
import json
import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "tests", "train", "golden_tf")


def value(name, shape, dtype):
    """The deterministic value of variable ``name``."""
    seed = sum(name.encode()) % 97
    n = int(np.prod(shape)) if shape else 1
    base = (np.arange(n, dtype=np.float64) * 0.37 + seed * 0.11) % 3.0 - 1.5
    if np.dtype(dtype).kind in "iu":
        base = np.round(base * 20)
    if np.dtype(dtype).kind == "b":
        base = base > 0
    return base.reshape(shape).astype(dtype)


expected = {}


def _saver(**kw):
    return tf.train.Saver(save_relative_paths=True, **kw)


def var(name, shape, dtype=np.float32, **kw):
    v = value(name, shape, dtype)
    expected[name] = v
    return tf.get_variable(name.rsplit("/", 1)[-1], initializer=v, **kw)


def write_dtypes(out):
    g = tf.Graph()
    with g.as_default():
        with tf.variable_scope("dtypes"):
            for dt in ["float16", "float32", "float64", "int8", "int16", "int32", "int64",
                       "uint8", "bool"]:
                var(f"dtypes/v_{dt}", [2, 3], np.dtype(dt))
            var("dtypes/scalar", [], np.float32)
            var("dtypes/empty", [0, 4], np.float32)
            bf = value("dtypes/v_bfloat16", [5], np.float32)
            expected["dtypes/v_bfloat16"] = bf
            tf.get_variable("v_bfloat16", initializer=tf.constant(bf, tf.bfloat16))
            tf.Variable(b"hello checkpoint", name="text")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            _saver().save(sess, os.path.join(out, "dtypes", "model.ckpt"),
                          write_meta_graph=False)


def slim_net(images):
    with tf.variable_scope("net"):
        with tf.variable_scope("block1"):
            with tf.variable_scope("unit_1"):
                with tf.variable_scope("conv1"):
                    w = var("net/block1/unit_1/conv1/weights", [3, 3, 2, 4])
                    x = tf.nn.conv2d(images, w, [1, 1, 1, 1], "SAME")
                    with tf.variable_scope("BatchNorm"):
                        gamma = var("net/block1/unit_1/conv1/BatchNorm/gamma", [4])
                        beta = var("net/block1/unit_1/conv1/BatchNorm/beta", [4])
                        mean = var("net/block1/unit_1/conv1/BatchNorm/moving_mean", [4],
                                   trainable=False)
                        variance = tf.get_variable(
                            "moving_variance", initializer=np.abs(value(
                                "net/block1/unit_1/conv1/BatchNorm/moving_variance", [4],
                                np.float32)) + 0.5, trainable=False)
                        expected[variance.op.name] = np.abs(value(
                            variance.op.name, [4], np.float32)) + 0.5
                    x = tf.nn.relu(tf.nn.batch_normalization(x, mean, variance, beta,
                                                             gamma, 1e-3))
        with tf.variable_scope("logits"):
            w = var("net/logits/weights", [4, 3])
            b = var("net/logits/biases", [3])
            return tf.matmul(tf.reduce_mean(x, [1, 2]), w) + b


def write_slim(out):
    g = tf.Graph()
    with g.as_default():
        images = tf.constant(value("images", [2, 5, 5, 2], np.float32))
        labels = tf.constant([0, 2])
        logits = slim_net(images)
        loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
        gs = tf.train.get_or_create_global_step()
        train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss, global_step=gs)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            saver = _saver()
            saver.save(sess, os.path.join(out, "slim", "model.ckpt"), global_step=gs,
                       write_meta_graph=False)
            for v in tf.global_variables():
                expected["slim:" + v.op.name] = sess.run(v)


def write_adam(out):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(value("x", [4, 3], np.float32))
        with tf.variable_scope("dense"):
            w = var("dense/kernel", [3, 2])
            b = var("dense/bias", [2])
        loss = tf.reduce_sum(tf.square(tf.matmul(x, w) + b))
        gs = tf.train.get_or_create_global_step()
        train = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=gs)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            _saver().save(sess, os.path.join(out, "adam", "model.ckpt"), global_step=gs,
                          write_meta_graph=False)
            for v in tf.global_variables():
                expected["adam:" + v.op.name] = sess.run(v)


def write_sharded(out):
    g = tf.Graph()
    with g.as_default():
        with tf.device("/cpu:0"):
            var("shard/a", [3, 2])
            var("shard/c", [4], np.int32)
        with tf.device("/cpu:1"):
            var("shard/b", [2, 2], np.float64)
        config = tf.ConfigProto(device_count={"CPU": 2})
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            _saver(sharded=True).save(sess, os.path.join(out, "sharded", "model.ckpt"),
                                      write_meta_graph=False)


def write_graphs(out):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(value("w", [3, 2], np.float32), name="w")
        b = tf.Variable(value("b", [2], np.float32), name="b")
        h = tf.nn.relu(tf.matmul(x, w) + b, name="hidden")
        y = tf.nn.softmax(tf.matmul(h, w, transpose_b=True), name="probs")
        tf.identity(tf.reduce_sum(y, axis=1), name="total")
        tf.train.write_graph(g.as_graph_def(), os.path.join(out, "graphs"), "mlp.pbtxt")
        tf.train.write_graph(g.as_graph_def(), os.path.join(out, "graphs"), "mlp.pb",
                             as_text=False)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            xv = value("x_feed", [2, 3], np.float32)
            np.savez(os.path.join(out, "graphs", "mlp_expected.npz"), x=xv,
                     total=sess.run("total:0", {x: xv}), hidden=sess.run(h, {x: xv}))
            _saver().save(sess, os.path.join(out, "graphs", "mlp.ckpt"))


def write_train_graph(out):
    """A small trained dense net: its meta graph holds initializers, gradients and the
    optimizer's ops, the inference flow must still import, restore and run."""
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        h = tf.layers.dense(x, 4, activation=tf.nn.relu, name="dense")
        logits = tf.layers.dense(h, 2, name="logits")
        tf.nn.softmax(logits, name="probs")
        loss = tf.reduce_mean(tf.square(logits))
        gs = tf.train.get_or_create_global_step()
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            xv = value("x_train", [2, 3], np.float32)
            sess.run(train, {x: xv})
            np.savez(os.path.join(out, "graphs", "train_expected.npz"), x=xv,
                     probs=sess.run("probs:0", {x: xv}))
            _saver().save(sess, os.path.join(out, "graphs", "train.ckpt"), global_step=gs)


def write_ops_graph(out):
    """An inference graph using the op types graph import supports beyond the MLP."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder_with_default(value("ops_x", [2, 4, 4, 3], np.float32),
                                        [None, 4, 4, 3], name="x")
        k = tf.constant(value("ops_k", [3, 3, 3, 4], np.float32))
        y = tf.nn.conv2d(tf.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]]), k, [1, 1, 1, 1],
                         "VALID")
        ones = tf.constant(np.ones(4, np.float32))
        y, _, _ = tf.nn.fused_batch_norm(y, ones * 1.5, ones * 0.1, mean=ones * 0.2,
                                         variance=ones * 2.0, is_training=False)
        y = tf.nn.relu6(y) + tf.nn.leaky_relu(y, 0.1)
        y = tf.concat([y, tf.nn.max_pool(y, [1, 1, 1, 1], [1, 1, 1, 1], "SAME")], axis=3)
        pooled = tf.squeeze(tf.reduce_mean(y, [1, 2], keepdims=True), [1, 2])
        z = tf.expand_dims(pooled, 1) * tf.cast(tf.shape(pooled)[0], tf.float32)
        tf.identity(tf.stack([tf.argmax(pooled, 1), tf.argmax(pooled, 1)]), name="classes")
        tf.identity(z, name="z")
        tf.train.write_graph(g.as_graph_def(), os.path.join(out, "graphs"), "ops.pb",
                             as_text=False)
        with tf.Session() as sess:
            np.savez(os.path.join(out, "graphs", "ops_expected.npz"),
                     **dict(zip(["z", "classes"], sess.run(["z:0", "classes:0"]))))


def main():
    for d in ["dtypes", "slim", "adam", "sharded", "graphs"]:
        os.makedirs(os.path.join(OUT, d), exist_ok=True)
    write_dtypes(OUT)
    write_graphs(OUT)
    write_slim(OUT)
    write_adam(OUT)
    write_sharded(OUT)
    write_train_graph(OUT)
    write_ops_graph(OUT)
    arrays = {k: (v.astype(np.float32) if v.dtype.name == "bfloat16" else v)
              for k, v in expected.items()}
    np.savez(os.path.join(OUT, "expected.npz"), **arrays)
    with open(os.path.join(OUT, "README.txt"), "w") as f:
        f.write(f"Written by tools/record_tf_checkpoints.py with TensorFlow {tf.__version__}.\n")
    print("wrote", OUT, sorted(expected))


if __name__ == "__main__":
    main()
