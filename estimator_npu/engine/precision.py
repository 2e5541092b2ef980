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
and subtracts a magic number instead, whose float32 spacing equals the fp16 spacing at
``x``, so the float32 adder does the round-to-nearest-even::

    p = 2**exponent(x), clipped to [2**-14, 2**15]   # bit mask; fp16 subnormals share
                                                    # the spacing 2**-24 of 2**-14
    M = 1.5 * 2**13 * p                              # float32 ulp at M == fp16 ulp at x
    r = (x + M) - M                                  # x rounded to fp16 precision, RNE
    r = (r * 2**112) * 2**-112                       # |r| >= 2**16 -> inf; others exact

five to seven whole-array numpy calls with ``out=`` and no allocation (the overflow step
only when some ``|x| >= 2**15``), chunk by chunk on large arrays so that they stay in
cache: about 1-2 ns per element. It is exact for every float32 input, subnormals, infs
and NaNs included (``bench/mixed_precision.py --exhaustive`` checks all 2**32 bit
patterns), except that a zero result is +0 where fp16 would give -0 (they compare equal).

``PlanMemo`` (passed by the plan compiler) avoids repeated work within one plan: a tensor
read by several fp16 ops is rounded once, and inputs that already hold fp16 values are not
rounded again.

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

(``tf.layers.dense`` is a matmul, so it is included.) ``Conv2DBackpropFilter`` (the conv
weight gradient) takes fp16 inputs but writes its float32 accumulator unrounded, as the
Ascend cube op does (its output dtype is float32 only): a weight gradient sums over every
batch position and would pass 65504 where the activations do not. Everything else — reductions,
softmax, losses, variables and the optimizer — stays fp32; master weights are never
rounded (the rewrite touches kernels, not variables). Cube ops on float16 tensors (user
casts, as in seed 003) run in every mode with the float32 BLAS and one rounding of the
result (``float16_via_fp32``); so do cube ops on bfloat16 tensors (with the optional
``ml_dtypes``).

Overflow mode (``set_overflow_mode``, the adapter's ``npu_plugin.set_device_sat_mode``, or
the environment variable ``INF_NAN_MODE_ENABLE=0|1`` at import):

* ``"inf_nan"`` (the default; GPUs and Atlas A2 NPUs): an fp16 result past 65504 is
  +-inf, as IEEE 754 says, and the loss-scale check sees the inf in the gradients.
* ``"saturation"`` (Atlas training NPUs, the Ascend 910 the ModelZoo scripts were written
  for, where it is the only mode): an overflowing fp16 input or result of the rewritten
  ops is clamped to +-65504 and the session's ``FloatStatus`` (the device's overflow
  register) is set. The loss-scale ops (``UnscaleGradients``, ``AllFinite``) read and
  clear it, as ``npu_get_float_status`` / ``npu_clear_float_status`` do, so a step that
  overflowed is still skipped although its gradients are finite. A script without loss
  scaling whose gradients pass 65504 trains on clamped values instead of turning NaN.
"""
import os

import numpy as np

FP16_OP_TYPES = frozenset({"MatMul", "BatchMatMul", "Conv2D", "Conv2DBackpropInput",
                           "Conv2DBackpropFilter"})
FP16_MODES = frozenset({"allow_fp32_to_fp16", "allow_mix_precision", "force_fp16"})
# Cube ops whose output stays float32 (fp16 inputs, fp32 accumulator written unrounded).
FP32_OUTPUT_OP_TYPES = frozenset({"Conv2DBackpropFilter"})
PRECISION_MODES = ("force_fp32", "allow_fp32_to_fp16", "allow_mix_precision",
                   "must_keep_origin_dtype", "force_fp16")

OVERFLOW_MODES = ("inf_nan", "saturation")
F16_MAX = 65504.0
_mode = ["saturation" if os.environ.get("INF_NAN_MODE_ENABLE", "").strip() == "0"
         else "inf_nan"]


def set_overflow_mode(mode):
    """Sets the process-wide fp16 overflow mode: ``"inf_nan"`` or ``"saturation"``."""
    if mode not in OVERFLOW_MODES:
        raise ValueError(f"overflow mode must be one of {OVERFLOW_MODES}, got {mode!r}")
    _mode[0] = mode


def overflow_mode():
    """The process-wide fp16 overflow mode (see the module docstring)."""
    return _mode[0]


class FloatStatus:
    """A session's overflow register: set when a saturating fp16 op clamps a value."""

    __slots__ = ("overflow",)

    def __init__(self):
        self.overflow = False

    def saturating(self):
        return _mode[0] == "saturation"

    def read_and_clear(self):
        """Whether an fp16 op overflowed since the last read (then clears the flag)."""
        hit = self.overflow
        self.overflow = False
        return hit


