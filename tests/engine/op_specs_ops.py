"""Gradient-check cases for the ops added with issue 12 (tf.nn extras, tf.image kernels,
scatter/gather_nd, cumsum, ...) and for ops whose unknown-shape paths were fixed there.

``UNKNOWN_SHAPE_SKIPS`` lists cases of other spec files that cannot run fed through
placeholders of unknown shape, each with the reason (``test_gradients`` requires one).
"""
import numpy as np

import estimator_npu as tf
from estimator_npu.engine.ops.core import make_tensor

CASES = []

_MATMUL_RANK = ("tf.matmul of unknown-rank operands builds BatchMatMul (TF1 builds "
                "BatchMatMulV2 there too); the BatchMatMul cases cover it")
UNKNOWN_SHAPE_SKIPS = {
    **{f"core-MatMul-{c}": {"rank": _MATMUL_RANK}
       for c in ("ta0_tb0", "ta0_tb1", "ta1_tb0", "ta1_tb1", "operator", "vector_like")},
    "core-Split-unstack": {"rank": "tf.unstack needs num= when the rank is unknown (TF: "
                                   "'Cannot infer num from shape <unknown>'); the "
                                   "unstack_num case covers it"},
    "core-StridedSlice-reverse": {"rank": "tf.reverse of an unknown-rank tensor builds "
                                          "ReverseV2 (covered by its own cases)"},
}


def case(op_type, case_id, build, make_inputs, **options):
    options.setdefault("order", 2)
    CASES.append((op_type, case_id, build, make_inputs, options))


def normal(*shapes, scale=1.0):
    return lambda rng: [scale * rng.standard_normal(s) for s in shapes]


def positive(*shapes, lo=0.5, hi=2.0):
    return lambda rng: [rng.uniform(lo, hi, s) for s in shapes]


# ------------------------------------------------------------------ shape-path fixes
case("BiasAddGrad", "nhwc", lambda dy: make_tensor("BiasAddGrad", [dy], dy.dtype, [None],
                                                   {"nchw": False}), normal((2, 3, 4)))
case("BiasAddGrad", "nchw", lambda dy: make_tensor("BiasAddGrad", [dy], dy.dtype, [None],
                                                   {"nchw": True}), normal((2, 4, 3, 3)))
case("BiasAdd", "nchw_unknown_rank", lambda x, b: tf.nn.bias_add(x, b, data_format="NCHW"),
     normal((2, 4, 3), (4,)), dynamic="rank")
_REV_KNOWN = {"batch": "with a known rank tf.reverse is a StridedSlice (its cases cover that)"}
case("ReverseV2", "unknown_rank", lambda x: tf.reverse(x, [1]), normal((2, 3, 4)),
     dynamic="rank", unknown_shape_skip=_REV_KNOWN)
case("ReverseV2", "unknown_rank_two_axes", lambda x: tf.reverse(x, [0, -1]), normal((2, 3)),
     dynamic="rank", unknown_shape_skip=_REV_KNOWN)
case("Split", "sizes_minus_one_middle", lambda x: tf.concat(
    [p * (i + 1.0) for i, p in enumerate(tf.split(x, [1, -1, 2], axis=1))], 1),
    normal((2, 6)))
case("Split", "unstack_num", lambda x: tf.add_n(
    [p * (i + 1.0) for i, p in enumerate(tf.unstack(x, num=3))]), normal((3, 4)))
case("ExpandDims", "unknown_rank_axis-2", lambda x: tf.expand_dims(x, -2) * 1.0,
     normal((2, 3)), dynamic="rank")
case("Mean", "unknown_rank_axis-1", lambda x: tf.reduce_mean(x, axis=-1), normal((2, 3, 4)),
     dynamic="rank")
case("Sum", "unknown_rank_axes_0_-1", lambda x: tf.reduce_sum(x, axis=[0, -1]),
     normal((2, 3, 4)), dynamic="rank")
case("Transpose", "unknown_rank_default_perm", tf.transpose, normal((2, 3, 4)), dynamic="rank")
case("SoftmaxCrossEntropyWithLogits", "unknown_rank_mean",
     lambda logits, labels: tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(
         labels=labels, logits=logits)),
     lambda rng: [rng.standard_normal((5, 3)), rng.dirichlet(np.ones(3), 5)], dynamic="rank")
case("SparseSoftmaxCrossEntropyWithLogits", "unknown_rank_labels",
     lambda logits: tf.nn.sparse_softmax_cross_entropy_with_logits(
         labels=tf.placeholder_with_default(np.array([0, 2, 1, 1, 0], np.int32), None),
         logits=logits), normal((5, 3)), dynamic="rank")
