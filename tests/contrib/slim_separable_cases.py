"""Cases shared by ``tools/record_tf_slim_separable.py`` (tf_slim 1.1 on TF 2.15 writes
``slim_separable_tf215.json``) and ``test_slim_separable.py``: ``slim.separable_conv2d``
with fixed initial values; the runner records the variables (name, shape) and the
output."""
import numpy as np

R = np.random.RandomState(5)
X = R.normal(0, 1, (2, 6, 6, 3)).astype(np.float32)
DW = R.normal(0, 0.5, (3, 3, 3, 2)).astype(np.float32)
PW = R.normal(0, 0.5, (1, 1, 6, 4)).astype(np.float32)
B4, B6 = (R.normal(0, 0.1, (n,)).astype(np.float32) for n in (4, 6))
CASES = {
    "pointwise_same": dict(num_outputs=4, kernel_size=3, depth_multiplier=2, bias=B4),
    "pointwise_stride2_valid_relu": dict(num_outputs=4, kernel_size=[3, 3],
                                         depth_multiplier=2, stride=2, padding="VALID",
                                         bias=B4, relu=True),
    "pointwise_rate2": dict(num_outputs=4, kernel_size=3, depth_multiplier=2, rate=2,
                            bias=B4),
    "depthwise_only": dict(num_outputs=None, kernel_size=3, depth_multiplier=2, stride=2,
                           bias=B6),
    "no_biases": dict(num_outputs=4, kernel_size=3, depth_multiplier=2, bias=None),
}


def run(tf, slim, spec):
    spec = dict(spec)
    bias, relu = spec.pop("bias"), spec.pop("relu", False)
    g = tf.Graph()
    with g.as_default():
        kw = dict(weights_initializer=tf.constant_initializer(DW),
                  activation_fn=tf.nn.relu if relu else None,
                  biases_initializer=None if bias is None else tf.constant_initializer(bias))
        if spec["num_outputs"] is not None:
            kw["pointwise_initializer"] = tf.constant_initializer(PW)
        with tf.variable_scope("net"):
            y = slim.separable_conv2d(tf.constant(X), **spec, **kw)
        names = sorted([v.op.name, v.shape.as_list()] for v in tf.global_variables())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = sess.run(y)
    return {"variables": names, "shape": list(out.shape), "output": out.tolist()}