_f16 = np.float16
_f32 = np.float32
_f64 = np.float64
# Cube ops on tensors of these dtypes run with the float32 BLAS and one rounding of the
# result (numpy has no BLAS for them; bfloat16 comes from the optional ml_dtypes).
_LOW_PRECISION = ("float16", "bfloat16")
_FLOAT_NAMES = ("float16", "bfloat16", "float32", "float64")


class _Trick:
    """The constants of the magic-number rounding for one float dtype."""

    __slots__ = ("uint", "exp_mask", "lo", "hi", "magic", "up", "down")

    def __init__(self, dtype, uint, exp_mask, mant_bits, up_exp):
        self.uint = uint
        self.exp_mask = uint(exp_mask)
        self.lo = dtype(2.0 ** -14)                      # fp16's smallest normal
        self.hi = dtype(2.0 ** 15)                       # fp16's largest binade
        self.magic = dtype(1.5 * 2.0 ** (mant_bits - 10))  # ulp(magic * 2**e) = 2**(e-10)
        self.up = dtype(2.0 ** up_exp)                   # 65504 * up is finite, 65536 * up
        self.down = dtype(2.0 ** -up_exp)                # is not


_TRICKS = {np.dtype(_f32): _Trick(_f32, np.uint32, 0x7F800000, 23, 112),
           np.dtype(_f64): _Trick(_f64, np.uint64, 0x7FF0000000000000, 52, 1008)}

# Arrays up to this size are rounded in one pass per step; larger ones chunk by chunk, so
# the three arrays a step touches stay in cache (2x faster for a 784x512 matrix).
CHUNK = 1 << 15
_WHOLE = 1 << 17


def work_size(n):
    """Elements of scratch ``fp16_round_into`` needs for an array of ``n`` elements."""
    return n if n <= _WHOLE else CHUNK


def scratch_for(n, work, uint=np.uint32):
    """``work`` as a 1-D array if it is large enough for ``n`` elements, else a new one."""
    need = work_size(n)
    if work is None or work.size < need or work.dtype != uint:
        return np.empty(need, uint)
    return work.reshape(-1)


def _round_flat(x, out, work, t, status=None):
    # x, out: 1-D of one float dtype; work: 1-D of the matching uint dtype, long enough.
    w = work[:x.size]
    m = w.view(x.dtype)
    np.bitwise_and(x.view(t.uint), t.exp_mask, w)       # 2**exponent(x) (0 or inf too)
    if m.max() < t.hi:                                  # the common case: no overflow
        np.fmax(m, t.lo, m)                             # (no NaN in m: fmax is faster)
        np.multiply(m, t.magic, m)                      # M, exactly
        np.add(x, m, out)
        np.subtract(out, m, out)                        # x rounded to fp16 precision
        return
    with np.errstate(over="ignore", invalid="ignore"):  # inf results; signalling NaNs
        np.clip(m, t.lo, t.hi, m)
        np.multiply(m, t.magic, m)
        np.add(x, m, out)
        np.subtract(out, m, out)
        np.multiply(out, t.up, out)                     # |r| >= 2**16 -> inf ...
        np.multiply(out, t.down, out)                   # ... others unchanged
        if status is not None and status.saturating() and (np.abs(out) > F16_MAX).any():
            status.overflow = True                      # clamp (NaN stays NaN)
            np.clip(out, -F16_MAX, F16_MAX, out)


