"""Run by real TF (tests/train/test_real_tf_interop.py): imports a GraphDef and a
MetaGraphDef + checkpoint estimator_npu wrote, runs them, prints JSON results.

    python import_ours.py GRAPH.pbtxt GRAPH.pb CKPT_PREFIX INPUT.npy
"""
import json
import sys

import numpy as np
import tensorflow.compat.v1 as tf
from google.protobuf import text_format

tf.disable_v2_behavior()
pbtxt, pb_path, prefix, x_path = sys.argv[1:5]
x = np.load(x_path)
report = {}
gd = text_format.Parse(open(pbtxt).read(), tf.GraphDef())
with open(pb_path, "rb") as f:
    report["text_equals_binary"] = gd == tf.GraphDef.FromString(f.read())
g = tf.Graph()
with g.as_default():
    total, = tf.import_graph_def(gd, return_elements=["total:0"], name="")
    with tf.Session() as sess:
        sess.run(["w/Assign", "b/Assign"])
        report["graph_total"] = sess.run(total, {"x:0": x}).tolist()
g = tf.Graph()
with g.as_default():
    saver = tf.train.import_meta_graph(prefix + ".meta")
    with tf.Session() as sess:
        saver.restore(sess, prefix)
        report["meta_total"] = sess.run("total:0", {"x:0": x}).tolist()
        report["variables"] = sorted(v.op.name for v in tf.global_variables())
print(json.dumps(report))
