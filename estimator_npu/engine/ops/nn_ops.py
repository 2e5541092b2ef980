"""Activations, softmax and losses (``tf.nn.*``), with fused kernels where TF fuses them."""
import math

import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import _fast, array_ops, math_ops
from estimator_npu.engine.ops.core import convert_to_tensor, make_op, make_tensor
from estimator_npu.engine.registry import (NOT_DIFFERENTIABLE, Inline, OpFamily, simple,
                                          with_attrs)
from estimator_npu.engine.shape import TensorShape

OPS = OpFamily(__name__)  # this family's op definitions (data)


def _float_input(x, op_name):
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise TypeError(f"{op_name}: expected a floating-point tensor, got {x.dtype.name} "
                        f"({x.name})")
    return x


def _unary(op_type, x, name, **attrs):
    x = _float_input(x, op_type)
    return make_tensor(op_type, [x], x.dtype, x.shape, attrs, name=name)


# ------------------------------------------------------------------ activations
def _real_unary(op_type, x, name):
    """Relu / Relu6 also take integer tensors, as TF's kernels do."""
    x = convert_to_tensor(x)
    if x.dtype.is_integer:
        return make_tensor(op_type, [x], x.dtype, x.shape, {}, name=name)
    return _unary(op_type, x, name)


def relu(features, name=None):
    return _real_unary("Relu", features, name)


def relu6(features, name=None):
    return _real_unary("Relu6", features, name)


def leaky_relu(features, alpha=0.2, name=None):
    return _unary("LeakyRelu", features, name, alpha=float(alpha))


def elu(features, name=None):
    return _unary("Elu", features, name)


def softplus(features, name=None):
    return _unary("Softplus", features, name)


def gelu(features, approximate=False, name=None):
    return _unary("Gelu", features, name, approximate=bool(approximate))


_ZEROS = _fast.ZEROS_0D


def _relu(x):
    z = _ZEROS.get(x.dtype)
    return np.maximum(x, 0, dtype=x.dtype) if z is None else np.maximum(x, z)


# float32/64: the plan line is ``np.maximum(x, zero)`` itself for small static shapes (no
# Python frame), else ``_fast.relu`` (a row of zeros: 3-8x faster from ~4k elements on)
_RELU_INLINE = {dt: Inline("{maximum}({0}, {zero})", maximum=np.maximum, zero=z)
                for dt, z in _ZEROS.items()}
_RELU_ROWS = Inline("{relu}({0})", relu=_fast.relu)


def _relu_kernel(op, ctx):
    small, shape = _RELU_INLINE.get(np.dtype(op.outputs[0].dtype.np)), op.outputs[0].shape
    if small is None:
        return _relu
    static = shape.ndims is not None and None not in shape.as_list()
    return small if static and np.prod(shape.as_list()) < 4096 else _RELU_ROWS


def _gelu(x, approximate):
    if approximate:
        c = math.sqrt(2.0 / math.pi)
        return (0.5 * x * (1.0 + np.tanh(c * (x + 0.044715 * x * x * x)))).astype(x.dtype)
    from estimator_npu.engine.ops._special import erf
    return (0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))).astype(x.dtype)


def _gelu_grad_kernel(dy, x, approximate):
    if approximate:
        c = math.sqrt(2.0 / math.pi)
        u = c * (x + 0.044715 * x * x * x)
        t = np.tanh(u)
        d = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x)
    else:
        from estimator_npu.engine.ops._special import erf
        d = 0.5 * (1.0 + erf(x / math.sqrt(2.0))) + x * np.exp(-0.5 * x * x) / math.sqrt(
            2 * math.pi)
    return (dy * d).astype(dy.dtype)


def _softplus(x):
    return (np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))).astype(x.dtype)


OPS.define("Relu", kernel=_relu_kernel,
           grad=lambda op, dy: [dy * math_ops.cast(math_ops.greater(op.outputs[0], 0.0),
                                                   dy.dtype)])
OPS.define("Relu6", kernel=simple(lambda x: np.clip(x, 0, 6).astype(x.dtype)),
           grad=lambda op, dy: [dy * math_ops.cast(math_ops.logical_and(
               math_ops.greater(op.inputs[0], 0.0), math_ops.less(op.inputs[0], 6.0)),
               dy.dtype)])