def fp16_round_into(x, out, work=None, status=None):
    """Writes ``x`` rounded to fp16 precision into ``out`` (see the module docstring).

    Args:
        x: a float32 or float64 array.
        out: a C-contiguous array of ``x``'s dtype and shape (may be ``x`` itself).
        work: optional scratch: an array of the unsigned int of ``x``'s item size with at
            least ``work_size(x.size)`` elements (allocated when None or smaller).
        status: optional ``FloatStatus``; in saturation mode overflowing values are
            clamped to +-65504 and the status is set (see the module docstring).

    Returns:
        ``out``.
    """
    t = _TRICKS[x.dtype]
    n = x.size
    work = scratch_for(n, work, t.uint)
    if not out.flags.c_contiguous:
        raise ValueError("fp16_round_into: out must be C-contiguous")
    xf = x.reshape(-1)                                   # a copy only if x is strided
    of = out.reshape(-1)
    if n <= _WHOLE:
        _round_flat(xf, of, work, t, status)
    else:
        for s in range(0, n, CHUNK):
            _round_flat(xf[s:s + CHUNK], of[s:s + CHUNK], work, t, status)
    return out


def fp16_round(x, status=None):
    """Rounds a float array to the nearest fp16 value, returned as float32.

    Round to nearest even, with fp16's subnormals (multiples of 2**-24), overflow to
    +-inf and NaN kept. Integer and float16 inputs are converted exactly first.
    """
    a = np.asarray(x)
    if a.dtype != _f32 and a.dtype != _f64:
        a = a.astype(_f64)
    out = fp16_round_into(a, np.empty(a.shape, a.dtype), status=status)
    return out if out.dtype == _f32 else out.astype(_f32)


# Bytes of rounded copies all live rounders keep between runs. An unrolled RNN has
# thousands of fp16 kernels: each keeping its input's copy, a 784-step, 9-layer network
# evaluated on 5000 sequences held 5.6 GB. Beyond the budget a rounder rounds into a fresh
# array that dies with the run (a later consumer of it then rounds again).
KEEP_BUDGET_BYTES = 512 << 20
_kept = [0]


class _Rounder:
    """Rounds the arrays of one argument position into a buffer reused across runs."""

    __slots__ = ("out", "work", "status")

    def __init__(self, status=None):
        self.out = None
        self.work = None
        self.status = status  # the session's FloatStatus (saturation mode), or None

    def __del__(self):
        self._drop()

    def _drop(self):
        for b in (self.out, self.work):
            if b is not None:
                _kept[0] -= b.nbytes
        self.out = self.work = None

    def _work(self, n):
        """Scratch for ``n`` elements, kept for the next run while the budget allows."""
        work = self.work
        if work is not None and work.size >= work_size(n):
            return work.reshape(-1)
        if work is not None:
            _kept[0] -= work.nbytes
            self.work = None
        work = scratch_for(n, None)
        if _kept[0] + work.nbytes <= KEEP_BUDGET_BYTES:
            self.work = work
            _kept[0] += work.nbytes
        return work

    def __call__(self, x):
        if x.dtype != _f32:
            return fp16_round(x, self.status)
        out = self.out
        if out is None or out.shape != x.shape:
            self._drop()
            out = np.empty(x.shape, _f32)
            if _kept[0] + out.nbytes <= KEEP_BUDGET_BYTES:
                self.out = out
                _kept[0] += out.nbytes
        return fp16_round_into(x, out, self._work(x.size), self.status)

    def in_place(self, y):
        """Rounds a kernel's fresh float32 output in place."""
        if y.dtype != _f32 or not y.flags.writeable or not y.flags.c_contiguous:
            return fp16_round(y, self.status)
        return fp16_round_into(y, y, self._work(y.size), self.status)


