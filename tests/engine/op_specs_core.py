"""Gradient-check cases for the core op families (math, array, nn, core, state, random).

Each case is ``(op_type, case_id, build, make_inputs[, options])`` (see ``gradcheck``);
``tests/engine/test_gradients.py`` runs every case and fails when a differentiable op
type in the op table has none. Inputs avoid the points where an op is not
differentiable: ``|x|`` near 0 for Abs, ties for Max/Min/Maximum, kinks of Relu/Relu6,
non-positive inputs for Log/Sqrt/Pow, integers for Floor/Ceil.
"""
import numpy as np

import estimator_npu as tf
from estimator_npu.engine.ops import math_ops
from estimator_npu.engine.ops import slice_ops as _slice_ops
from estimator_npu.engine.ops.core import make_op, make_tensor
from op_spec_tools import case_list, normal, uniform

CASES, case = case_list(order=2)

UNARY_SHAPES = [(), (5,), (2, 3, 4)]
BINARY_SHAPES = [((2, 3), (2, 3)), ((3, 1), (1, 4)), ((2, 3, 4), (4,)), ((), (2, 3)),
                 ((2, 3), ()), ((), ())]


def _sid(shape):
    return "x".join(map(str, shape)) or "scalar"


def _aid(axis):
    return "None" if axis is None else "_".join(map(str, np.atleast_1d(axis)))


# ------------------------------------------------------------------ input makers

def away_from_zero(*shapes, lo=0.2, hi=2.0):
    return lambda rng: [rng.choice([-1.0, 1.0], s) * rng.uniform(lo, hi, s) for s in shapes]


def fractional(*shapes, lo=0.1, hi=0.9):
    """Integers plus a fraction in [lo, hi): away from the steps of floor/ceil."""
    return lambda rng: [rng.integers(-3, 3, s) + rng.uniform(lo, hi, s) for s in shapes]


def spread(*shapes):
    """Distinct values at least 0.15 apart (no ties for max/min within eps)."""
    def make(rng):
        out = []
        for s in shapes:
            n = int(np.prod(s))
            out.append(((rng.permutation(n) - n / 2) * 0.25 +
                        rng.uniform(-0.05, 0.05, n)).reshape(s))
        return out
    return make


def pair_apart(shape_a, shape_b):
    """Two inputs that differ by at least 0.1 everywhere after broadcasting."""
    def make(rng):
        a = rng.standard_normal(shape_a)
        b0 = rng.standard_normal(shape_b)
        gap = rng.choice([-1.0, 1.0], np.broadcast(a, b0).shape) * rng.uniform(0.1, 1.0)
        # b must keep its own shape: move a instead where b is the smaller operand.
        if np.shape(b0) == np.broadcast(a, b0).shape:
            return [a, a + gap]
        return [b0 + gap, b0]
    return make


# ------------------------------------------------------------------ unary math
for _shape in UNARY_SHAPES:
    _s = _sid(_shape)
    case("Neg", _s, lambda x: -x, normal(_shape))
    case("Exp", _s, tf.exp, normal(_shape))
    case("Sin", _s, tf.sin, normal(_shape))
    case("Cos", _s, tf.cos, normal(_shape))
    case("Tanh", _s, tf.tanh, normal(_shape))
    case("Sigmoid", _s, tf.sigmoid, normal(_shape, scale=3.0))
    case("Square", _s, tf.square, normal(_shape))
    case("Log", _s, tf.log, uniform(0.3, 3.0, _shape))
    case("Log1p", _s, tf.log1p, uniform(-0.5, 3.0, _shape))
    case("Sqrt", _s, tf.sqrt, uniform(0.3, 3.0, _shape))
    case("Rsqrt", _s, tf.rsqrt, uniform(0.3, 3.0, _shape))
    case("Reciprocal", _s, tf.reciprocal, away_from_zero(_shape, lo=0.3))
    case("Abs", _s, tf.abs, away_from_zero(_shape))
    # Piecewise-constant ops: gradient None, so y = x + op(x) must have gradient 1.
    case("Sign", _s, lambda x: x + tf.sign(x), away_from_zero(_shape))
    case("Floor", _s, lambda x: x * 2.0 + tf.floor(x), fractional(_shape))
    case("Ceil", _s, lambda x: x * 2.0 + tf.ceil(x), fractional(_shape))
    case("Round", _s, lambda x: x * 2.0 + tf.round(x), fractional(_shape, lo=-0.4, hi=0.4))
    case("Relu", _s, tf.nn.relu, away_from_zero(_shape, lo=0.1))
    case("Relu6", _s, tf.nn.relu6,
         lambda rng, s=_shape: [rng.choice([-1.0, 3.0, 7.0], s) + rng.uniform(-0.9, 0.9, s)])
    case("LeakyRelu", _s, tf.nn.leaky_relu, away_from_zero(_shape, lo=0.1))
    case("Elu", _s, tf.nn.elu, away_from_zero(_shape, lo=0.1))
    case("Softplus", _s, tf.nn.softplus, normal(_shape, scale=3.0))
    case("Gelu", _s, tf.nn.gelu, normal(_shape, scale=2.0))
    case("Gelu", "approximate_" + _s, lambda x: tf.nn.gelu(x, approximate=True),
         normal(_shape, scale=2.0))

