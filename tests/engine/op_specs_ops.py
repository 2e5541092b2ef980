"""Gradient-check cases for the ops added with issue 12 (tf.nn extras, tf.image kernels,
scatter/gather_nd, cumsum, ...) and for ops whose unknown-shape paths were fixed there.

``UNKNOWN_SHAPE_SKIPS`` lists cases of other spec files that cannot run fed through
placeholders of unknown shape, each with the reason (``test_gradients`` requires one).
"""
import numpy as np

import estimator_npu as tf
from estimator_npu.engine.ops.core import make_tensor
from op_spec_tools import case_list, normal, positive

CASES, case = case_list(order=2)

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

# ------------------------------------------------------------------ math extras
case("DivNoNan", "broadcast", tf.div_no_nan, lambda rng: [rng.standard_normal((2, 3)),
                                                          rng.uniform(0.5, 2.0, (3,))])
case("DivNoNan", "zero_denominator", lambda x, y: tf.div_no_nan(x, y * tf.constant(
    [1.0, 0.0, 1.0], tf.float64)), lambda rng: [rng.standard_normal((2, 3)),
                                                rng.uniform(0.5, 2.0, (3,))])
for _ex in (False, True):
    for _rev in (False, True):
        case("Cumsum", f"exclusive{int(_ex)}_reverse{int(_rev)}",
             lambda x, e=_ex, r=_rev: tf.cumsum(x, axis=1, exclusive=e, reverse=r),
             normal((2, 4)))
        case("Cumprod", f"exclusive{int(_ex)}_reverse{int(_rev)}",
             lambda x, e=_ex, r=_rev: tf.math.cumprod(x, axis=-1, exclusive=e, reverse=r),
             positive((3, 4)), order=1)
case("Cumsum", "axis0", lambda x: tf.cumsum(x), normal((4, 2)))
for _eq, _shapes in [("ij,jk->ik", ((2, 3), (3, 4))), ("bij,bjk->bik", ((2, 2, 3), (2, 3, 4))),
                     ("i,j->ij", ((3,), (4,))), ("ij->ji", ((2, 3),)), ("ij->j", ((2, 3),)),
                     ("ij,ij->i", ((2, 3), (2, 3))), ("bqd,bkd->bqk", ((2, 3, 4), (2, 5, 4))),
                     ("ij,jk", ((2, 3), (3, 2)))]:
    case("Einsum", _eq.replace(",", "_").replace("->", "_to_"),
         lambda *xs, e=_eq: tf.einsum(e, *xs), normal(*_shapes))

# ------------------------------------------------------------------ gather_nd / scatter_nd
_IDX2 = np.array([[0, 1], [2, 0], [0, 1]])
case("GatherNd", "elements", lambda p: tf.gather_nd(p, _IDX2), normal((3, 4)))
case("GatherNd", "rows", lambda p: tf.gather_nd(p, [[2], [0]]), normal((3, 4)))
case("ScatterNd", "duplicates_sum", lambda u: tf.scatter_nd(_IDX2, u, [3, 4]), normal((3,)))
case("ScatterNd", "rows", lambda u: tf.scatter_nd([[1], [0]], u, [3, 2]), normal((2, 2)))
case("ScatterNdLike", "direct", lambda u, like: make_tensor(
    "ScatterNdLike", [tf.constant(_IDX2), u, like], u.dtype, like.shape) * like,
    normal((3,), (3, 4)))
case("UnsortedSegmentSum", "rows", lambda d: tf.unsorted_segment_sum(d, [0, 2, 0, 1], 3),
     normal((4, 3)))
case("UnsortedSegmentSum", "segment_sum", lambda d: tf.segment_sum(d, [0, 0, 1]),
     normal((3, 2)))

# ------------------------------------------------------------------ top_k


def _distinct(*shapes):
    def make(rng):
        return [(rng.permutation(int(np.prod(s))) * 0.3 + rng.uniform(0, 0.05)).reshape(s)
                for s in shapes]
    return make


case("TopKV2", "k2", lambda x: tf.nn.top_k(x, 2)[0], _distinct((3, 5)))
case("TopKV2", "vector_k3", lambda x: tf.nn.top_k(x, k=3).values if hasattr(
    tf.nn.top_k(x, 3), "values") else tf.nn.top_k(x, 3)[0], _distinct((6,)))
case("TopKGrad", "direct", lambda g, x: make_tensor(
    "TopKGrad", [g, tf.constant(np.array([[1, 0], [2, 1]], np.int32)), x], g.dtype,
    x.shape) * x, normal((2, 2), (2, 3)))
case("TopKGather", "direct", lambda g: make_tensor(
    "TopKGather", [g, tf.constant(np.array([[1, 0], [2, 1]], np.int32))], g.dtype, [2, 2]),
    normal((2, 3)))

# ------------------------------------------------------------------ nn composites
case("MatMul", "xw_plus_b", tf.nn.xw_plus_b, normal((3, 4), (4, 2), (2,)),
     unknown_shape_skip={"rank": _MATMUL_RANK})
case("Conv2D", "depthwise_m2", lambda x, w: tf.nn.depthwise_conv2d(
    x, w, [1, 1, 1, 1], "SAME"), normal((2, 5, 5, 3), (3, 3, 3, 2)),
    unknown_shape_skip={"rank": "depthwise_conv2d needs the channel count statically "
                                "(TF's DepthwiseConv2dNative needs the input rank)"})
