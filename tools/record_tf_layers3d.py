"""Records real TensorFlow's tf.layers 3-D layers for tests/layers/test_layers3d.py.

Run with a TF install: ``/tmp/tf215/bin/python tools/record_tf_layers3d.py``; writes
tests/layers/golden/layers3d.npz: for each case (``CASES`` below, shared with the test by
name), the input, the kernel/bias initial values, the output, the gradients of
``sum(output * cot)`` with respect to the input, kernel and bias, and the variable names.
"""
import pathlib

import numpy as np

OUT = pathlib.Path(__file__).resolve().parents[1] / "tests" / "layers" / "golden" / "layers3d.npz"

# name: (function, input shape, keyword arguments)
CASES = {
    "conv_same": ("conv3d", [2, 5, 6, 4, 3], dict(filters=4, kernel_size=(3, 2, 2),
                                                  strides=(1, 2, 1), padding="same")),
    "conv_valid_dil": ("conv3d", [1, 6, 5, 5, 2], dict(filters=3, kernel_size=2,
                                                       dilation_rate=(2, 1, 1),
                                                       padding="valid")),
    "convt_valid": ("conv3d_transpose", [2, 3, 4, 2, 3], dict(filters=2, kernel_size=(3, 2, 2),
                                                              strides=(2, 1, 2),
                                                              padding="valid")),
    "convt_same": ("conv3d_transpose", [1, 2, 3, 3, 2], dict(filters=3, kernel_size=3,
                                                             strides=2, padding="same")),
    "max_same": ("max_pooling3d", [2, 5, 4, 6, 3], dict(pool_size=(2, 3, 2), strides=2,
                                                        padding="same")),
    "avg_same": ("average_pooling3d", [2, 5, 4, 6, 3], dict(pool_size=(2, 3, 2),
                                                            strides=(2, 1, 2),
                                                            padding="same")),
    "avg_valid": ("average_pooling3d", [1, 4, 5, 4, 2], dict(pool_size=2, strides=(1, 2, 1))),
}


def inputs(name, shape):
    rng = np.random.default_rng(sum(map(ord, name)))
    return rng.normal(size=shape).astype(np.float32)  # TF's 3-D pooling takes no float64


def kernel_shape(fn, shape, kw):
    k = kw["kernel_size"]
    k = [k] * 3 if isinstance(k, int) else list(k)
    if fn == "conv3d":
        return k + [shape[-1], kw["filters"]]
    return k + [kw["filters"], shape[-1]]


def main():
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    out = {}
    for name, (fn, shape, kw) in CASES.items():
        x = inputs(name, shape)
        out[f"{name}/x"] = x
        with tf.Graph().as_default(), tf.Session() as s:
            xt = tf.constant(x)
            extra = {}
            if fn.startswith("conv"):
                rng = np.random.default_rng(7)
                kern = rng.normal(size=kernel_shape(fn, shape, kw))
                bias = rng.normal(size=[kw["filters"]])
                out[f"{name}/kernel"], out[f"{name}/bias"] = kern, bias
                extra = dict(kernel_initializer=tf.constant_initializer(kern),
                             bias_initializer=tf.constant_initializer(bias))
            y = getattr(tf.layers, fn)(xt, **kw, **extra)
            cot = np.random.default_rng(11).normal(size=y.shape.as_list()).astype(np.float32)
            loss = tf.reduce_sum(y * cot)
            wrt = [xt] + tf.trainable_variables()
            s.run(tf.global_variables_initializer())
            vals = s.run([y] + tf.gradients(loss, wrt))
            out[f"{name}/y"], out[f"{name}/cot"] = vals[0], cot
            out[f"{name}/dx"] = vals[1]
            if fn.startswith("conv"):
                out[f"{name}/dkernel"], out[f"{name}/dbias"] = vals[2], vals[3]
            out[f"{name}/names"] = np.array([v.name for v in tf.trainable_variables()])
            out[f"{name}/opname"] = np.array(y.op.name)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **out)
    print(f"wrote {len(out)} arrays to {OUT}")


if __name__ == "__main__":
    main()
