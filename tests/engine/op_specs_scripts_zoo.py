"""Gradient-check cases for the ops the ModelZoo scripts added: ``top_k`` with ``k`` a
tensor known only at run time (``TopKV2Dynamic``, the SWD script's column sort)."""
import numpy as np

import estimator_npu as tf

CASES = []


def _distinct(*shapes):
    def make(rng):
        return [(rng.permutation(int(np.prod(s))) * 0.3 + rng.uniform(0, 0.05)).reshape(s)
                for s in shapes]
    return make


CASES.append(("TopKV2Dynamic", "k_from_shape",
              lambda x: tf.nn.top_k(x, tf.shape(x)[-1] - 2)[0], _distinct((3, 5)), {}))
CASES.append(("TopKV2Dynamic", "vector_full_sort",
              lambda x: tf.nn.top_k(x, tf.size(x))[0], _distinct((6,)), {}))


def _scatter_into_shape_of(u, like):
    idx = tf.constant(np.array([[0, 1], [2, 0], [0, 1]], np.int32))
    return tf.scatter_nd(idx, u, tf.shape(like)) * like


# scatter_nd with a run-time shape (ScatterNdDynamic; SphereFace's margin logits)
CASES.append(("ScatterNdDynamic", "shape_of_tensor", _scatter_into_shape_of,
              lambda rng: [rng.standard_normal(3), rng.standard_normal((3, 2))], {}))
