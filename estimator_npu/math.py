"""``tf.math``: the TF1 math namespace (re-exports only)."""
from estimator_npu.engine.ops.math_extra_ops import (cumprod, cumsum, div_no_nan,  # noqa: F401
                                                     einsum, norm)
from estimator_npu.engine.ops.math_ops import (abs, add, add_n, argmax, argmin, ceil,  # noqa
                                               cos, divide, equal, exp, floor, floordiv,
                                               floormod, greater, greater_equal, is_finite,
                                               is_inf, is_nan, less, less_equal, log, log1p,
                                               logical_and, logical_not, logical_or,
                                               maximum, minimum, mod, multiply, negative,
                                               not_equal, pow, reciprocal, reduce_all,
                                               reduce_any, reduce_max, reduce_mean,
                                               reduce_min, reduce_prod, reduce_sum, round,
                                               rsqrt, sigmoid, sign, sin, sqrt, square,
                                               squared_difference, subtract, tanh, truediv)
from estimator_npu.engine.ops.nn_extra_ops import top_k  # noqa: F401
from estimator_npu.engine.ops.nn_ops import (in_top_k, l2_normalize, log_softmax,  # noqa
                                             softmax, softplus)
from estimator_npu.engine.ops.scatter_ops import (segment_sum,  # noqa: F401
                                                  unsorted_segment_sum)
from estimator_npu.engine.ops.composites import (confusion_matrix, count_nonzero,  # noqa: F401
                                                 log_sigmoid, reduce_logsumexp, reduce_std,
                                                 reduce_variance)
from estimator_npu.math_ops_extra.elementwise import (accumulate_n, acos, acosh,  # noqa: F401
                                                      asin, asinh, atan, atan2, atanh,
                                                      bincount, cosh, cumulative_logsumexp,
                                                      digamma, erf, erfc, expm1, lgamma,
                                                      logical_xor, multiply_no_nan, polygamma,
                                                      reciprocal_no_nan, rint, sinh, tan,
                                                      xdivy, xlogy, zeta)
from estimator_npu.checks.asserts import is_non_decreasing, is_strictly_increasing  # noqa: F401
from estimator_npu.engine.ops.math_extra_ops import div_no_nan as divide_no_nan  # noqa: F401
from estimator_npu.math_ops_extra.array_extra import invert_permutation  # noqa: F401,E402
from estimator_npu.math_ops_extra.segments import (segment_max, segment_mean,  # noqa: F401
                                                   segment_min, segment_prod,
                                                   unsorted_segment_max, unsorted_segment_mean,
                                                   unsorted_segment_min, unsorted_segment_prod,
                                                   unsorted_segment_sqrt_n)
from estimator_npu.math_ops_extra.more_math import (erfinv, lbeta, ndtri,  # noqa: F401,E402
                                                    polyval, reduce_euclidean_norm,
                                                    scalar_mul, xlog1py, zero_fraction)
from estimator_npu.engine.ops.composites import softsign  # noqa: F401,E402
from estimator_npu.math_ops_extra.incomplete import (bessel_i0e, bessel_i1e,  # noqa: F401,E402
                                                     betainc, igamma, igammac)
from estimator_npu.math_ops_extra.more_math import (angle, conj, imag,  # noqa: F401,E402
                                                    nextafter, real)