case("LeakyRelu", "alpha0.01", lambda x: tf.nn.leaky_relu(x, alpha=0.01),
     away_from_zero((3, 4), lo=0.1))
case("GeluGrad", "exact", lambda dy, x: make_tensor("GeluGrad", [dy, x], dy.dtype, dy.shape,
                                                    {"approximate": False}),
     normal((3, 4), (3, 4)))
case("GeluGrad", "approximate",
     lambda dy, x: make_tensor("GeluGrad", [dy, x], dy.dtype, dy.shape, {"approximate": True}),
     normal((3, 4), (3, 4)))

# Cast: through float32 and back (rounding ~1e-7, so a large step on this linear map);
# to int32 the gradient is None (y = x + cast(cast(x, int32), float64) has gradient 1).
case("Cast", "float32_roundtrip", lambda x: tf.cast(tf.cast(x, tf.float32), tf.float64),
     normal((3, 4)), eps=0.1, rtol=1e-4, atol=1e-5)
case("Cast", "int32_no_gradient", lambda x: x + tf.cast(tf.cast(x, tf.int32), tf.float64),
     fractional((3, 4)))

# ------------------------------------------------------------------ binary math
for _sa, _sb in BINARY_SHAPES:
    _s = f"{_sid(_sa)}_{_sid(_sb)}"
    case("Add", _s, tf.add, normal(_sa, _sb))
    case("Sub", _s, tf.subtract, normal(_sa, _sb))
    case("Mul", _s, tf.multiply, normal(_sa, _sb))
    case("RealDiv", _s, tf.divide,
         lambda rng, a=_sa, b=_sb: normal(a)(rng) + away_from_zero(b, lo=0.5)(rng))
    case("Pow", _s, tf.pow,
         lambda rng, a=_sa, b=_sb: uniform(0.5, 2.0, a)(rng) + normal(b)(rng))
    case("Maximum", _s, tf.maximum, pair_apart(_sa, _sb))
    case("Minimum", _s, tf.minimum, pair_apart(_sa, _sb))

case("Pow", "constant_exponent", lambda x: x ** 3.0, normal((2, 3)))
case("Pow", "constant_base", lambda y: 2.0 ** y, normal((2, 3)))
case("Add", "operator_reversed", lambda x: 1.5 + x - np.ones((2, 3)) * x, normal((2, 3)))
case("Mul", "same_input_twice", lambda x: x * x, normal((2, 3)))
case("AddN", "three_same_shape", lambda a, b, c: tf.add_n([a, b, c]),
     normal((2, 3), (2, 3), (2, 3)))
case("AddN", "two", lambda a, b: tf.add_n([a, b * b]), normal((4,), (4,)))
case("AddN", "broadcasting", lambda a, b, c: tf.add_n([a, b, c]), normal((3,), (2, 3), ()))
case("AddN", "broadcast_by_last_input", lambda a, b, c: tf.add_n([a, b, c]),
     normal((3,), (), (2, 3)))

