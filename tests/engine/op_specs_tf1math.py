"""Gradient-check cases for the ops of ``estimator_npu.math_ops_extra`` (special and less
common elementwise math, array ops, segment reductions, tensor scatters). Every case also
runs fed through ``shape=None`` and ``[None, ...]`` placeholders (test_gradients)."""
import numpy as np

import estimator_npu as tf
from op_spec_tools import case_list, normal, uniform

CASES, case = case_list(order=2)


# ------------------------------------------------------------------ elementwise
case("Acos", "basic", tf.math.acos, uniform(-0.8, 0.8, (2, 3)))
case("Asin", "basic", tf.math.asin, uniform(-0.8, 0.8, (2, 3)))
case("Atan", "basic", tf.math.atan, normal((2, 3)))
case("Tan", "basic", tf.math.tan, uniform(-1.2, 1.2, (2, 3)))
case("Sinh", "basic", tf.math.sinh, normal((2, 3)))
case("Cosh", "basic", tf.math.cosh, normal((2, 3)))
case("Asinh", "basic", tf.math.asinh, normal((2, 3), scale=2.0))
case("Acosh", "basic", tf.math.acosh, uniform(1.2, 4.0, (2, 3)))
case("Atanh", "basic", tf.math.atanh, uniform(-0.8, 0.8, (2, 3)))
case("Expm1", "basic", tf.math.expm1, normal((2, 3)))
case("Erf", "basic", tf.math.erf, normal((2, 3)))
case("Erfc", "basic", tf.math.erfc, normal((2, 3)))
case("Lgamma", "positive_and_negative", tf.math.lgamma,
     lambda rng: [np.array([[0.3, 1.7, 4.2], [-0.4, -1.6, 7.5]])])
case("Digamma", "basic", tf.math.digamma, uniform(0.5, 5.0, (2, 3)))
case("Polygamma", "order_1", lambda x: tf.math.polygamma(tf.constant(1.0, tf.float64), x),
     uniform(0.5, 5.0, (2, 3)))
case("Zeta", "q", lambda q: tf.math.zeta(tf.constant([2.0, 3.5, 4.0], tf.float64), q),
     uniform(0.5, 3.0, (2, 3)))
case("Rint", "no_gradient", lambda x: tf.math.rint(x) + x, normal((2, 3)), order=1)
case("Atan2", "broadcast", tf.math.atan2, lambda rng: [rng.standard_normal((2, 3)),
                                                      rng.uniform(0.5, 2.0, (3,))])
case("MulNoNan", "broadcast", tf.math.multiply_no_nan, normal((2, 3), (3,)))
case("MulNoNan", "zero_y", lambda x, y: tf.math.multiply_no_nan(
    x, y * tf.constant([1.0, 0.0, 1.0], tf.float64)), normal((2, 3), (3,)))
case("Xlogy", "broadcast", tf.math.xlogy, lambda rng: [rng.standard_normal((2, 3)),
                                                      rng.uniform(0.5, 2.0, (3,))])
case("Xdivy", "broadcast", tf.math.xdivy, lambda rng: [rng.standard_normal((2, 3)),
                                                      rng.uniform(0.5, 2.0, (3,))])
case("Cumsum", "cumulative_logsumexp", lambda x: tf.math.cumulative_logsumexp(x, axis=1),
     normal((2, 4)))
case("Cumsum", "cumulative_logsumexp_reverse", lambda x: tf.math.cumulative_logsumexp(
    x, axis=0, reverse=True), normal((3, 2)))

# ------------------------------------------------------------------ array ops
from estimator_npu.engine.ops.core import make_tensor  # noqa: E402

_PERM = np.array([[2, 0, 1, 1], [3, 3, 0, 2]], np.int32)
_BIDX = np.array([[1, 0, 3], [2, 2, 0]], np.int32)

case("TakeAlongAxis", "sort", lambda x: tf.sort(x) * 1.0, normal((3, 4)))
case("TakeAlongAxis", "sort_axis0_descending",
     lambda x: tf.sort(x, axis=0, direction="DESCENDING"), normal((3, 4)))


def _direct(op_type, like_shape, attrs, *extra):
    """Builds grad-side op ``op_type`` on ``dy`` directly (``like``: a zero constant giving
    the output shape)."""
    def build(dy):
        like = tf.zeros(like_shape, tf.float64)
        ins = [dy, like] if op_type == "ExtractImagePatchesGrad" else \
            [tf.constant(extra[0])] + [dy] + list(extra[1:]) + [like]
        return make_tensor(op_type, ins, dy.dtype, like.shape, attrs)
    return build


