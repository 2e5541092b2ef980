"""fp16 compute semantics: inputs rounded to fp16, products accumulated exactly (fp32 holds
the product of two fp16 values), outputs rounded to fp16; overflow to inf and underflow to
0 exactly where fp16 hardware gives them. References are written in float64 from the
definition (round to nearest even on fp16's grid), independently of the implementation."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.engine import precision
from npu_configs import session_config

F16_MAX = 65504.0
TINY = 2.0 ** -24          # the smallest fp16 subnormal


def ref_round(x):
    """fp16 rounding from the definition, in float64: round half to even on the grid of
    spacing 2**(e - 10), e = max(exponent(x), -14); beyond 65504 -> inf."""
    x = np.asarray(x, np.float64)
    out = np.empty_like(x)
    finite = np.isfinite(x)
    out[~finite] = x[~finite]
    xf = x[finite]
    _, exp = np.frexp(xf)                      # xf = m * 2**exp, 0.5 <= |m| < 1
    e = np.maximum(exp - 1, -14)
    q = np.ldexp(1.0, e - 10)
    r = np.rint(xf / q) * q                    # exact: division by a power of two
    r[np.abs(r) > F16_MAX] = np.inf
    out[finite] = np.copysign(r, xf)
    return out


def assert_same(got, want):
    with np.errstate(invalid="ignore"):  # casting signalling NaNs
        got = np.asarray(got, np.float64)
        want = np.asarray(want, np.float64)
    assert got.shape == want.shape
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    assert same.all(), (np.asarray(got)[~same][:5], np.asarray(want)[~same][:5])


# ------------------------------------------------------------------ fp16_round
def test_every_fp16_value_is_a_fixed_point():
    h = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    with np.errstate(invalid="ignore"):  # NaN payloads
        x = h.astype(np.float32)
    assert_same(precision.fp16_round(x), x)


def test_ties_round_to_even_and_neighbours_round_to_nearest():
    h = np.arange(0, 0x7BFF, dtype=np.uint16).view(np.float16).astype(np.float64)
    nxt = np.arange(1, 0x7C00, dtype=np.uint16).view(np.float16).astype(np.float64)
    mid = ((h + nxt) / 2).astype(np.float32)   # exact: midpoints need 12 bits
    assert np.array_equal(mid.astype(np.float64), (h + nxt) / 2)
    lo = np.nextafter(mid, np.float32(-np.inf))
    hi = np.nextafter(mid, np.float32(np.inf))
    even = np.where(np.arange(0, 0x7BFF) % 2 == 0, h, nxt)
    for sign in (1, -1):
        assert_same(precision.fp16_round(sign * mid), sign * even)
        assert_same(precision.fp16_round(sign * lo), sign * h)
        assert_same(precision.fp16_round(sign * hi), sign * nxt)


@pytest.mark.parametrize("value, expected", [
    (65504.0, 65504.0),
    (65519.996, 65504.0),            # below the midpoint 65520
    (65520.0, np.inf),               # the tie goes to the even neighbour, 65536 = inf
    (1e6, np.inf),
    (3.4e38, np.inf),
    (np.inf, np.inf),
    (TINY, TINY),                    # the smallest subnormal survives
    (TINY / 2, 0.0),                 # 2**-25 is a tie: rounds to the even 0
    (np.nextafter(np.float32(TINY / 2), np.float32(1)), TINY),
    (1.5 * TINY, 2 * TINY),          # tie between 1 and 2 ulps: to even 2
    (2.5 * TINY, 2 * TINY),
    (1e-10, 0.0),
    (1e-45, 0.0),                    # a float32 subnormal
    (2.0 ** -14, 2.0 ** -14),        # the smallest fp16 normal
    (2.0 ** -14 - TINY / 2, 2.0 ** -14),
    (1.0 + 2.0 ** -11, 1.0),
    (1.0 + 3 * 2.0 ** -11, 1.0 + 2 * 2.0 ** -10),
])
def test_boundaries(value, expected):
    for sign in (1, -1):
        got = precision.fp16_round(np.array([sign * value], np.float32))
        assert got.dtype == np.float32
        assert got[0] == sign * expected or (got[0] == 0 and expected == 0)


def test_nan_stays_nan():
    x = np.array([np.nan, -np.nan], np.float32)
    signalling = np.array([0x7F800001, 0xFFA00000], np.uint32).view(np.float32)
    assert np.isnan(precision.fp16_round(x)).all()
    assert np.isnan(precision.fp16_round(signalling)).all()


def test_random_bit_patterns_match_the_definition_and_numpy():
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 1 << 32, 400_000, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    got = precision.fp16_round(x)
    with np.errstate(invalid="ignore"):  # signalling NaNs
        assert_same(got, ref_round(x))
    normal = np.abs(x) >= 2.0 ** -14    # numpy's conversion is very slow below this
    with np.errstate(over="ignore", invalid="ignore"):
        assert_same(got[normal], x[normal].astype(np.float16).astype(np.float32))


def test_float64_and_integer_inputs():
    rng = np.random.default_rng(1)
    x = rng.standard_normal(10_000) * np.exp2(rng.integers(-30, 20, 10_000))
    got = precision.fp16_round(x)
    assert got.dtype == np.float32
    assert_same(got, ref_round(x))
    assert_same(precision.fp16_round(np.array([2049, 4097, 70000])), [2048, 4096, np.inf])
    assert_same(precision.fp16_round(np.float32(0.1)), ref_round(0.1))


def test_fp16_round_into_preallocated_and_in_place():
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((64, 33)) * 1e-5).astype(np.float32)
    want = ref_round(x)
    out = np.empty_like(x)
    work = np.empty(x.shape, np.uint32)
    assert precision.fp16_round_into(x, out, work) is out
    assert_same(out, want)
    xt = x.T                                   # a non-contiguous input
    assert_same(precision.fp16_round_into(xt, np.empty(xt.shape, np.float32),
                                          np.empty(xt.shape, np.uint32)), want.T)
    precision.fp16_round_into(x, x, work)
    assert_same(x, want)


# ------------------------------------------------------------------ matmul in a session
def run_matmul(a, b, mode="allow_mix_precision", batch=False):
    g = tf.Graph()
    with g.as_default():
        pa = tf.placeholder(tf.float32, a.shape)
        pb = tf.placeholder(tf.float32, b.shape)
        y = tf.matmul(pa, pb)
        assert y.op.type == ("BatchMatMul" if batch else "MatMul")
        with tf.Session(config=session_config(mode)) as sess, \
                np.errstate(invalid="ignore", over="ignore"):
            return sess.run(y, {pa: a, pb: b})


def exact_reference(a, b):
    """Round inputs, exact products and sums (float64 is exact for these inputs), round."""
    return ref_round(np.matmul(ref_round(a), ref_round(b)))


def test_matmul_equals_the_rounding_points_reference_exactly():
    """Inputs carry noise below half an fp16 ulp (removed by the input rounding) on values
    whose products and sums are exact in fp32, so the reference is exact."""
    rng = np.random.default_rng(3)
    k = rng.integers(32, 65, (16, 24)) * rng.choice([-1, 1], (16, 24))
    j = rng.integers(32, 65, (24, 8)) * rng.choice([-1, 1], (24, 8))

    def noise(shape):
        return rng.uniform(-0.9, 0.9, shape) * 2.0 ** -13
    a = (k / 64 + noise(k.shape)).astype(np.float32)
    b = (j / 64 + noise(j.shape)).astype(np.float32)
    assert not np.array_equal(ref_round(a), a)
    want = exact_reference(a, b)
    assert not np.array_equal(want, np.matmul(k / 64, j / 64)), "the output must round"
    assert_same(run_matmul(a, b), want)
    a3, b3 = a.reshape(2, 8, 24), np.stack([b, -b])
    assert_same(run_matmul(a3, b3, batch=True), exact_reference(a3, b3))


def test_matmul_random_inputs_within_one_fp16_ulp_of_exact():
    """General inputs: fp32 accumulation (as on the hardware) may differ from the exact
    sum; after the output rounding the result is the exact one or its neighbour."""
    rng = np.random.default_rng(4)
    a = rng.standard_normal((32, 128)).astype(np.float32)
    b = rng.standard_normal((128, 16)).astype(np.float32)
    got = run_matmul(a, b).astype(np.float64)
    want = exact_reference(a, b)
    assert_same(ref_round(got), got)
    ulp = np.ldexp(1.0, np.maximum(np.frexp(want)[1] - 1, -14) - 10)
    assert (np.abs(got - want) <= ulp).all()
    assert np.mean(got == want) > 0.95
    assert not np.array_equal(got, a @ b)


@pytest.mark.parametrize("a, b, expected", [
    ([[65504.0]], [[1.0]], 65504.0),
    ([[65519.0]], [[1.0]], 65504.0),             # the input rounds down to 65504
    ([[70000.0]], [[1.0]], np.inf),              # the input overflows
    ([[300.0]], [[300.0]], np.inf),              # the product overflows (90000)
    ([[32760.0, 32760.0]], [[1.0], [1.0]], np.inf),       # the sum is 65520: inf
    ([[32752.0, 32752.0]], [[1.0], [1.0]], 65504.0),
    ([[-300.0]], [[300.0]], -np.inf),
    ([[60000.0, 60000.0]], [[1.0], [-1.0]], 0.0),  # fp32 accumulation: no overflow
    ([[2.0 ** -12]], [[2.0 ** -12]], TINY),      # a subnormal result survives
    ([[2.0 ** -12]], [[2.0 ** -13]], 0.0),       # 2**-25: a tie, to the even 0
    ([[2.0 ** -12]], [[3 * 2.0 ** -14]], TINY),  # 0.75 * 2**-24 rounds up
    ([[2.0 ** -12]], [[2.0 ** -14]], 0.0),       # 2**-26 underflows
    ([[2.0 ** -26]], [[2.0 ** 10]], 0.0),        # the input itself underflows
    ([[2.0 ** -26, 2.0 ** -12]], [[1.0], [2.0 ** -12]], TINY),
])
def test_matmul_overflow_and_underflow(a, b, expected):
    a = np.array(a, np.float32)
    b = np.array(b, np.float32)
    got = run_matmul(a, b)[0, 0]
    assert got == expected
    assert exact_reference(a, b)[0, 0] == expected
    fp32 = run_matmul(a, b, mode="force_fp32")[0, 0]
    if (np.isinf(expected) or expected == 0.0) and (a @ b)[0, 0] != 0:
        assert fp32 != expected, "fp32 must not overflow or underflow here"


def test_inf_input_times_zero_gives_nan_as_on_hardware():
    got = run_matmul(np.array([[1e6, 1.0]], np.float32), np.array([[0.0], [1.0]], np.float32))
    assert np.isnan(got[0, 0])


def test_gradients_underflow_in_the_backward_matmul():
    """The weight gradient of a matmul is a matmul: in fp16 mode a gradient below 2**-25
    flushes to zero (the reason for loss scaling), in fp32 it does not."""
    for mode, expect_zero in (("allow_mix_precision", True), ("force_fp32", False)):
        g = tf.Graph()
        with g.as_default():
            x = tf.constant([[1.0, 2.0]])
            w = tf.Variable([[1.0], [1.0]])
            loss = tf.reduce_sum(tf.matmul(x, w)) * 1e-8
            grad, = tf.gradients(loss, [w])
            with tf.Session(config=session_config(mode)) as sess:
                sess.run(tf.global_variables_initializer())
                gv = sess.run(grad)
        assert (gv == 0).all() == expect_zero, (mode, gv)