# ------------------------------------------------------------------ matmul
for _ta in (False, True):
    for _tb in (False, True):
        _s = f"ta{int(_ta)}_tb{int(_tb)}"
        _a = (4, 3) if _ta else (3, 4)
        _b = (5, 4) if _tb else (4, 5)
        case("MatMul", _s, lambda a, b, ta=_ta, tb=_tb: tf.matmul(a, b, transpose_a=ta,
                                                                  transpose_b=tb),
             normal(_a, _b))
        case("BatchMatMul", _s, lambda a, b, ta=_ta, tb=_tb: tf.matmul(a, b, transpose_a=ta,
                                                                       transpose_b=tb),
             normal((2,) + _a, (2,) + _b))
case("BatchMatMul", "broadcast_rank2_rhs", tf.matmul, normal((2, 3, 4), (4, 5)))
case("BatchMatMul", "broadcast_batch_dims", tf.matmul, normal((2, 1, 3, 4), (3, 4, 2)))
case("BatchMatMul", "broadcast_batch_dims_dynamic", tf.matmul, normal((1, 3, 4), (2, 4, 5)),
     dynamic=True)
case("MatMul", "operator", lambda a, b: a @ b, normal((3, 4), (4, 2)))
case("MatMul", "vector_like", tf.matmul, normal((1, 4), (4, 1)))

# ------------------------------------------------------------------ reductions
_REDUCE_AXES = [(None, False), (None, True), (0, False), (-1, True), ([0, 2], False),
                ([0, 2], True), (1, False)]
for _op, _fn, _make in [("Sum", tf.reduce_sum, normal), ("Mean", tf.reduce_mean, normal),
                        ("Max", tf.reduce_max, spread), ("Min", tf.reduce_min, spread),
                        ("Prod", tf.reduce_prod,
                         lambda s: away_from_zero(s, lo=0.5, hi=1.5))]:
    for _axis, _keep in _REDUCE_AXES:
        _s = f"axis{_aid(_axis)}_keepdims{int(_keep)}"
        case(_op, _s, lambda x, f=_fn, a=_axis, k=_keep: f(x, axis=a, keepdims=k),
             _make((2, 3, 4)))
    case(_op, "scalar", lambda x, f=_fn: f(x), _make(()))
    case(_op, "vector_axis0", lambda x, f=_fn: f(x, axis=0), _make((5,)))
    case(_op, "dynamic_shape", lambda x, f=_fn: f(x, axis=1), _make((3, 4)), dynamic=True)
    case(_op, "dynamic_keepdims", lambda x, f=_fn: f(x, axis=[0], keepdims=True),
         _make((3, 4)), dynamic=True)
case("Sum", "reduction_indices", lambda x: tf.reduce_sum(x, reduction_indices=[1]),
     normal((3, 4)))
case("Mean", "keep_dims_alias", lambda x: tf.reduce_mean(x, 0, keep_dims=True), normal((3, 4)))
# Exact zeros: one zero in a reduced slice, two zeros in another, none in the third.
# (First order only: the gradient is exact there but its own gradient is not, since the
# zero-handling selects are piecewise constant.)
case("Prod", "with_zeros", lambda x: tf.reduce_prod(x, axis=1),
     lambda rng: [np.array([[0.0, 1.5, -0.7], [0.0, 0.0, 2.0], [1.1, -0.9, 1.3]])], order=1)
case("Prod", "with_zeros_keepdims_axis0", lambda x: tf.reduce_prod(x, axis=0, keepdims=True),
     lambda rng: [np.array([[0.0, 1.5], [0.8, 0.0], [1.2, 0.0]])], order=1)
case("Max", "axis0_columns", lambda x: tf.reduce_max(x, axis=0), spread((4, 3)))

# ------------------------------------------------------------------ nn
for _axis in (-1, 0):
    case("Softmax", f"axis{_axis}", lambda x, a=_axis: tf.nn.softmax(x, axis=a),
         normal((3, 4)))
    case("LogSoftmax", f"axis{_axis}", lambda x, a=_axis: tf.nn.log_softmax(x, axis=a),
         normal((3, 4)))