case("PutAlongAxisAdd", "repeated_indices", _direct("PutAlongAxisAdd", (2, 5), {"axis": 1},
                                                    _PERM), normal((2, 4)))
case("Roll", "two_axes", lambda x: tf.roll(x, [1, -2], [0, 1]), normal((3, 4)))
case("Roll", "scalar_shift", lambda x: tf.roll(x, 2, 1), normal((2, 5)))
case("Repeat", "scalar_axis1", lambda x: tf.repeat(x, 3, axis=1), normal((2, 3)))
case("Repeat", "vector_axis0", lambda x: tf.repeat(x, [2, 0, 1], axis=0), normal((3, 2)))
case("RepeatGrad", "direct", lambda dy: make_tensor(
    "RepeatGrad", [dy, tf.constant([2, 0, 1], tf.int32), tf.zeros([3, 2], tf.float64)],
    dy.dtype, [3, 2], {"axis": 0}), normal((3, 2)))
case("BatchGather", "rank2_indices", lambda p: tf.batch_gather(p, _BIDX), normal((2, 4, 3)))
case("BatchScatterAddLike", "direct", _direct("BatchScatterAddLike", (2, 4, 2),
                                              {"batch_dims": 1}, _BIDX), normal((2, 3, 2)))
case("SpaceToDepth", "nhwc", lambda x: tf.space_to_depth(x, 2), normal((2, 4, 6, 3)))
case("SpaceToDepth", "nchw", lambda x: tf.space_to_depth(x, 2, data_format="NCHW"),
     normal((1, 2, 4, 2)))
case("DepthToSpace", "nhwc", lambda x: tf.depth_to_space(x, 2), normal((2, 2, 3, 8)))
case("SpaceToBatchND", "padded", lambda x: tf.space_to_batch_nd(x, [2, 2], [[1, 1], [0, 2]]),
     normal((2, 4, 4, 2)))
case("BatchToSpaceND", "cropped", lambda x: tf.batch_to_space_nd(x, [2, 2], [[1, 1], [0, 2]]),
     normal((8, 3, 3, 2)))
case("ExtractImagePatches", "same_strided", lambda x: tf.extract_image_patches(
    x, [1, 3, 2, 1], [1, 2, 3, 1], [1, 1, 1, 1], "SAME"), normal((2, 5, 6, 2)))
case("ExtractImagePatches", "valid_dilated", lambda x: tf.image.extract_patches(
    x, [1, 2, 2, 1], [1, 1, 1, 1], [1, 2, 1, 1], "VALID"), normal((1, 5, 4, 2)))
case("ExtractImagePatchesGrad", "direct", _direct(
    "ExtractImagePatchesGrad", (1, 3, 4, 2),
    {"k": (2, 2), "s": (1, 1), "r": (1, 1), "padding": "VALID"}), normal((1, 2, 3, 8)))
case("EnsureShape", "basic", lambda x: tf.ensure_shape(x, [None, 3]) * 2.0, normal((2, 3)))
case("Mul", "clip_by_average_norm", lambda x: tf.clip_by_average_norm(x, 0.1),
     normal((2, 3)))

# ------------------------------------------------------------------ segments and scatters
_IDS = np.array([0, 0, 2, 2, 2, 4], np.int32)
_UIDS = np.array([3, -1, 0, 3, 0, 1], np.int32)


def _with_zero(rng):
    d = rng.uniform(0.5, 1.5, (6, 2)) * rng.choice([-1.0, 1.0], (6, 2))
    d[3, 0] = 0.0
    return [d]


for _kind in ("max", "min", "prod"):
    case(f"Segment{_kind.title()}", "sorted", lambda d, _k=_kind: getattr(
        tf, f"segment_{_k}")(d, _IDS), uniform(0.5, 2.0, (6, 2)))
    case(f"UnsortedSegment{_kind.title()}", "dropped_ids", lambda d, _k=_kind: getattr(
        tf, f"unsorted_segment_{_k}")(d, _UIDS, 5) * 1.0, uniform(0.5, 2.0, (6, 2)))
case("SegmentProd", "one_zero", lambda d: tf.segment_prod(d, _IDS), _with_zero, order=1)
case("UnsortedSegmentProd", "one_zero", lambda d: tf.unsorted_segment_prod(d, _UIDS, 4),
     _with_zero, order=1)
