"""Records what real TensorFlow does with partitioned variables (run once, by hand).

    /tmp/tf215/bin/python tools/record_tf_partitioned.py [OUT_DIR]

OUT_DIR defaults to tests/train/golden_tf/partitioned/. Written (a few KB):

  facts.json          the parts TF's partitioners make (names, shapes, save-slice specs,
                      PartitionedVariable's attributes), the collections, the optimizer's
                      slot names, embedding_lookup values ('mod' / 'div'), the files a
                      Saver(sharded=True) writes on one CPU and on two CPU devices, the
                      ``checkpoint`` state file, list_variables of each checkpoint
  model.ckpt-1        emb [10, 4] in 3 parts (fixed_size_partitioner), w [6, 3] in 2
                      parts along axis 1, global_step, after one Adagrad step of a loss
                      over embedding_lookup(emb) and a matmul with w (slots per part)
  sharded/model.ckpt  Saver(sharded=True) of emb [7, 2] in 2 parts on /cpu:0 and /cpu:1

Every initial value is a deterministic function of the full variable's shape (the part's
offset given by ``partition_info``), so the tests recompute it without TF.
"""
import json
import os
import shutil
import sys

import tensorflow.compat.v1 as tf

from _cases import load

tf.disable_v2_behavior()
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "tests", "train", "golden_tf", "partitioned")


CASE = load("tests/train/partitioned_case.py")
full_value, parts_of = CASE.full_value, CASE.parts_of
init = CASE.initializer(tf)


def files(d):
    return sorted(os.listdir(d))


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    facts = {"tf_version": tf.__version__}
    g = tf.Graph()
    with g.as_default():
        step = tf.train.get_or_create_global_step()
        emb, w, mm, axis = CASE.variables(tf)
        with tf.variable_scope("", reuse=True):
            again = tf.get_variable("emb", [10, 4], partitioner=tf.fixed_size_partitioner(3))
        facts["reuse_is_same"] = again is emb
        tensor = tf.convert_to_tensor(emb)
        facts["partitioned"] = {
            "emb": parts_of(emb), "dense/w": parts_of(w), "mm": parts_of(mm),
            "axis": parts_of(axis)}
        facts["attrs"] = {
            "type": type(emb).__name__, "name": emb.name, "dtype": emb.dtype.name,
            "get_shape": emb.get_shape().as_list(), "len": len(list(emb)),
            "partitions": emb._get_partitions(), "as_tensor_name": emb.as_tensor().name,
            "convert_to_tensor_name": tensor.name,
            "variable_list": [v.name for v in emb._get_variable_list()]}
        ids = tf.constant([[0, 9, 3], [5, 1, 7]])
        look = {s: tf.nn.embedding_lookup(emb, ids, partition_strategy=s)
                for s in ("mod", "div")}
        default = tf.nn.embedding_lookup(emb, ids)
        loss = tf.reduce_sum(tf.square(tf.matmul(look["mod"][0], w))) + tf.reduce_sum(
            mm) + tf.reduce_sum(axis)
        train = tf.train.AdagradOptimizer(0.1).minimize(loss, global_step=step)
        facts["global_variables"] = [v.op.name for v in tf.global_variables()]
        facts["trainable_variables"] = [v.op.name for v in tf.trainable_variables()]
        saver = tf.train.Saver(save_relative_paths=True)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            vals = sess.run({"mod": look["mod"], "div": look["div"], "default": default})
            facts["lookup_ids"] = [[0, 9, 3], [5, 1, 7]]
            facts["lookup"] = {k: v.tolist() for k, v in vals.items()}
            sess.run(train)
            after = {v.op.name: sess.run(v).tolist() for v in tf.global_variables()}
            path = saver.save(sess, os.path.join(OUT, "model.ckpt"), global_step=1,
                              write_meta_graph=False)
        facts["after_step"] = after
        facts["list_variables"] = tf.train.list_variables(path)
        facts["files"] = files(OUT)
        with open(os.path.join(OUT, "checkpoint")) as f:
            facts["state_file"] = f.read()

    # restore into another partitioning, and into a whole variable
    for label, part in (("emb_2_parts", tf.fixed_size_partitioner(2)), ("emb_whole", None)):
        g = tf.Graph()
        with g.as_default():
            v = tf.get_variable("emb", [10, 4], initializer=tf.zeros_initializer(),
                                partitioner=part)
            with tf.Session() as sess:
                tf.train.Saver([v] if part is None else list(v)).restore(sess, path)
                facts["restored_" + label] = sess.run(tf.convert_to_tensor(v)).tolist()

    # Saver(sharded=True) with every variable on the one CPU
    d = os.path.join(OUT, "_sharded_one_cpu")
    os.makedirs(d)
    g = tf.Graph()
    with g.as_default():
        tf.get_variable("emb", [7, 2], initializer=init, partitioner=tf.fixed_size_partitioner(2))
        tf.get_variable("b", [3], initializer=tf.ones_initializer())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            p = tf.train.Saver(sharded=True, save_relative_paths=True).save(
                sess, os.path.join(d, "model.ckpt"), write_meta_graph=False)
        facts["sharded_one_cpu"] = {"returned": os.path.basename(p), "files": files(d),
                                    "list_variables": tf.train.list_variables(p)}
        with open(os.path.join(d, "checkpoint")) as f:
            facts["sharded_one_cpu"]["state_file"] = f.read()
    shutil.rmtree(d)

    # Saver(sharded=True) with the two parts on two CPU devices: kept as a golden
    d = os.path.join(OUT, "sharded")
    os.makedirs(d)
    g = tf.Graph()
    with g.as_default():
        def place(op):
            return "/cpu:1" if "part_1" in op.name else "/cpu:0"
        with tf.device(place):
            tf.get_variable("emb", [7, 2], initializer=init,
                            partitioner=tf.fixed_size_partitioner(2))
        tf.get_variable("b", [3], initializer=tf.ones_initializer())
        config = tf.ConfigProto(device_count={"CPU": 2})
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            p = tf.train.Saver(sharded=True, save_relative_paths=True).save(
                sess, os.path.join(d, "model.ckpt"), write_meta_graph=False)
        facts["sharded_two_cpus"] = {
            "returned": os.path.basename(p), "files": files(d),
            "devices": {v.op.name: v.device for v in tf.global_variables()},
            "list_variables": tf.train.list_variables(p)}
        with open(os.path.join(d, "checkpoint")) as f:
            facts["sharded_two_cpus"]["state_file"] = f.read()
    with open(os.path.join(OUT, "facts.json"), "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