case("Softmax", "rank3", tf.nn.softmax, normal((2, 3, 4)))
case("Softmax", "vector", tf.nn.softmax, normal((5,)))
case("LogSoftmax", "rank3", tf.nn.log_softmax, normal((2, 3, 4)))
case("SoftmaxCrossEntropyWithLogits", "logits_and_labels",
     lambda logits, labels: tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels,
                                                                       logits=logits),
     lambda rng: [rng.standard_normal((4, 5)), rng.dirichlet(np.ones(5), 4)])
case("SoftmaxCrossEntropyWithLogits", "rank3",
     lambda logits, labels: tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels,
                                                                       logits=logits),
     normal((2, 3, 4), (2, 3, 4)))
case("SoftmaxCrossEntropyWithLogits", "v1_labels_stop_gradient",
     lambda logits: tf.nn.softmax_cross_entropy_with_logits(
         labels=tf.constant(np.eye(5)[[0, 3, 1, 4]], dtype=tf.float64), logits=logits),
     normal((4, 5)))
case("SparseSoftmaxCrossEntropyWithLogits", "int32_labels",
     lambda logits: tf.nn.sparse_softmax_cross_entropy_with_logits(
         labels=tf.constant([0, 3, 1, 4], dtype=tf.int32), logits=logits),
     normal((4, 5)))
case("SparseSoftmaxCrossEntropyWithLogits", "rank3_int64_labels",
     lambda logits: tf.nn.sparse_softmax_cross_entropy_with_logits(
         labels=tf.constant([[0, 2, 1], [1, 1, 0]], dtype=tf.int64), logits=logits),
     normal((2, 3, 3)))
case("L2Loss", "matrix", tf.nn.l2_loss, normal((3, 4)))
case("L2Loss", "scalar", tf.nn.l2_loss, normal(()))
case("BiasAdd", "nhwc", tf.nn.bias_add, normal((2, 3, 3, 4), (4,)))
case("BiasAdd", "nchw", lambda x, b: tf.nn.bias_add(x, b, data_format="NCHW"),
     normal((2, 4, 3, 3), (4,)))
case("BiasAdd", "matrix", tf.nn.bias_add, normal((3, 4), (4,)))
case("BiasAdd", "nhwc_unknown_rank", tf.nn.bias_add, normal((2, 3, 4), (4,)), dynamic="rank")
case("Softplus", "sigmoid_cross_entropy",
     lambda x: tf.nn.sigmoid_cross_entropy_with_logits(
         labels=tf.constant(np.eye(3)[[0, 2, 1, 1]], dtype=tf.float64), logits=x),
     away_from_zero((4, 3), lo=0.1))

# ------------------------------------------------------------------ reshape family
case("Reshape", "flatten", lambda x: tf.reshape(x, [-1]), normal((2, 3, 4)))
case("Reshape", "to_matrix", lambda x: tf.reshape(x, [4, 6]), normal((2, 3, 4)))
case("Reshape", "to_scalar", lambda x: tf.reshape(x, []), normal((1, 1)))
case("Reshape", "dynamic_input", lambda x: tf.reshape(x, [-1, 2]), normal((2, 3, 4)),
     dynamic=True)
case("ReshapeDynamic", "shape_of_tensor",
     lambda x, y: tf.reshape(x, tf.shape(y)) * y, normal((2, 6), (3, 4)))
case("ReshapeLike", "direct",
     lambda x: make_tensor("ReshapeLike", [x, tf.zeros([3, 4], tf.float64)], x.dtype, [3, 4]),
     normal((2, 6)))
case("ExpandDims", "axis0", lambda x: tf.expand_dims(x, 0), normal((2, 3)))
case("ExpandDims", "axis-1", lambda x: tf.expand_dims(x, -1), normal((2, 3)))
case("ExpandDims", "scalar", lambda x: tf.expand_dims(x, 0), normal(()))
case("Squeeze", "axis", lambda x: tf.squeeze(x, [1]), normal((2, 1, 3, 1)))
case("Squeeze", "all", tf.squeeze, normal((2, 1, 3, 1)))
case("Squeeze", "dynamic", lambda x: tf.squeeze(x, [0]), normal((1, 3)), dynamic=True)
case("Transpose", "default_perm", tf.transpose, normal((2, 3, 4)))
case("Transpose", "perm", lambda x: tf.transpose(x, [1, 2, 0]), normal((2, 3, 4)))
case("Transpose", "matrix", tf.transpose, normal((3, 5)))

