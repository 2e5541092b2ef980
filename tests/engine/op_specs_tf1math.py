"""Gradient-check cases for the ops of ``estimator_npu.math_ops_extra`` (special and less
common elementwise math, array ops, segment reductions, tensor scatters). Every case also
runs fed through ``shape=None`` and ``[None, ...]`` placeholders (test_gradients)."""
import numpy as np

import estimator_npu as tf

CASES = []


def case(op_type, case_id, build, make_inputs, **options):
    options.setdefault("order", 2)
    CASES.append((op_type, case_id, build, make_inputs, options))


def normal(*shapes, scale=1.0):
    return lambda rng: [scale * rng.standard_normal(s) for s in shapes]


def uniform(lo, hi, *shapes):
    return lambda rng: [rng.uniform(lo, hi, s) for s in shapes]


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
