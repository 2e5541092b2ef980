"""Run by real TF (tests/train/test_duplicate_var_list.py): imports a binary GraphDef
estimator_npu wrote, runs its ``init`` op, then its ``train`` op STEPS times, and prints
the named variables as JSON.

    python run_train_graph.py GRAPH.pb STEPS VAR [VAR ...]
"""
import json
import sys

import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
pb_path, steps, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
with open(pb_path, "rb") as f:
    gd = tf.GraphDef.FromString(f.read())
g = tf.Graph()
with g.as_default():
    tf.import_graph_def(gd, name="")
    with tf.Session() as sess:
        sess.run("init")
        for _ in range(steps):
            sess.run("train")
        values = sess.run([n + ":0" for n in names])
print(json.dumps({n: v.tolist() for n, v in zip(names, values)}))