# ------------------------------------------------------------------ join / split
case("ConcatV2", "axis0_three", lambda a, b, c: tf.concat([a, b, c], 0),
     normal((2, 3), (1, 3), (4, 3)))
case("ConcatV2", "axis-1", lambda a, b: tf.concat([a, b], -1), normal((2, 3, 1), (2, 3, 2)))
case("ConcatV2", "same_input_twice", lambda a: tf.concat([a, a * 2.0], 1), normal((2, 2)))
case("ConcatV2", "stack", lambda a, b: tf.stack([a, b], axis=1), normal((2, 3), (2, 3)))
case("ConcatV2", "dynamic", lambda a, b: tf.concat([a, b], 0), normal((2, 3), (1, 3)),
     dynamic=True)
def _split_like(dy, shapes, axis):
    likes = [tf.zeros(s, tf.float64) for s in shapes]
    return make_op("SplitLike", [dy] + likes, [(dy.dtype, s) for s in shapes],
                   {"axis": axis}).outputs


case("SplitLike", "one_output_used", lambda dy: _split_like(dy, [[2, 3], [1, 3]], 0)[1],
     normal((3, 3)))
case("SplitLike", "all_outputs",
     lambda dy: tf.concat([p * float(i + 1) for i, p in
                           enumerate(_split_like(dy, [[3, 1], [3, 2], [3, 1]], 1))], 1),
     normal((3, 4)))
case("Split", "num_one_output", lambda x: tf.split(x, 3, axis=1)[1], normal((2, 6)))
case("Split", "sizes_all_outputs",
     lambda x: tf.concat([p * float(i + 1) for i, p in
                          enumerate(tf.split(x, [1, -1, 2], axis=0))], 0),
     normal((6, 2)))
case("Split", "unstack", lambda x: tf.unstack(x, axis=1)[2] * tf.unstack(x, axis=1)[0],
     normal((2, 3)))

# ------------------------------------------------------------------ creation / selection
case("Fill", "scalar_value", lambda v: tf.fill([2, 3], v) * tf.constant(
    np.arange(6.0).reshape(2, 3), tf.float64), normal(()))
case("Select", "same_shape",
     lambda x, y: tf.where(tf.constant([[True, False, True], [False, False, True]]), x, y),
     normal((2, 3), (2, 3)))
case("Select", "broadcast",
     lambda x, y: tf.where_v2(tf.constant([[True], [False]]), x, y), normal((2, 3), ()))
case("Select", "condition_from_input",
     lambda x: tf.where(x > 0.0, x * x, -x), away_from_zero((3, 4)))
case("GatherV2", "axis0_repeated", lambda p: tf.gather(p, tf.constant([2, 0, 2, 3])),
     normal((4, 3)))
case("GatherV2", "axis1", lambda p: tf.gather(p, tf.constant([1, 1, 0]), axis=1),
     normal((2, 3, 2)))
case("GatherV2", "matrix_indices",
     lambda p: tf.gather(p, tf.constant([[0, 1], [1, 1], [3, 0]], dtype=tf.int64)),
     normal((4, 2)))
case("GatherV2", "embedding_lookup",
     lambda p: tf.nn.embedding_lookup(p, tf.constant([1, 1, 4])), normal((5, 3)))
case("GatherV2", "tensor_index", lambda p: p[tf.constant([0, 0, 2])], normal((3, 2)))
case("GatherGrad", "direct",
     lambda dy: make_tensor("GatherGrad", [dy, tf.zeros([4, 3], tf.float64),
                                           tf.constant([2, 0, 2])],
                            dy.dtype, [4, 3], {"axis": 0}),
     normal((3, 3)))
case("GatherGrad", "axis1",
     lambda dy: make_tensor("GatherGrad", [dy, tf.zeros([2, 3], tf.float64),
                                           tf.constant([[1, 1], [0, 2]])],
                            dy.dtype, [2, 3], {"axis": 1}),
     normal((2, 2, 2)))
case("Pad", "constant", lambda x: tf.pad(x, [[1, 2], [0, 1]]), normal((2, 3)))
case("Pad", "constant_value", lambda x: tf.pad(x, [[1, 0], [2, 2]], constant_values=3.0),
     normal((2, 3)))