case("Conv2D", "depthwise_native_valid_s2", lambda x, w: tf.nn.depthwise_conv2d_native(
    x, w, [1, 2, 2, 1], "VALID"), normal((1, 6, 6, 2), (2, 2, 2, 1)),
    unknown_shape_skip={"rank": "needs the channel count statically"})
case("Conv2D", "separable", lambda x, dw, pw: tf.nn.separable_conv2d(
    x, dw, pw, [1, 1, 1, 1], "SAME"), normal((1, 4, 4, 2), (3, 3, 2, 2), (1, 1, 4, 3)),
    unknown_shape_skip={"rank": "needs the channel count statically"})
case("Pow", "lrn", lambda x: tf.nn.lrn(x, depth_radius=2, bias=1.5, alpha=0.3, beta=0.75),
     normal((2, 2, 2, 5)), unknown_shape_skip={"rank": "lrn needs the depth statically"})
case("UnsortedSegmentSum", "embedding_lookup_sparse_mean", lambda p: tf.nn.embedding_lookup_sparse(
    p, tf.SparseTensor([[0, 0], [0, 1], [2, 0]], [0, 2, 1], [3, 2]), None), normal((4, 3)))
case("UnsortedSegmentSum", "embedding_lookup_sparse_sqrtn_weighted",
     lambda p: tf.nn.embedding_lookup_sparse(
         p, tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [0, 2, 1], [2, 2]),
         tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [0.5, 2.0, 1.0], [2, 2]),
         combiner="sqrtn"), normal((4, 3)))
case("StridedSlice", "strided_slice_masks", lambda x: tf.strided_slice(
    x, [0, 1, 0], [2, 3, 1], [1, 1, 1], begin_mask=1, shrink_axis_mask=4), normal((3, 4, 2)))

# ------------------------------------------------------------------ image resizing
for _ac, _hp in ((False, False), (True, False), (False, True)):
    _s = f"align{int(_ac)}_half{int(_hp)}"
    case("Resize", "bilinear_up_" + _s, lambda x, a=_ac, h=_hp: tf.image.resize_bilinear(
        x, [5, 7], align_corners=a, half_pixel_centers=h), normal((2, 3, 4, 2)))
    case("Resize", "bilinear_down_" + _s, lambda x, a=_ac, h=_hp: tf.image.resize_bilinear(
        x, [2, 3], align_corners=a, half_pixel_centers=h), normal((1, 5, 6, 1)))
    case("Resize", "nearest_" + _s, lambda x, a=_ac, h=_hp: tf.image.resize_nearest_neighbor(
        x, [5, 3], align_corners=a, half_pixel_centers=h), normal((1, 3, 4, 2)))
case("Resize", "single_image", lambda x: tf.image.resize_bilinear(x, [4, 4]), normal((3, 2, 2)))
case("ResizeGrad", "direct", lambda dy, x: make_tensor(
    "ResizeGrad", [dy, x], dy.dtype, x.shape, {"size": (5, 7), "method": "bilinear",
                                               "align_corners": False, "half_pixel": False})
    * x, normal((1, 5, 7, 2), (1, 3, 4, 2)))

# ------------------------------------------------------------------ computed shapes
def _n(x):
    return tf.shape(x)[0]


case("FillDynamic", "value", lambda v, x: tf.fill([_n(x), 3], v) * x[:, :1],
     normal((), (2, 4)))
case("TileDynamic", "batch_multiple", lambda x: tf.tile(x, [_n(x) - 1, 2]), normal((3, 2)))
case("TileDynamicGrad", "direct", lambda dy, x: make_tensor(
    "TileDynamicGrad", [dy, x, tf.shape(x) * 0 + tf.constant([2, 1])], dy.dtype, x.shape) * x,
    normal((4, 3), (2, 3)))
case("SliceDynamic", "computed_size", lambda x: tf.slice(x, [1, 0], [_n(x) - 1, -1]),
     normal((3, 4)))
case("SliceDynamicGrad", "direct", lambda dy, x: make_tensor(
    "SliceDynamicGrad", [dy, x, tf.constant([1, 0]), tf.shape(x) - tf.constant([1, 0])],
    dy.dtype, x.shape) * x, normal((2, 4), (3, 4)))
case("ReshapeDynamic", "batch_minus_one", lambda x: tf.reshape(x, [_n(x), -1]),
     normal((2, 3, 4)))
case("GatherV2", "tensor_index_axis1", lambda x: x[:, _n(x) - 2], normal((3, 4)))

# ------------------------------------------------------------------ composites
case("Exp", "reduce_logsumexp_axis1", lambda x: tf.reduce_logsumexp(x, axis=1), normal((3, 4)))
case("Exp", "reduce_logsumexp_all", tf.reduce_logsumexp, normal((2, 3)))
case("Softplus", "weighted_cross_entropy", lambda x: tf.nn.weighted_cross_entropy_with_logits(
    labels=tf.constant(np.eye(3)[[0, 2, 1]]), logits=x, pos_weight=2.0),
    normal((3, 3), scale=2.0))
case("Conv2D", "conv1d", lambda x, w: tf.nn.conv1d(x, w, 2, "SAME"),
     normal((2, 7, 3), (3, 3, 2)), unknown_shape_skip={"rank": "conv1d needs the rank"})