def _fresh_rounder(rounders, key, status=None):
    r = rounders.get(key)
    if r is None:
        r = rounders[key] = _Rounder(status)
    return r


def fp16_compute(kernel, float_args=None, sources=None, status=None, round_output=True,
                 keep=None):
    """Wraps a float32 kernel so that it computes with fp16 inputs and outputs.

    Args:
        kernel: ``fn(*arrays) -> float32 array`` returning a fresh array.
        float_args: positions of the inputs to round (default: all); the others (shape
            vectors of the conv backprops) pass unchanged.
        sources: optional ``{position: callable(array) -> rounded array}`` overriding how
            an input is rounded (``PlanMemo`` shares one rounding between kernels and skips
            inputs that are fp16 values already).
        status: the session's ``FloatStatus``: in saturation mode overflowing inputs and
            outputs are clamped to +-65504 and it is set.
        round_output: False for the ops of ``FP32_OUTPUT_OP_TYPES`` (the float32 result
            is returned as the kernel computed it).
        keep: optional list (the plan's ``PlanMemo.rounders``) the rounders are added to.
    """
    rounders = {}
    out_rounder = _Rounder(status)
    keep = [] if keep is None else keep
    keep.append(out_rounder)
    fixed = dict(sources or {})

    def run(*args):
        idx = range(len(args)) if float_args is None else float_args
        args = list(args)
        for i in idx:
            src = fixed.get(i)
            if src is None:
                src = fixed[i] = _fresh_rounder(rounders, i, status)
                keep.append(src)
            args[i] = src(args[i])
        # (Plans run with numpy's floating-point errors ignored: inf inputs may make NaN.)
        if not round_output:
            return kernel(*args)
        return out_rounder.in_place(np.asarray(kernel(*args)))
    return run


# Ops whose float32 output holds fp16 values when their data input (position 0, or both
# inputs of a Mul by a 0/1 mask) does: they only move, select or negate values.
_PRESERVING = frozenset({"Identity", "Reshape", "Transpose", "Squeeze", "ExpandDims",
                         "Relu", "Neg", "MaxPool", "StopGradient", "Snapshot"})


class PlanMemo:
    """Per-plan state of the precision rewrite (one per compiled plan, in op order).

    Within one plan the kernels run in the order they are adapted, so a tensor consumed by
    several fp16 ops (a weight read by the forward and the backward matmul, an activation
    read by the next layer and by the weight gradient) is rounded once, by its first
    consumer, and later consumers read that buffer. An input that already holds fp16
    values (the output of an fp16 op, through a ReLU, a reshape or a ReLU-gradient mask)
    is not rounded at all. ``fed`` are the tensors a plan takes from its feeds: they are
    never assumed to hold fp16 values.
    """

    def __init__(self, fed=(), status=None):
        self.fed = frozenset(fed)
        self.status = status
        self._rounded = {}   # tensor -> the _Rounder that rounds it first in this plan
        self._exact = {}
        self.rounders = []   # every _Rounder of the plan's kernels (see ``release``)
        self.releasers = []  # the kernels' own ``release`` (plan.choose_kernels)

    def release(self):
        """Drops the rounded copies the plan's rounders keep between runs (and their
        share of ``KEEP_BUDGET_BYTES``) and what its kernels keep: a session that
        switches to another plan calls it, so plans run in turn do not each keep theirs."""
        for r in self.rounders:
            r._drop()
        for release in self.releasers:
            release()

    def holds_fp16(self, tensor, precision_mode, depth=0):
        """Whether ``tensor``'s values are fp16 values whenever this plan runs."""
        key = (tensor, precision_mode)
        hit = self._exact.get(key)
        if hit is not None:
            return hit
        op = tensor.op
        result = False
        if tensor in self.fed or depth > 16 or tensor.dtype.name != "float32":
            result = False
        elif op.type in FP16_OP_TYPES:
            result = op.type not in FP32_OUTPUT_OP_TYPES and \
                computes_in_fp16(op, precision_mode)
        elif op.type in _PRESERVING and op.inputs:
            result = self.holds_fp16(op.inputs[0], precision_mode, depth + 1)
        elif op.type == "Mul" and len(op.inputs) == 2:
            a, b = op.inputs
            result = (self._is_mask(b) and self.holds_fp16(a, precision_mode, depth + 1)) \
                or (self._is_mask(a) and self.holds_fp16(b, precision_mode, depth + 1))
        self._exact[key] = result
        return result

    def _is_mask(self, tensor):
        op = tensor.op
        return tensor not in self.fed and op.type == "Cast" and \
            op.inputs[0].dtype.name == "bool" and op.inputs[0] not in self.fed

    def sources(self, op, float_args, precision_mode):
        """``{position: callable}`` for ``fp16_compute``: shared or skipped roundings."""
        out = {}
        for i in float_args:
            t = op.inputs[i]
            if self.holds_fp16(t, precision_mode):
                out[i] = _identity
                continue
            first = self._rounded.get(t)
            if first is None:
                first = self._rounded[t] = _Rounder(self.status)
                self.rounders.append(first)
                out[i] = first
            else:
                out[i] = _Reuse(first)
        return out