case("Pad", "dynamic", lambda x: tf.pad(x, [[1, 2], [0, 1]]), normal((2, 3)), dynamic=True)
case("Unpad", "direct",
     lambda x: make_tensor("Unpad", [x], x.dtype, [2, 3], {"pads": ((1, 2), (0, 1))}),
     normal((5, 4)))
case("Tile", "matrix", lambda x: tf.tile(x, [2, 3]), normal((2, 3)))
case("Tile", "rank3", lambda x: tf.tile(x, [1, 2, 2]), normal((2, 1, 3)))
case("TileGrad", "direct",
     lambda dy: make_tensor("TileGrad", [dy, tf.zeros([2, 3], tf.float64)], dy.dtype, [2, 3],
                            {"reps": (2, 1)}),
     normal((4, 3)))
case("BroadcastTo", "rank_increase", lambda x: tf.broadcast_to(x, [2, 3, 4]), normal((3, 1)))
case("BroadcastTo", "scalar", lambda x: tf.broadcast_to(x, [2, 2]), normal(()))

# ------------------------------------------------------------------ slicing
_SLICES = {
    "rows_and_step": lambda x: x[1:, ::2],
    "int_index": lambda x: x[1],
    "negative_step": lambda x: x[::-1, 1:3],
    "ellipsis_last": lambda x: x[..., 0],
    "newaxis": lambda x: x[None, 1, :, None],
    "negative_index": lambda x: x[-1, -2],
}
for _s, _fn in _SLICES.items():
    case("StridedSlice", _s, _fn, normal((3, 4, 2)))
case("StridedSlice", "tf_slice", lambda x: tf.slice(x, [1, 0], [2, -1]), normal((4, 3)))
case("StridedSlice", "reverse", lambda x: tf.reverse(x, [1]), normal((2, 3)))
case("StridedSlice", "dynamic", lambda x: x[1:, 0], normal((3, 4)), dynamic=True)
case("SliceGrad", "direct",
     lambda dy: make_tensor("SliceGrad", [dy, tf.zeros([4, 3], tf.float64)], dy.dtype, [4, 3],
                            {"key": (slice(1, None, 2), slice(None, 2))}),
     normal((2, 2)))
case("StridedSliceDynamic", "tensor_bounds",
     lambda x: x[tf.identity(1):tf.identity(3), ::2], normal((4, 3)))
case("StridedSliceDynamic", "tensor_bounds_dynamic",
     lambda x: x[tf.identity(1):, :tf.identity(-1)], normal((4, 3)), dynamic=True)
# tf.strided_slice with scalar int tensors inside begin/end (TF's PTB reader: [0, i * n])
case("StridedSliceDynamic", "strided_slice_tensor_entries",
     lambda x: tf.strided_slice(x, [0, tf.identity(1) * 2], [3, (tf.identity(1) + 1) * 2]),
     normal((4, 5)))
case("StridedSliceDynamic", "strided_slice_tensor_entries_dynamic",
     lambda x: tf.strided_slice(x, [tf.identity(1), 0], [tf.identity(3), 4], [1, 2]),
     normal((4, 5)), dynamic=True)
case("SliceGradDynamic", "direct",
     lambda dy: make_tensor("SliceGradDynamic",
                            [dy, tf.zeros([4, 3], tf.float64), tf.identity(1)], dy.dtype,
                            [4, 3], {"key": (slice(_slice_ops._Bound(0), None, 2),
                                             slice(None, 2))}),
     normal((2, 2)))

# ------------------------------------------------------------------ broadcasting helpers
case("BroadcastLike", "direct",
     lambda a: make_tensor("BroadcastLike", [a, tf.zeros([2, 3, 4], tf.float64)], a.dtype,
                           [2, 3, 4]),
     normal((3, 1)))
case("SumToShape", "direct",
     lambda g: make_tensor("SumToShape", [g, tf.zeros([3, 1], tf.float64)], g.dtype, [3, 1]),
     normal((2, 3, 4)))
