"""The adapter's extras: npu_plugin set-up, npu_ops.dropout, hccl_ops, hccl.manage.api, an
NPUEstimatorSpec with host_call."""
import numpy as np
import tensorflow as tf
from hccl.manage.api import get_local_rank_id, get_rank_id, get_rank_size
from npu_bridge.estimator import npu_ops
from npu_bridge.estimator.npu import npu_plugin
from npu_bridge.estimator.npu.npu_estimator import NPUEstimator, NPUEstimatorSpec
from npu_bridge.estimator.npu.npu_config import NPURunConfig
from npu_bridge.hccl import hccl_ops

npu_plugin.npu_resource_init(graph_run_mode=1)
seen = []


def host_fn(step, loss):
    return tf.py_func(lambda s, l: seen.append((int(s), float(l))) or np.int64(0),
                      [step, loss], tf.int64)


def model_fn(features, labels, mode):
    h = npu_ops.dropout(tf.layers.dense(features, 4), keep_prob=0.9)
    loss = tf.reduce_mean(tf.square(tf.layers.dense(h, 1) - labels))
    loss = hccl_ops.allreduce(loss, "sum") / get_rank_size()
    step = tf.train.get_global_step()
    op = tf.train.GradientDescentOptimizer(0.05).minimize(loss, step)
    return NPUEstimatorSpec(mode, loss=loss, train_op=op, host_call=(host_fn, [step, loss]))


def input_fn():
    x = np.random.RandomState(0).randn(64, 3).astype(np.float32)
    return tf.data.Dataset.from_tensor_slices((x, x[:, :1])).repeat().batch(8)


est = NPUEstimator(model_fn, config=NPURunConfig(model_dir="host_call_model"))
est.train(input_fn, max_steps=6)
npu_plugin.npu_resource_shutdown()
print("host_call steps", [s for s, _ in seen])
print("ranks", get_rank_id(), get_local_rank_id(), get_rank_size())
try:
    NPUEstimatorSpec(tf.estimator.ModeKeys.TRAIN, host_call=(host_fn, [1]))
except RuntimeError as e:
    print("validation:", e)
