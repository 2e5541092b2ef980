"""A script (and the kind of helper library tf_slim is) importing TF's internal modules."""
from tensorflow.python.client import timeline
from tensorflow.python.framework import constant_op, dtypes, ops, tensor_shape
from tensorflow.python.ops import array_ops, init_ops, math_ops, nn_ops, variable_scope
from tensorflow.python.ops import variables
from tensorflow.python.training import training_util
from tensorflow.python.util import nest
import tensorflow as tf


def small_net(x):
    with variable_scope.variable_scope("net"):
        w = variable_scope.get_variable("w", [3, 2], dtype=dtypes.float32,
                                        initializer=init_ops.ones_initializer())
        y = math_ops.matmul(x, w)
        return nn_ops.relu(array_ops.reshape(y, [-1]))


with ops.Graph().as_default() as g:
    x = constant_op.constant([[1.0, -2.0, 0.5]], dtype=dtypes.float32)
    out = small_net(x)
    step = training_util.get_or_create_global_step()
    print("shape", tensor_shape.TensorShape([None, 3]).as_list(), out.get_shape().as_list())
    print("collections", len(ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)))
    print("nest", nest.flatten({"b": [1, 2], "a": (3,)}),
          nest.map_structure(lambda v: v * 2, [1, (2, 3)]))
    with tf.Session(graph=g) as sess:
        sess.run(variables.global_variables_initializer())
        run_metadata = tf.RunMetadata()
        options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
        print("value", sess.run(out, options=options, run_metadata=run_metadata).tolist())
        trace = timeline.Timeline(run_metadata.step_stats).generate_chrome_trace_format()
        with open("timeline.json", "w") as f:
            f.write(trace)
        print("step", sess.run(step), "graph is default:", ops.get_default_graph() is g)
print("version", tf.__version__, tf.VERSION.split(".")[0], tf.compat.v1 is tf)
print("eager", tf.executing_eagerly(), "newaxis", tf.newaxis)