case("UnsortedSegmentSum", "unsorted_segment_mean",
     lambda d: tf.unsorted_segment_mean(d, _UIDS, 5), normal((6, 2)))
case("UnsortedSegmentSum", "unsorted_segment_sqrt_n",
     lambda d: tf.unsorted_segment_sqrt_n(d, _UIDS, 5), normal((6, 2)))
case("UnsortedSegmentSum", "segment_mean", lambda d: tf.segment_mean(d, _IDS), normal((6, 3)))
case("UnsortedSegmentSum", "sparse_segment_sqrt_n", lambda d: tf.sparse_segment_sqrt_n(
    d, np.array([0, 3, 3, 5], np.int32), np.array([0, 0, 1, 3], np.int32)), normal((6, 2)))

_I1 = np.array([[1], [3]], np.int32)
_I2 = np.array([[0, 1], [2, 2], [0, 1]], np.int32)
case("TensorScatterUpdate", "rows", lambda t, u: tf.tensor_scatter_nd_update(t, _I1, u),
     normal((4, 3), (2, 3)))
case("TensorScatterAdd", "duplicates", lambda t, u: tf.tensor_scatter_nd_add(t, _I2, u),
     normal((4, 3), (3,)))
case("TensorScatterSub", "rows", lambda t, u: tf.tensor_scatter_nd_sub(t, _I1, u),
     normal((4, 3), (2, 3)))
case("TensorScatterMax", "rows", lambda t, u: tf.tensor_scatter_nd_max(t, _I1, u),
     normal((4, 3), (2, 3)))
case("TensorScatterMin", "elements", lambda t, u: tf.tensor_scatter_nd_min(
    t, _I2[:2], u), normal((4, 3), (2,)))

# ------------------------------------------------------------------ sparse
_SP_IND = np.array([[0, 3], [2, 1], [0, 0], [2, 4], [2, 1]], np.int64)


def _sp(values, shape=(4, 5)):
    return tf.SparseTensor(_SP_IND, values, np.array(shape, np.int64))


case("SparseDenseMatMul", "plain", lambda v, b: tf.sparse_tensor_dense_matmul(_sp(v), b),
     normal((5,), (5, 3)))
case("SparseDenseMatMul", "adjoints", lambda v, b: tf.sparse_tensor_dense_matmul(
    _sp(v), b, adjoint_a=True, adjoint_b=True), normal((5,), (2, 4)))
case("SparseDenseMatMulValuesGrad", "direct", lambda dy, b: make_tensor(
    "SparseDenseMatMulValuesGrad", [tf.constant(_SP_IND), dy, b,
                                    tf.constant(np.array([4, 5], np.int64))], dy.dtype, [5]),
    normal((4, 3), (5, 3)))
case("GatherV2", "sparse_softmax", lambda v: tf.sparse_softmax(_sp(v)).values,
     normal((5,)))
case("UnsortedSegmentSum", "sparse_add", lambda a, b: tf.sparse_add(
    _sp(a), tf.SparseTensor(_SP_IND[:2], b, np.array([4, 5], np.int64))).values,
    normal((5,), (2,)))
case("TensorScatterAdd", "sparse_add_dense", lambda v, d: tf.sparse_add(_sp(v), d),
     normal((5,), (4, 5)))
case("GatherV2", "sparse_concat_fill_reorder", lambda v: tf.sparse_reorder(
    tf.sparse_fill_empty_rows(tf.sparse_concat(0, [_sp(v), _sp(v * 2.0)]), 0.0)[0]).values,
    normal((5,)))
case("ScatterNd", "sparse_reduce_sum", lambda v: tf.sparse_reduce_sum(_sp(v), axis=1),
     normal((5,)))

# ------------------------------------------------------------------ more math
case("Erfinv", "basic", tf.math.erfinv, uniform(-0.9, 0.9, (2, 3)))
case("Ndtri", "basic", tf.math.ndtri, uniform(0.05, 0.95, (2, 3)))
case("Xlogy", "xlog1py", tf.math.xlog1py, lambda rng: [rng.standard_normal((2, 3)),
                                                     rng.uniform(0.5, 2.0, (3,))])
case("Lgamma", "lbeta", tf.math.lbeta, uniform(0.5, 3.0, (2, 3)))