OPS.define("LeakyRelu",
           kernel=lambda op, ctx: (lambda x, _a=op.attrs["alpha"]:
                                   np.where(x > 0, x, x * _a).astype(x.dtype)),
           grad=lambda op, dy: [array_ops.where(math_ops.greater(op.inputs[0], 0.0), dy,
                                                dy * op.attrs["alpha"])])
OPS.define("Elu", kernel=simple(lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0)))
                                .astype(x.dtype)),
           grad=lambda op, dy: [array_ops.where(math_ops.greater(op.inputs[0], 0.0), dy,
                                                dy * (op.outputs[0] + 1.0))])
OPS.define("Softplus", kernel=simple(_softplus),
           grad=lambda op, dy: [dy * math_ops.sigmoid(op.inputs[0])])
OPS.define("Gelu", kernel=with_attrs(_gelu, "approximate"),
           grad=lambda op, dy: [make_tensor("GeluGrad", [dy, op.inputs[0]], dy.dtype,
                                            dy.shape, {"approximate": op.attrs["approximate"]})])


def _gelu_grad_grad(op, g):
    # d/d(dy) of (dy * gelu'(x)) = gelu'(x) * g;  d/dx needs gelu''(x): numeric-free form.
    dy, x = op.inputs
    approx = op.attrs["approximate"]
    gp = make_tensor("GeluGrad", [array_ops.ones_like(x), x], x.dtype, x.shape,
                     {"approximate": approx})
    if approx:
        c = math.sqrt(2.0 / math.pi)
        u = c * (x + 0.044715 * x * x * x)
        t = math_ops.tanh(u)
        du = c * (1.0 + 3 * 0.044715 * x * x)
        sech2 = 1.0 - t * t
        d2 = sech2 * du + 0.5 * x * (-2.0 * t * sech2 * du * du +
                                     sech2 * c * 6 * 0.044715 * x)
    else:
        d2 = (2.0 - x * x) * math_ops.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
    return [g * gp, g * dy * d2]


OPS.define("GeluGrad", kernel=with_attrs(_gelu_grad_kernel, "approximate"), grad=_gelu_grad_grad)


# ------------------------------------------------------------------ softmax family
def _axis_attr(x, axis, op_name):
    nd = x.shape.ndims
    axis = -1 if axis is None else int(axis)
    if nd is not None and not -nd <= axis < nd:
        raise ValueError(f"{op_name}: axis {axis} out of range for shape {x.shape}")
    return axis


def _softmax(x, axis):
    e, s = _fast.shifted_exp(x, axis)
    e /= s
    return e


def _log_softmax(x, axis):
    m = np.maximum.reduce(x, axis=axis, keepdims=True)
    s = np.subtract(x, m)
    s -= np.log(np.add.reduce(np.exp(s), axis=axis, keepdims=True))
    return s


def softmax(logits, axis=None, name=None, dim=None):
    x = _float_input(logits, "Softmax")
    return make_tensor("Softmax", [x], x.dtype, x.shape,
                       {"axis": _axis_attr(x, axis if axis is not None else dim, "Softmax")},
                       name=name)


def log_softmax(logits, axis=None, name=None, dim=None):
    x = _float_input(logits, "LogSoftmax")
    return make_tensor("LogSoftmax", [x], x.dtype, x.shape,
                       {"axis": _axis_attr(x, axis if axis is not None else dim, "LogSoftmax")},
                       name=name)


def _softmax_grad(op, dy):
    y = op.outputs[0]
    a = op.attrs["axis"]
    return [y * (dy - math_ops.reduce_sum(dy * y, axis=a, keepdims=True))]


def _log_softmax_grad(op, dy):
    a = op.attrs["axis"]
    return [dy - math_ops.exp(op.outputs[0]) * math_ops.reduce_sum(dy, axis=a, keepdims=True)]


OPS.define("Softmax", kernel=with_attrs(_softmax, "axis"), grad=_softmax_grad)
OPS.define("LogSoftmax", kernel=with_attrs(_log_softmax, "axis"), grad=_log_softmax_grad)


