"""The partitioned variables that tools/record_tf_partitioned.py builds in real TF and
tests/train/test_partitioned_variables.py builds here (``tf`` is either package)."""
import numpy as np


def full_value(shape):
    n = int(np.prod(shape))
    return ((np.arange(n, dtype=np.float64) * 0.37) % 3.0 - 1.5).reshape(shape)


def initializer(tf):
    """An initializer giving each part its slice of ``full_value(full shape)``."""
    def init(shape, dtype=None, partition_info=None):
        full = partition_info.full_shape if partition_info is not None else shape
        offset = partition_info.var_offset if partition_info is not None else [0] * len(shape)
        idx = tuple(slice(o, o + s) for o, s in zip(offset, shape))
        return tf.constant(full_value(full)[idx], dtype=dtype or tf.float32)
    return init


def variables(tf):
    """``(emb, dense/w, mm, axis)``: one variable per partitioner kind."""
    init = initializer(tf)
    emb = tf.get_variable("emb", [10, 4], initializer=init,
                          partitioner=tf.fixed_size_partitioner(3))
    with tf.variable_scope("dense"):
        w = tf.get_variable("w", [4, 6], initializer=init,
                            partitioner=tf.fixed_size_partitioner(2, axis=1))
    mm = tf.get_variable("mm", [10, 4], initializer=init,
                         partitioner=tf.min_max_variable_partitioner(4, min_slice_size=64))
    axis = tf.get_variable("axis", [10, 4], initializer=init,
                           partitioner=tf.variable_axis_size_partitioner(48))
    return emb, w, mm, axis


def parts_of(pv):
    """Each part's name, shape and save-slice info."""
    out = []
    for v in pv:
        info = v._save_slice_info
        out.append({"name": v.op.name, "shape": v.shape.as_list(), "spec": info.spec,
                    "full_name": info.full_name, "full_shape": info.full_shape,
                    "var_offset": info.var_offset, "var_shape": info.var_shape})
    return out
