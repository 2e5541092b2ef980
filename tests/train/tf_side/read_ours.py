"""Run by real TF (tests/train/test_real_tf_interop.py): reads a checkpoint estimator_npu
wrote and reports what TF saw, as JSON on the last stdout line.

    python read_ours.py CKPT_DIR_OR_PREFIX EXPECTED.npz WORK_DIR
"""
import json
import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
ckpt, expected_path, work = sys.argv[1:4]
expected = dict(np.load(expected_path, allow_pickle=True))
report = {"listed": {n: s for n, s in tf.train.list_variables(ckpt)}, "mismatch": []}
reader = tf.train.load_checkpoint(ckpt)
for name, want in expected.items():
    got = reader.get_tensor(name)
    if want.dtype == object:
        want = want.item()
    got = np.asarray(got)
    if got.dtype.name == "bfloat16":
        got = got.astype(np.float32)
    if not np.array_equal(got.astype(np.asarray(want).dtype), want):
        report["mismatch"].append(name)
dtypes = reader.get_variable_to_dtype_map()
float_names = sorted(n for n in expected if dtypes[n] in (tf.float32, tf.float64))

# Saver.restore into a graph with the same variables
g = tf.Graph()
with g.as_default():
    vs = {n: tf.get_variable(n, shape=report["listed"][n], dtype=dtypes[n]) for n in expected
          if dtypes[n] != tf.string}
    with tf.Session() as sess:
        tf.train.Saver(vs).restore(sess, ckpt if not os.path.isdir(ckpt)
                                   else tf.train.latest_checkpoint(ckpt))
        report["restored"] = all(np.array_equal(np.asarray(sess.run(v)).astype(
            expected[n].dtype), expected[n]) for n, v in vs.items())


# Estimator warm start of the float variables
def model_fn(features, labels, mode):
    vs = [tf.get_variable(n, shape=report["listed"][n], dtype=dtypes[n]) for n in float_names]
    loss = tf.add_n([tf.reduce_sum(tf.cast(v, tf.float32)) * 0.0 for v in vs])
    train = tf.train.GradientDescentOptimizer(0.0).minimize(
        loss, global_step=tf.train.get_or_create_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train)


est = tf.estimator.Estimator(model_fn, model_dir=os.path.join(work, "est"),
                             warm_start_from=tf.estimator.WarmStartSettings(ckpt, ".*"))
est.train(lambda: (tf.data.Dataset.from_tensors(({"x": [1.0]}, [0.0])).repeat()), steps=1)
report["warm_started"] = all(np.array_equal(est.get_variable_value(n), expected[n])
                             for n in float_names)
report["warm_started_names"] = float_names
print(json.dumps(report))