def _xent_shapes(labels, logits, op_name):
    if not labels.shape.is_compatible_with(logits.shape):
        raise ValueError(f"{op_name}: labels shape {labels.shape} and logits shape "
                         f"{logits.shape} must be the same")
    return TensorShape(logits.shape.values[:-1]) if logits.shape.ndims else TensorShape(None)


def softmax_cross_entropy_with_logits_v2(labels=None, logits=None, axis=-1, name=None, dim=None):
    """Per-example cross entropy ``-sum(labels * log_softmax(logits))`` over the last axis;
    fused: one kernel computes the loss and the backprop ``softmax - labels``."""
    if labels is None or logits is None:
        raise ValueError("softmax_cross_entropy_with_logits requires labels= and logits=")
    logits = _float_input(logits, "SoftmaxCrossEntropyWithLogits")
    labels = math_ops.cast(convert_to_tensor(labels), logits.dtype)
    axis = dim if axis in (None, -1) and dim is not None else axis
    rank = logits.shape.ndims
    if axis not in (None, -1) and rank is not None and axis % rank != rank - 1:
        perm = [d for d in range(rank) if d != axis % rank] + [axis % rank]
        logits, labels = array_ops.transpose(logits, perm), array_ops.transpose(labels, perm)
    if labels.shape.ndims not in (None, logits.shape.ndims) and logits.shape.ndims is not None \
            and labels.shape[-1:].is_compatible_with(logits.shape[-1:]):  # TF flattens each
        labels = array_ops.reshape(labels, array_ops.shape(logits))  # (labels=[y]) as TF
    shape = _xent_shapes(labels, logits, "SoftmaxCrossEntropyWithLogits")
    op = make_op("SoftmaxCrossEntropyWithLogits", [logits, labels],
                 [(logits.dtype, shape), (logits.dtype, logits.shape)], name=name)
    return op.outputs[0]


# TF 2.15's compat.v1 cross entropies take (labels, logits) positionally (TF1's _sentinel
# is gone); TF 0.x's (logits, labels) order silently means the other thing there too.
def softmax_cross_entropy_with_logits(labels=None, logits=None, dim=-1, name=None, axis=None):
    """TF1's (deprecated) version: gradients do not flow into ``labels``."""
    from estimator_npu.engine.ops.core import stop_gradient
    return softmax_cross_entropy_with_logits_v2(labels=stop_gradient(labels), logits=logits,
                                                axis=dim if axis is None else axis, name=name)


def _xent_kernel(logits, labels):
    # One pass for the loss and the backprop: with e = exp(x - shift) and row sums s,
    # log_softmax = x - shift - log(s), softmax = e / s.
    e, s, z = _fast.shifted_exp(logits, -1, keep_shifted=True)
    z -= np.log(s)                                   # z is now log_softmax(logits)
    loss = _fast.sum_last(labels * z)
    np.negative(loss, out=loss)
    e /= s
    back = e * _fast.sum_last(labels, True) if labels.ndim else e * labels
    back -= labels
    return loss, back


def _xent_grad(op, dloss, dback):
    logits, labels = op.inputs
    g_logits = g_labels = None
    if dloss is not None:
        d = array_ops.expand_dims(dloss, -1)
        g_logits, g_labels = d * op.outputs[1], d * negative_log_softmax(logits)
    if dback is not None:  # second derivatives flow through output 1,
        s = softmax(logits)  # softmax(logits) * sum(labels) - labels
        gs = math_ops.reduce_sum(dback * s, axis=-1, keepdims=True)
        total = math_ops.reduce_sum(labels, axis=-1, keepdims=True)
        g_logits = _add_grad(g_logits, s * (dback - gs) * total)
        g_labels = _add_grad(g_labels, gs - dback)
    return [g_logits, g_labels]


def _add_grad(a, b):
    return b if a is None else a + b


def _sparse_xent_grad(op, dloss, dback):
    g = None if dloss is None else array_ops.expand_dims(dloss, -1) * op.outputs[1]
    if dback is not None:  # output 1 is softmax(logits) - one_hot(labels)
        s = softmax(op.inputs[0])
        g = _add_grad(g, s * (dback - math_ops.reduce_sum(dback * s, axis=-1, keepdims=True)))
    return [g, None]