def _identity(x):
    return x


class _Reuse:
    """A later consumer's view of the buffer an earlier kernel of the plan rounded into."""

    __slots__ = ("first",)

    def __init__(self, first):
        self.first = first

    def __call__(self, x):
        out = self.first.out
        if out is None or out.shape != x.shape or x.dtype != _f32:  # over the budget
            return self.first(x)
        return out


def float16_via_fp32(kernel, dtype=_f16):
    """Runs a kernel on float16 (or bfloat16) arrays with the float32 BLAS (fp32
    accumulation) and returns ``dtype``, the dtype of the graph tensor."""
    def run(*args):
        out = kernel(*[a.astype(_f32) if a.dtype == dtype else a for a in args])
        return np.asarray(out).astype(dtype)
    return run


def adapt_kernel(op, kernel, precision_mode, memo=None, status=None):
    """The precision rewrite for one op's kernel (applied at plan compilation).

    Args:
        op, kernel: the op and the kernel its registry entry made.
        precision_mode: the session's mode (``None``: the graph's dtypes).
        memo: the plan's ``PlanMemo`` when the plan compiler passes one (ops adapted in
            plan order); without it every fp16 op rounds each of its inputs itself.
        status: the session's ``FloatStatus`` (the overflow register of saturation mode).
    """
    if op.type not in FP16_OP_TYPES or not op.outputs:
        return kernel
    dt = op.outputs[0].dtype
    if dt.name in _LOW_PRECISION:
        return float16_via_fp32(kernel, dt.np)
    if dt.name == "float32" and precision_mode in FP16_MODES:
        floats = [i for i, t in enumerate(op.inputs) if t.dtype.name in _FLOAT_NAMES]
        sources = None if memo is None else memo.sources(op, floats, precision_mode)
        return fp16_compute(kernel, floats, sources, status,
                            round_output=op.type not in FP32_OUTPUT_OP_TYPES,
                            keep=None if memo is None else memo.rounders)
    return kernel


def computes_in_fp16(op, precision_mode):
    """Whether ``op`` runs with fp16 semantics under ``precision_mode`` (for docs/tests)."""
    if op.type not in FP16_OP_TYPES or not op.outputs:
        return False
    dt = op.outputs[0].dtype.name
    return dt == "float16" or (dt == "float32" and precision_mode in FP16_MODES)


def computes_in_bf16(op):
    """Whether ``op`` is a cube op on bfloat16 tensors (float32 BLAS, bfloat16 result)."""
    return op.type in FP16_OP_TYPES and bool(op.outputs) \
        and op.outputs[0].dtype.name == "bfloat16"
