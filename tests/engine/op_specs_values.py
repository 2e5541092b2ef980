"""Gradient-check cases for the composites the issue-12 value sweep added
(tests/conformance/test_tf_sweep.py checks their values against TF 2.15): tf.nn
statistics, tf.image extras, tf.div, boolean_mask with a 2-D mask, batch_dims gathers
with int64 indices and softmax cross entropy over a non-last axis. Every case also runs
fed through ``shape=None`` and ``[None, ...]`` placeholders (test_gradients)."""
import numpy as np

import estimator_npu as tf
from op_spec_tools import case_list, normal, positive

CASES, case = case_list(order=1)


MASK = np.array([[True, False, True], [False, True, True]])
case("Sum", "weighted_moments", lambda x, w: tf.add_n(
    list(tf.nn.weighted_moments(x, [0], w))), lambda rng: [rng.standard_normal((4, 3)),
                                                            rng.uniform(0.5, 2.0, (4, 3))])
case("Sum", "moments_from_sufficient_statistics", lambda x: tf.add_n(list(
    tf.nn.normalize_moments(*tf.nn.sufficient_statistics(x, [0, 1], shift=0.3)))),
    normal((3, 4)))
case("Exp", "log_poisson_loss_full", lambda t, x: tf.nn.log_poisson_loss(
    t, x, compute_full_loss=True), lambda rng: [rng.uniform(0.2, 3.0, (3, 4)),
                                                 rng.standard_normal((3, 4))])
case("Pow", "adjust_gamma", lambda x: tf.image.adjust_gamma(x, 1.7, 0.8), positive((2, 3, 3, 1)))
case("Abs", "total_variation", tf.image.total_variation, normal((2, 4, 3, 2)))
RANK = {"rank": "the op needs the rank of its input at build time, as TF's"}
case("Pad", "image_gradients", lambda x: tf.add_n(list(tf.image.image_gradients(x))),
     normal((1, 3, 4, 2)), unknown_shape_skip=RANK)
case("MatMul", "rgb_to_yuv", tf.image.rgb_to_yuv, normal((2, 2, 3)))
case("Transpose", "rot90_k1", lambda x: tf.image.rot90(x, 1), normal((3, 4, 2)),
     unknown_shape_skip=RANK)
case("Transpose", "rot90_k3", lambda x: tf.image.rot90(x, 3), normal((2, 3, 4, 1)),
     unknown_shape_skip=RANK)
case("RealDiv", "tf1_div_floats", tf.div, lambda rng: [rng.standard_normal((2, 3)),
                                                       rng.uniform(0.5, 2.0, (2, 3))])
case("GatherV2", "boolean_mask_2d_mask", lambda x: tf.boolean_mask(x, MASK, axis=1),
     normal((2, 2, 3, 2)))
case("GatherV2", "batch_dims_int64_indices", lambda x: tf.gather(
    x, np.array([[0, 2], [1, 1]], np.int64), axis=1, batch_dims=1), normal((2, 3, 2)),
    unknown_shape_skip=RANK)
case("SoftmaxCrossEntropyWithLogits", "axis_0", lambda x, y: tf.nn.
     softmax_cross_entropy_with_logits_v2(labels=tf.nn.softmax(y, axis=0), logits=x, axis=0),
     normal((4, 3), (4, 3)))