def negative_log_softmax(x):
    return math_ops.negative(log_softmax(x))


def _xent_kernel_factory(op, ctx):
    """The fused kernel; for 2-D float logits with a known class count, a specialised
    version that sums rows with one BLAS product each and skips helper calls."""
    logits = op.inputs[0]
    n_cls = logits.shape.values[-1] if logits.shape.ndims == 2 else None
    if n_cls is None or not logits.dtype.is_floating or logits.dtype.name == "bfloat16":
        return _xent_kernel
    ones = np.ones(n_cls, logits.dtype.np)
    tiny = _fast._tiny(logits.dtype.np)
    mm, exp, log = np.matmul, np.exp, np.log

    def xent(x, labels):
        z = x - x.max()
        e = exp(z)
        s = mm(e, ones)
        if not s.min() > tiny:            # a row underflowed: use the exact per-row max
            return _xent_kernel(x, labels)
        lsum = mm(labels, ones)
        loss = log(s)
        loss *= lsum
        loss -= mm(labels * z, ones)       # -sum(labels * log_softmax)
        lsum /= s
        back = e * lsum[:, None]           # softmax * sum(labels)
        back -= labels
        return loss, back
    return xent


OPS.define("SoftmaxCrossEntropyWithLogits", kernel=_xent_kernel_factory, grad=_xent_grad)