case("Add", "dynamic_broadcast", tf.add, normal((3, 1), (1, 4)), dynamic=True)
case("Mul", "unknown_rank_broadcast", tf.multiply, normal((2, 3), (3,)), dynamic="rank")
case("Sub", "dynamic_scalar", tf.subtract, normal((2, 3), ()), dynamic=True)
for _axis, _keep, _mean in [(None, False, False), ((1,), True, False), ((0, 2), False, True),
                            (None, True, True)]:
    _s = f"axis{_aid(_axis)}_keepdims{int(_keep)}_mean{int(_mean)}"
    _red = (2, 3, 4) if _axis is None else tuple(
        1 if i in _axis else d for i, d in enumerate((2, 3, 4)) if _keep or i not in _axis)
    if _axis is None:
        _red = (1, 1, 1) if _keep else ()
    case("BroadcastReduced", _s,
         lambda dy, a=_axis, k=_keep, m=_mean: math_ops.broadcast_reduced(
             dy, tf.zeros([2, 3, 4], tf.float64), a, k, m),
         normal(_red))

# ------------------------------------------------------------------ identity-like / core
case("Identity", "matrix", tf.identity, normal((2, 3)))
case("PlaceholderWithDefault", "default",
     lambda x: tf.placeholder_with_default(x, [2, 3]) * 2.0, normal((2, 3)))
# StopGradient: finite differences see through it, so the blocked path must add nothing
# to the value (blocking itself is tested in test_gradients.py).
case("StopGradient", "blocked_path",
     lambda x: x * 3.0 + (tf.stop_gradient(x * x) - tf.stop_gradient(x * x)), normal((2, 3)))
# With static shapes zeros_like/ones_like fold to constants; unknown dims keep the ops.
case("ZerosLike", "plus_input", lambda x: x * 2.0 + tf.zeros_like(x), normal((2, 3)),
     dynamic=True)
case("OnesLike", "times_input", lambda x: x * tf.ones_like(x), normal((2, 3)), dynamic=True)
case("VariableV2", "gradient_wrt_variables", lambda w, b: tf.matmul(tf.constant(
    np.arange(6.0).reshape(2, 3), tf.float64), w) + b, normal((3, 4), (4,)), variables=True)
case("VariableV2", "read_value", lambda w: w.read_value() * w, normal((3,)), variables=True)
case("VariableV2", "inner_variable",
     lambda x: x * tf.Variable(np.array([1.0, -2.0, 0.5]), dtype=tf.float64), normal((3,)))

# ------------------------------------------------------------------ clipping (clip_ops)
case("GlobalNorm", "three_tensors", lambda a, b, c: tf.global_norm([a, None, b, c]),
     normal((2, 3), (4,), ()))
case("GlobalNorm", "clip_by_global_norm_clipped",
     lambda a, b: tf.add_n([tf.reduce_sum(t * float(i + 2)) for i, t in
                            enumerate(tf.clip_by_global_norm([a, b], 1.0)[0])]),
     normal((3, 2), (2,)))
case("GlobalNorm", "clip_by_global_norm_not_clipped",
     lambda a, b: tf.concat(tf.clip_by_global_norm([a, b], 100.0)[0], 0),
     normal((3,), (2,)))
case("Maximum", "clip_by_norm_axes", lambda x: tf.clip_by_norm(x, 1.0, axes=[1]),
     lambda rng: [rng.standard_normal((3, 4)) * np.array([[0.1], [2.0], [3.0]])])
case("Minimum", "clip_by_value", lambda x: tf.clip_by_value(x, -0.5, 0.5),
     lambda rng: [rng.choice([-1.0, 0.0, 1.0], (3, 4)) + rng.uniform(-0.4, 0.4, (3, 4))])

# ------------------------------------------------------------------ composites (exercise
# several primitives together: nn.moments, batch_normalization, l2_normalize)
case("Mean", "moments_batch_norm",
     lambda x, s, o: tf.nn.batch_normalization(x, *tf.nn.moments(x, [0]), o, s, 1e-3),
     lambda rng: [rng.standard_normal((5, 3)), rng.uniform(0.5, 2, 3),
                  rng.standard_normal(3)])
case("Rsqrt", "l2_normalize", lambda x: tf.nn.l2_normalize(x, axis=1), normal((3, 4)))
