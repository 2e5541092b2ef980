"""fp16 compute semantics and the ``precision_mode`` kernel rewrite.

Real fp16 hardware (GPU tensor cores, the Ascend cube unit) rounds the inputs of a matrix
product to fp16, accumulates in fp32 and rounds the output to fp16. numpy's own float16
matmul does not use BLAS and is orders of magnitude slower, so we compute the same numbers
as: round inputs to fp16, multiply with the float32 BLAS, round the result to fp16::

    fp16_round(matmul(fp16_round(a), fp16_round(b)))      # values exactly fp16-representable

Overflow (|x| > 65504 after rounding) gives inf and underflow (below 2**-24) gives 0,
exactly where fp16 hardware does.

``precision_mode`` (from the session config's ``NpuOptimizer`` entry, or
``NPURunConfig(precision_mode=...)``) is applied by one rewrite when a plan is compiled:

=====================  ==========================================================
mode                   ops computed in fp16
=====================  ==========================================================
force_fp32             none
must_keep_origin_dtype none (ops run in the dtype of their inputs)
allow_fp32_to_fp16     matmul, batch matmul, conv2d and its backprops (the cube ops)
allow_mix_precision    matmul, batch matmul, conv2d and its backprops (the cube ops)
=====================  ==========================================================

Everything else — reductions, softmax, losses, variables and the optimizer — stays fp32;
master weights are never rounded (the rewrite touches kernels, not variables).
"""
import numpy as np

FP16_OP_TYPES = frozenset({"MatMul", "BatchMatMul", "Conv2D", "Conv2DBackpropInput",
                           "Conv2DBackpropFilter"})
FP16_MODES = frozenset({"allow_fp32_to_fp16", "allow_mix_precision", "force_fp16"})
PRECISION_MODES = ("force_fp32", "allow_fp32_to_fp16", "allow_mix_precision",
                   "must_keep_origin_dtype", "force_fp16")

_f16 = np.float16
_f32 = np.float32


def fp16_round(x):
    """Rounds a float array to the nearest fp16 value, returned as float32."""
    with np.errstate(over="ignore", under="ignore"):
        return np.asarray(x).astype(_f16).astype(_f32)


def fp16_compute(kernel):
    """Wraps a float32 kernel so that it computes with fp16 inputs and outputs."""
    def run(*args):
        with np.errstate(over="ignore", under="ignore"):
            out = kernel(*[a.astype(_f16).astype(_f32) for a in args])
            return out.astype(_f16).astype(_f32)
    return run


def float16_via_fp32(kernel):
    """Runs a kernel on float16 arrays with the float32 BLAS (fp32 accumulation) and
    returns float16, the dtype of the graph tensor."""
    def run(*args):
        with np.errstate(over="ignore", under="ignore"):
            return kernel(*[a.astype(_f32) for a in args]).astype(_f16)
    return run


def adapt_kernel(op, kernel, precision_mode):
    """The precision rewrite for one op's kernel (applied at plan compilation)."""
    if op.type not in FP16_OP_TYPES or not op.outputs:
        return kernel
    dt = op.outputs[0].dtype
    if dt.name == "float16":
        return float16_via_fp32(kernel)
    if dt.name == "float32" and precision_mode in FP16_MODES:
        return fp16_compute(kernel)
    return kernel


def computes_in_fp16(op, precision_mode):
    """Whether ``op`` runs with fp16 semantics under ``precision_mode`` (for docs/tests)."""
    if op.type not in FP16_OP_TYPES or not op.outputs:
        return False
    dt = op.outputs[0].dtype.name
    return dt == "float16" or (dt == "float32" and precision_mode in FP16_MODES)
