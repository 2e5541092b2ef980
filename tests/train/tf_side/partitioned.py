"""Run by real TF (tests/train/test_real_tf_interop.py): restores the partitioned
checkpoints estimator_npu wrote into other partitionings, and writes one of its own;
reports as JSON on the last stdout line.

    python partitioned.py OURS_PREFIX OURS_SHARDED_PREFIX WORK_DIR
"""
import json
import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
ours, ours_sharded, work = sys.argv[1:4]
report = {"listed": tf.train.list_variables(ours),
          "listed_sharded": tf.train.list_variables(ours_sharded)}


def restore(prefix, parts, name="emb", shape=(9, 3)):
    with tf.Graph().as_default():
        v = tf.get_variable(name, shape, initializer=tf.zeros_initializer(),
                            partitioner=tf.fixed_size_partitioner(parts) if parts else None)
        slot = None
        if name == "emb":
            tf.train.AdagradOptimizer(0.1).minimize(tf.reduce_sum(tf.convert_to_tensor(v)))
            slot = [x for x in tf.global_variables() if x.op.name.endswith("Adagrad")]
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, prefix)
            out = {"value": sess.run(tf.convert_to_tensor(v)).tolist()}
            if slot:
                out["slot"] = np.concatenate([sess.run(s) for s in slot]).tolist()
            return out


report["ours_into_2"] = restore(ours, 2)
report["ours_whole"] = restore(ours, None)
report["sharded_into_2"] = restore(ours_sharded, 2, "table", (7, 2))

# TF writes: a 4-part variable, sharded over two CPU devices
with tf.Graph().as_default():
    with tf.device(lambda op: "/cpu:1" if op.name.endswith(("part_1", "part_3")) else "/cpu:0"):
        t = tf.get_variable("tf_emb", [11, 2], initializer=tf.random_normal_initializer(),
                            partitioner=tf.fixed_size_partitioner(4))
    os.makedirs(os.path.join(work, "tf"))
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        sess.run(tf.global_variables_initializer())
        report["tf_value"] = sess.run(tf.convert_to_tensor(t)).tolist()
        report["tf_prefix"] = tf.train.Saver(sharded=True).save(
            sess, os.path.join(work, "tf", "model.ckpt"), write_meta_graph=False)
report["tf_files"] = sorted(os.listdir(os.path.join(work, "tf")))
print(json.dumps(report))
