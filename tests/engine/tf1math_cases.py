"""Values and static shapes of the ``estimator_npu.math_ops_extra`` ops (and the TF1 names
around them), shared by ``tools/record_tf1math.py`` (real TF 2.15 writes
``tf1math_golden.json``) and ``test_tf1math_values.py`` (checked here against it).

Each case ``build(tf) -> (tensors, feed)`` uses only the public TF1 API, so the same code runs
under ``tensorflow.compat.v1`` and ``estimator_npu``; ``feed`` maps placeholders to arrays.
The static shape of every tensor (as TF1 infers it, before running) is recorded too."""
import numpy as np

CASES = {}
R = np.random.RandomState(12)
X = R.uniform(-0.9, 0.9, (2, 3)).astype(np.float32)
POS = R.uniform(1.1, 4.0, (2, 3)).astype(np.float32)


def case(fn):
    CASES[fn.__name__] = fn
    return fn


@case
def trig_and_hyperbolic(tf):
    ph = tf.placeholder(tf.float32, [None, 3])
    out = [f(ph) for f in (tf.acos, tf.asin, tf.atan, tf.tan, tf.sinh, tf.cosh, tf.asinh,
                           tf.atanh, tf.math.expm1, tf.math.erf, tf.math.erfc)]
    return out + [tf.acosh(POS), tf.atan2(ph, POS), tf.math.atan2(X, -POS)], {ph: X}


@case
def special_functions(tf):
    x = np.array([0.3, 1.0, 2.5, 7.0, -0.5, -2.5, 0.0, -1.0], np.float64)
    u = tf.placeholder(tf.float64, None)
    return [tf.lgamma(u), tf.digamma(u), tf.math.polygamma(np.float64(1), x[:6]),
            tf.math.polygamma(np.float64(2), x[:6]), tf.math.polygamma(np.float64(0), x),
            tf.math.zeta(np.array([2.0, 3.0, 1.0, 0.5]), np.array([0.5, 2.0, 1.0, 1.0])),
            tf.lgamma(POS), tf.math.digamma(POS)], {u: x}


@case
def division_variants(tf):
    a = np.array([-7, 7, -7, 6], np.int32)
    b = np.array([2, -2, -2, 3], np.int32)
    fa = np.array([-7.5, 7.0, 0.0, 2.0], np.float32)
    fb = np.array([2.0, -2.0, 0.0, 0.0], np.float32)
    return [tf.truncatediv(a, b), tf.truncatemod(a, b), tf.truncatediv(fa, fa - 0.5 + fb),
            tf.truncatemod(fa, np.float32(2)), tf.floor_div(a, b), tf.realdiv(fa, fa + 1.0),
            tf.math.divide_no_nan(fa, fb), tf.math.multiply_no_nan(fa, fb),
            tf.math.xlogy(np.array([0.0, 0.0, 1.5], np.float32),
                          np.array([0.0, 2.0, 2.0], np.float32)),
            tf.math.xdivy(np.array([0.0, 0.0, 1.5], np.float32),
                          np.array([0.0, 2.0, 4.0], np.float32)),
            tf.math.reciprocal_no_nan(fb + fa)], {}


@case
def rounding_logic_and_counts(tf):
    v = tf.placeholder(tf.int32, [None])
    return [tf.rint(np.array([0.5, 1.5, 2.5, -0.5, -1.7], np.float32)),
            tf.logical_xor(np.array([True, True, False, False]),
                           np.array([True, False, True, False])),
            tf.math.is_non_decreasing([1, 1, 2]), tf.is_strictly_increasing([1, 1, 2]),
            tf.math.is_strictly_increasing(np.zeros([0], np.float32)),
            tf.is_non_decreasing(np.array([[1, 2], [0, 3]])),
            tf.bincount(v), tf.math.bincount(v, minlength=7),
            tf.bincount(v, weights=np.arange(5, dtype=np.float32), maxlength=3),
            tf.accumulate_n([X, X, POS]), tf.math.accumulate_n([X]),
            tf.log_sigmoid(np.array([-100.0, 0.0, 100.0], np.float32)),
            tf.math.cumulative_logsumexp(X, axis=1),
            tf.math.cumulative_logsumexp(X, axis=0, reverse=True),
            tf.math.cumulative_logsumexp(X[0], exclusive=True)], \
        {v: np.array([1, 1, 3, 0, 4], np.int32)}
