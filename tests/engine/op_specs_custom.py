"""Gradient-check cases for ``tf.check_numerics`` (``CheckNumerics``, an identity that
checks) and for ``tf.custom_gradient`` (``CustomGradient``): a user-written
gradient that is the true one passes the finite-difference check; cases with two inputs,
two outputs, and an output left unused."""
import numpy as np

import estimator_npu as tf

CASES = []


def case(case_id, build, make_inputs):
    CASES.append(("CustomGradient", case_id, build, make_inputs, {"order": 1}))


def normal(*shapes):
    return lambda rng: [rng.standard_normal(s) for s in shapes]


@tf.custom_gradient
def _log1pexp(x):
    e = tf.exp(x)
    return tf.log(1.0 + e), lambda dy: dy * (1.0 - 1.0 / (1.0 + e))


@tf.custom_gradient
def _mul_and_sum(a, b):
    def grad(d_prod, d_sum):
        return d_prod * b + d_sum, d_prod * a + d_sum
    return (a * b, a + b), grad


case("one_input", lambda x: _log1pexp(x) * 2.0, normal((3, 4)))
case("two_inputs_two_outputs", lambda a, b: _mul_and_sum(a, b)[0] + tf.sin(_mul_and_sum(a, b)[1]),
     normal((2, 3), (2, 3)))
case("unused_output", lambda a, b: _mul_and_sum(a, b)[0] * 3.0, normal((4,), (4,)))


CASES.append(("CheckNumerics", "identity",
              lambda x: tf.check_numerics(x * 2.0, "bad x") * x, normal((3, 2)), {"order": 2}))
