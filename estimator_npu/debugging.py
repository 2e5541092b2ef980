"""``tf.debugging``: asserts, numeric checks and ``tf.Assert`` (re-exports only)."""
from estimator_npu.checks.asserts import (assert_all_finite, assert_equal,  # noqa: F401
                                          assert_greater, assert_greater_equal,
                                          assert_integer, assert_less, assert_less_equal,
                                          assert_near, assert_negative, assert_non_negative,
                                          assert_non_positive, assert_none_equal,
                                          assert_positive, assert_proper_iterable,
                                          assert_rank, assert_rank_at_least, assert_rank_in,
                                          assert_same_float_dtype, assert_scalar,
                                          assert_type, get_static_value, is_non_decreasing,
                                          is_numeric_tensor, is_strictly_increasing)
from estimator_npu.checks.logging_ops import Assert  # noqa: F401
from estimator_npu.engine.ops.core import check_numerics  # noqa: F401
from estimator_npu.engine.ops.math_ops import is_finite, is_inf, is_nan  # noqa: F401

del get_static_value  # tf.get_static_value is top-level only
