"""fp16 compute semantics and the ``precision_mode`` kernel rewrite.

Real fp16 hardware (GPU tensor cores, the Ascend cube unit) rounds the inputs of a matrix
product to fp16, accumulates in fp32 and rounds the output to fp16. numpy's own float16
matmul does not use BLAS and is orders of magnitude slower, so we compute the same numbers
as: round inputs to fp16, multiply with the float32 BLAS, round the result to fp16::

    fp16_round(matmul(fp16_round(a), fp16_round(b)))      # values exactly fp16-representable

Overflow (|x| >= 65520, which rounds past 65504) gives inf and underflow (|x| <= 2**-25)
gives 0, exactly where fp16 hardware does. (The product of two fp16 values is exact in
fp32, so only the fp32 accumulation rounds in between, as on the hardware.)

``fp16_round`` does not convert to numpy's float16 and back: that conversion costs about
10 ns per element, and over 100 ns for the tiny values gradients are made of. It adds
and subtracts a magic number instead, with the float32 spacing at the magic number equal
to the fp16 spacing at ``x``, so the float32 adder does the round-to-nearest-even::

    e = clip(exponent(x), -14, 15)            # fp16 subnormals share the spacing 2**-24
    M = 1.5 * 2**(e + 13)                     # float32 ulp at M == fp16 ulp at x
    r = (x + M) - M                           # x rounded to fp16 precision, RNE
    r = (r * 2**112) * 2**-112                # |r| >= 2**16 -> inf; other values exact

which is seven whole-array numpy calls with ``out=`` and no allocation (exact for every
float32 input incl. subnormals, inf and NaN; a zero result is +0 even where the
fp16 result would be -0, which compares equal).

``precision_mode`` (from the session config's ``NpuOptimizer`` entry, or
``NPURunConfig(precision_mode=...)``) is applied by one rewrite when a plan is compiled:

=====================  ==========================================================
mode                   float32 ops computed in fp16
=====================  ==========================================================
force_fp32             none
must_keep_origin_dtype none (ops run in the dtype of their inputs)
allow_fp32_to_fp16     matmul, batch matmul, conv2d and its backprops (the cube ops)
allow_mix_precision    matmul, batch matmul, conv2d and its backprops (the cube ops)
force_fp16             matmul, batch matmul, conv2d and its backprops (the cube ops)
=====================  ==========================================================

(``tf.layers.dense`` is a matmul, so it is included.) Everything else — reductions,
softmax, losses, variables and the optimizer — stays fp32; master weights are never
rounded (the rewrite touches kernels, not variables). Cube ops on float16 tensors (user
casts, as in seed 003) run in every mode with the float32 BLAS and one rounding of the
result (``float16_via_fp32``).
"""
import numpy as np

FP16_OP_TYPES = frozenset({"MatMul", "BatchMatMul", "Conv2D", "Conv2DBackpropInput",
                           "Conv2DBackpropFilter"})
FP16_MODES = frozenset({"allow_fp32_to_fp16", "allow_mix_precision", "force_fp16"})
PRECISION_MODES = ("force_fp32", "allow_fp32_to_fp16", "allow_mix_precision",
                   "must_keep_origin_dtype", "force_fp16")

_f16 = np.float16
_f32 = np.float32
_f64 = np.float64


class _Trick:
    """The constants of the magic-number rounding for one float dtype."""

    __slots__ = ("uint", "exp_mask", "lo", "hi", "offset", "up", "down")

    def __init__(self, uint, mant_bits, bias, up_exp):
        drop = mant_bits - 10                      # mantissa bits fp16 does not have
        self.uint = uint
        self.exp_mask = uint(((1 << (bias.bit_length() + 1)) - 1) << mant_bits)
        self.lo = uint((bias - 14) << mant_bits)   # 2**-14: fp16's smallest normal
        self.hi = uint((bias + 15) << mant_bits)   # 2**15: fp16's largest exponent
        self.offset = uint((drop << mant_bits) | (1 << (mant_bits - 1)))  # * 1.5 * 2**drop
        self.up = 2.0 ** up_exp                    # 65504 * up is finite, 65536 * up not
        self.down = 2.0 ** -up_exp


_TRICKS = {np.dtype(_f32): _Trick(np.uint32, 23, 127, 112),
           np.dtype(_f64): _Trick(np.uint64, 52, 1023, 1008)}