def sparse_softmax_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Cross entropy with integer class ``labels`` (shape of ``logits`` minus the last dim)."""
    if labels is None or logits is None:
        raise ValueError("sparse_softmax_cross_entropy_with_logits requires labels= and "
                         "logits=")
    logits = _float_input(logits, "SparseSoftmaxCrossEntropyWithLogits")
    labels = convert_to_tensor(labels)
    if logits.shape.ndims is not None and labels.shape.ndims is not None and \
            not labels.shape.is_compatible_with(logits.shape[:-1]):
        raise ValueError(f"SparseSoftmaxCrossEntropyWithLogits: labels shape {labels.shape} "
                         f"must equal logits shape {logits.shape} without its last dim")
    if not labels.dtype.is_integer:
        raise TypeError(f"SparseSoftmaxCrossEntropyWithLogits: labels must be int32/int64, got "
                        f"{labels.dtype.name}")
    op = make_op("SparseSoftmaxCrossEntropyWithLogits", [logits, labels],
                 [(logits.dtype, labels.shape), (logits.dtype, logits.shape)], name=name)
    return op.outputs[0]


def _sparse_xent_kernel(logits, labels):
    lsm = _log_softmax(logits, -1)
    lab = np.asarray(labels)[..., None]
    n = logits.shape[-1]
    if lab.size and (lab.min() < 0 or lab.max() >= n):
        raise ValueError(f"Received a label value outside the valid range [0, {n})")
    loss = -np.take_along_axis(lsm, lab, axis=-1)[..., 0]
    back = np.exp(lsm)
    np.put_along_axis(back, lab, np.take_along_axis(back, lab, axis=-1) - 1, axis=-1)
    return loss, back


_UNSIGNED = {np.dtype(s): np.dtype(u) for s, u in
             (("int8", "uint8"), ("int16", "uint16"), ("int32", "uint32"), ("int64", "uint64"))}


def _sparse_xent_kernel_factory(op, ctx):
    """The general kernel; for 2-D float logits, one with the same arithmetic (the same
    results) that picks each row's label entry by flat indexing with a cached row base
    instead of ``take_along_axis`` / ``put_along_axis`` (a third of the kernel's time
    at batch 100 x 10 classes)."""
    logits = op.inputs[0]
    if logits.shape.ndims != 2 or not logits.dtype.is_floating or \
            logits.dtype.name == "bfloat16":
        return _sparse_xent_kernel
    bases = {}

    def sparse_xent(x, labels):
        rows, n = x.shape
        lab = np.asarray(labels).reshape(-1)
        if lab.size != rows:
            return _sparse_xent_kernel(x, labels)
        # one reduction: seen as unsigned, a negative label is larger than any class
        if rows and lab.view(_UNSIGNED.get(lab.dtype, lab.dtype)).max() >= n:
            raise ValueError(f"Received a label value outside the valid range [0, {n})")
        base = bases.get((rows, n))
        if base is None:
            base = bases[(rows, n)] = np.arange(rows, dtype=np.intp) * n
        idx = base + lab
        s = np.subtract(x, np.maximum.reduce(x, axis=-1, keepdims=True))
        e = np.exp(s)
        s -= np.log(np.add.reduce(e, axis=-1, keepdims=True))   # log_softmax
        loss = np.negative(s.reshape(-1)[idx])
        back = np.exp(s, out=e)
        back.reshape(-1)[idx] -= 1
        return loss, back
    return sparse_xent


OPS.define("SparseSoftmaxCrossEntropyWithLogits", kernel=_sparse_xent_kernel_factory,
           grad=_sparse_xent_grad)


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """``max(x, 0) - x * z + log(1 + exp(-|x|))``, the stable form TF uses."""
    if labels is None or logits is None:
        raise ValueError("sigmoid_cross_entropy_with_logits: both labels and logits must be "
                         "provided")
    logits = _float_input(logits, "SigmoidCrossEntropyWithLogits")
    labels = math_ops.cast(convert_to_tensor(labels), logits.dtype)
    if not labels.shape.is_compatible_with(logits.shape):
        raise ValueError(f"sigmoid_cross_entropy_with_logits: logits and labels must have the "
                         f"same shape ({logits.shape} vs {labels.shape})")
    x, z = logits, labels
    # TF selects with ``x >= 0`` (not relu/abs), so at x == 0 the gradient is 0.5 - z
    cond = math_ops.greater_equal(x, 0.0)
    relu_x = array_ops.where(cond, x, array_ops.zeros_like(x))
    neg_abs = array_ops.where(cond, math_ops.negative(x), x)
    return math_ops.add(relu_x - x * z, softplus(neg_abs), name=name)


def l2_loss(t, name=None):
    """``sum(t ** 2) / 2``."""
    x = _float_input(t, "L2Loss")
    return make_tensor("L2Loss", [x], x.dtype, [], name=name)


OPS.define("L2Loss", kernel=simple(lambda x: np.asarray(0.5 * np.vdot(x, x), dtype=x.dtype)),
           grad=lambda op, dy: [op.inputs[0] * dy])


def bias_add(value, bias, data_format=None, name=None):
    """Adds a 1-D ``bias`` to the channel dim of ``value`` (last, or 1 for NCHW)."""
    x = convert_to_tensor(value)
    b = convert_to_tensor(bias, dtype=x.dtype)
    if b.shape.ndims not in (None, 1):
        raise ValueError(f"BiasAdd: bias must be 1-D, got shape {b.shape}")
    nchw = data_format is not None and data_format.startswith("NC")
    ch = x.shape.values[1 if nchw else -1] if x.shape.ndims else None
    bc = b.shape.values[0] if b.shape.ndims == 1 else None
    if ch is not None and bc is not None and ch != bc:
        raise ValueError(f"BiasAdd: bias of shape {b.shape} does not match channel dim {ch} of "
                         f"value shape {x.shape}")
    return make_tensor("BiasAdd", [x, b], x.dtype, x.shape, {"nchw": nchw}, name=name)


def _bias_add_nhwc(x, b):
    rows = _fast.bias_rows(x, b)
    return np.add(x, b) if rows is None else np.add(*rows).reshape(x.shape)


def _bias_add_kernel(op, ctx):
    if op.attrs["nchw"]:
        return lambda x, b: x + b.reshape((-1,) + (1,) * (x.ndim - 2))
    return _bias_add_nhwc


def _bias_add_grad(op, dy):
    nchw = op.attrs["nchw"]
    nd = op.inputs[0].shape.ndims
    if nd is None:  # unknown rank: sum all but the channel dim at run time
        gb = make_tensor("BiasAddGrad", [dy], dy.dtype, [None], {"nchw": nchw})
        return [dy, gb]
    axes = [i for i in range(nd) if i != (1 if nchw else nd - 1)]
    return [dy, math_ops.reduce_sum(dy, axis=axes)]


OPS.define("BiasAdd", kernel=_bias_add_kernel, grad=_bias_add_grad)


def _bias_add_grad_kernel(dy, nchw):
    ch = 1 if nchw and dy.ndim > 1 else dy.ndim - 1
    return np.add.reduce(dy, axis=tuple(i for i in range(dy.ndim) if i != ch))


def _bias_add_grad_grad(op, g):
    # d(sum over the other dims)/d dy broadcasts g back along the channel dim
    dy = op.inputs[0]
    return [make_tensor("BiasAdd", [array_ops.zeros_like(dy), g], dy.dtype, dy.shape,
                        {"nchw": op.attrs["nchw"]})]


OPS.define("BiasAddGrad", kernel=with_attrs(_bias_add_grad_kernel, "nchw"),
           grad=_bias_add_grad_grad)


# ------------------------------------------------------------------ composites
def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """Zeroes elements with probability ``rate`` (or ``1 - keep_prob``) and scales the rest
    by ``1 / (1 - rate)``."""
    from estimator_npu.engine.ops.random_ops import random_uniform_like
    x = _float_input(x, "dropout")
    if rate is None:
        if keep_prob is None:
            raise ValueError("dropout: give rate= (or the deprecated keep_prob=)")
        rate = 1.0 - keep_prob if not hasattr(keep_prob, "op") else 1.0 - keep_prob
    if isinstance(rate, (int, float)):
        if not 0 <= rate < 1:
            raise ValueError(f"dropout: rate must be in [0, 1), got {rate}")
        if rate == 0:
            return x
    if noise_shape is not None:
        from estimator_npu.engine.ops.random_ops import random_uniform
        rnd = random_uniform(noise_shape, dtype=x.dtype, seed=seed)
    else:
        rnd = random_uniform_like(x, seed=seed)
    keep = math_ops.cast(math_ops.greater_equal(rnd, rate), x.dtype)
    if isinstance(rate, (int, float)):  # TF: x * (1 / keep_prob); x / (1 - rate) for tensors
        out = math_ops.multiply(x * keep, 1.0 / (1.0 - rate), name=name)
    else:
        out = math_ops.divide(x * keep, 1.0 - rate, name=name)
    out.set_shape(x.shape)  # a rate of unknown shape broadcasts to x's shape (TF1 does this)
    return out


def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=False):
    """Mean and variance of ``x`` over ``axes``."""
    if keep_dims is not None:
        keepdims = keep_dims
    mean = math_ops.reduce_mean(x, axis=axes, keepdims=True)
    var = math_ops.reduce_mean(math_ops.square(x - mean), axis=axes, keepdims=True)
    if not keepdims:
        mean = array_ops.squeeze(mean, axes)
        var = array_ops.squeeze(var, axes)
    return mean, var


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """``(x - mean) * scale / sqrt(variance + eps) + offset``."""
    inv = math_ops.rsqrt(variance + variance_epsilon)
    if scale is not None:
        inv = inv * scale
    y = x * inv + ((offset - mean * inv) if offset is not None else (-mean * inv))
    return array_ops.identity(y, name=name) if name else y


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    axis = axis if axis is not None else dim
    sq = math_ops.reduce_sum(math_ops.square(x), axis=axis, keepdims=True)
    return math_ops.multiply(x, math_ops.rsqrt(math_ops.maximum(sq, epsilon)), name=name)


def in_top_k(predictions, targets, k, name=None):
    p = convert_to_tensor(predictions)
    t = convert_to_tensor(targets)
    return make_tensor("InTopK", [p, t], dtypes.bool, t.shape, {"k": int(k)}, name=name)


def _in_top_k(p, t, k):
    # As TF's kernel: False for a row with a non-finite prediction or an out-of-range target.
    t = np.asarray(t)
    valid = (t >= 0) & (t < p.shape[1])
    target = np.take_along_axis(p, np.where(valid, t, 0)[:, None], axis=1)
    return valid & np.isfinite(p).all(axis=1) & ((p > target).sum(axis=1) < k)


OPS.define("InTopK", kernel=with_attrs(_in_top_k, "k"), grad=NOT_DIFFERENTIABLE)