def fp16_round_into(x, out, work):
    """Writes ``x`` rounded to fp16 precision into ``out`` (see the module docstring).

    Args:
        x: a float32 or float64 array.
        out: an array of ``x``'s dtype and shape (may be ``x`` itself).
        work: an unsigned-int array of the same item size and shape (scratch).

    Returns:
        ``out``.
    """
    t = _TRICKS[x.dtype]
    with np.errstate(over="ignore", invalid="ignore"):  # inf results; signalling NaNs
        np.bitwise_and(x.view(t.uint), t.exp_mask, out=work)
        np.clip(work, t.lo, t.hi, out=work)
        np.add(work, t.offset, out=work)
        magic = work.view(x.dtype)
        np.add(x, magic, out=out)
        np.subtract(out, magic, out=out)
        np.multiply(out, t.up, out=out)
        np.multiply(out, t.down, out=out)
    return out


def fp16_round(x):
    """Rounds a float array to the nearest fp16 value, returned as float32.

    Round to nearest even, with fp16's subnormals (multiples of 2**-24), overflow to
    +-inf and NaN kept. Integer and float16 inputs are converted exactly first.
    """
    a = np.asarray(x)
    if a.dtype != _f32 and a.dtype != _f64:
        a = a.astype(_f64)
    t = _TRICKS[a.dtype]
    out = fp16_round_into(a, np.empty(a.shape, a.dtype), np.empty(a.shape, t.uint))
    return out if out.dtype == _f32 else out.astype(_f32)


class _Rounder:
    """Rounds arrays of one argument position into buffers reused across runs."""

    __slots__ = ("out", "work")

    def __init__(self):
        self.out = None
        self.work = None

    def __call__(self, x):
        if x.dtype != _f32:
            return fp16_round(x)
        out = self.out
        if out is None or out.shape != x.shape:
            out = self.out = np.empty(x.shape, _f32)
            self.work = np.empty(x.shape, np.uint32)
        return fp16_round_into(x, out, self.work)

    def in_place(self, y):
        """Rounds a kernel's fresh float32 output in place."""
        if y.dtype != _f32 or not y.flags.writeable:
            return fp16_round(y)
        work = self.work
        if work is None or work.shape != y.shape:
            work = self.work = np.empty(y.shape, np.uint32)
        return fp16_round_into(y, y, work)


def fp16_compute(kernel, float_args=None):
    """Wraps a float32 kernel so that it computes with fp16 inputs and outputs.

    Args:
        kernel: ``fn(*arrays) -> float32 array`` returning a fresh array.
        float_args: positions of the inputs to round (default: all); the others (shape
            vectors of the conv backprops) pass unchanged.
    """
    rounders = {}

    def run(*args):
        if float_args is None:
            idx = range(len(args))
        else:
            idx = float_args
        args = list(args)
        for i in idx:
            r = rounders.get(i)
            if r is None:
                r = rounders[i] = _Rounder()
            args[i] = r(args[i])
        with np.errstate(over="ignore", invalid="ignore"):
            out = np.asarray(kernel(*args))
        r = rounders.get("out")
        if r is None:
            r = rounders["out"] = _Rounder()
        return r.in_place(out)
    return run


def float16_via_fp32(kernel):
    """Runs a kernel on float16 arrays with the float32 BLAS (fp32 accumulation) and
    returns float16, the dtype of the graph tensor."""
    def run(*args):
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            return kernel(*[a.astype(_f32) if a.dtype == _f16 else a for a in args]) \
                .astype(_f16)
    return run


def adapt_kernel(op, kernel, precision_mode):
    """The precision rewrite for one op's kernel (applied at plan compilation)."""
    if op.type not in FP16_OP_TYPES or not op.outputs:
        return kernel
    dt = op.outputs[0].dtype
    if dt.name == "float16":
        return float16_via_fp32(kernel)
    if dt.name == "float32" and precision_mode in FP16_MODES:
        floats = [i for i, t in enumerate(op.inputs) if t.dtype.is_floating]
        return fp16_compute(kernel, floats)
    return kernel


def computes_in_fp16(op, precision_mode):
    """Whether ``op`` runs with fp16 semantics under ``precision_mode`` (for docs/tests)."""
    if op.type not in FP16_OP_TYPES or not op.outputs:
        return False
    dt = op.outputs[0].dtype.name
    return dt == "float16" or (dt == "float32" and precision_mode in FP16_MODES)
