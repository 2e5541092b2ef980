"""``tf.nn`` extras built on the core kernels: ``xw_plus_b``, depthwise and separable
convolutions, ``convolution``, local response normalization and ``top_k``
(``embedding_lookup_sparse`` is in ``estimator_npu.partition``)."""
import collections

import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import Tensor
from estimator_npu.engine.ops import array_ops, conv_ops, math_ops, nn_ops
from estimator_npu.engine.ops.core import convert_to_tensor, make_op, make_tensor
from estimator_npu.engine.registry import OpFamily, with_attrs

OPS = OpFamily(__name__)  # this family's op definitions (data)


def xw_plus_b(x, weights, biases, name=None):
    """``matmul(x, weights) + biases``."""
    return nn_ops.bias_add(math_ops.matmul(x, weights), biases, name=name)


# ------------------------------------------------------------------ depthwise / separable
def depthwise_conv2d_native(input, filter, strides, padding, data_format="NHWC",  # noqa: A002
                            dilations=None, name=None):
    """Per-channel convolution: ``filter`` is ``[KH, KW, C, M]``; output channel
    ``c * M + m`` convolves input channel ``c`` with ``filter[:, :, c, m]``."""
    x = convert_to_tensor(input)
    w = convert_to_tensor(filter, dtype=x.dtype)
    nchw = data_format is not None and data_format.startswith("NC")
    ch_axis = 1 if nchw else 3
    c = x.shape.values[ch_axis] if x.shape.ndims is not None else None
    if c is None and w.shape.ndims is not None:
        c = w.shape.values[2]
    if c is None:
        raise ValueError("depthwise_conv2d: the number of input channels must be known "
                         "statically (from the input or the filter)")
    if w.shape.ndims is not None and w.shape.values[2] not in (None, c):
        raise ValueError(f"depthwise_conv2d: filter shape {w.shape} does not match the "
                         f"{c} input channels of {x.shape}")
    kw = dict(strides=strides, padding=padding, data_format=data_format, dilations=dilations)
    if c == 1:
        return conv_ops.conv2d(x, w, name=name, **kw)
    xs = array_ops.split(x, c, axis=ch_axis)
    ws = array_ops.split(w, c, axis=2)
    outs = [conv_ops.conv2d(xi, wi, **kw) for xi, wi in zip(xs, ws)]
    return array_ops.concat(outs, ch_axis, name=name or "depthwise")


def depthwise_conv2d(input, filter, strides, padding, rate=None, name=None,  # noqa: A002
                     data_format=None, dilations=None):
    """``tf.nn.depthwise_conv2d`` (``rate`` is the TF1 name of ``dilations``)."""
    if rate is not None and dilations is None:
        dilations = list(rate) if isinstance(rate, (list, tuple)) else rate
    return depthwise_conv2d_native(input, filter, strides, padding,
                                   data_format=data_format or "NHWC", dilations=dilations,
                                   name=name)


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding,  # noqa
                     rate=None, name=None, data_format=None, dilations=None):
    """A depthwise convolution followed by a 1x1 convolution with ``pointwise_filter``."""
    d = depthwise_conv2d(input, depthwise_filter, strides, padding, rate=rate,
                         data_format=data_format, dilations=dilations)
    return conv_ops.conv2d(d, pointwise_filter, [1, 1, 1, 1], "VALID",
                           data_format=data_format or "NHWC", name=name)


def convolution(input, filter, padding, strides=None, dilation_rate=None,  # noqa: A002
                name=None, data_format=None, filters=None, dilations=None):
    """``tf.nn.convolution`` for 1-D (``[N, W, C]``) and 2-D (``[N, H, W, C]``) inputs;
    ``strides`` / ``dilation_rate`` have one entry per spatial dim."""
    filter = filters if filter is None else filter
    x = convert_to_tensor(input)
    if x.shape.ndims == 3:
        from estimator_npu.engine.ops.composites import conv1d
        if data_format not in (None, "NWC"):
            raise ValueError(f"convolution: data_format must be 'NWC' for 1-D inputs, got "
                             f"{data_format!r}")
        one = [1] if strides is None else list(strides)
        dil = dilations if dilations is not None else dilation_rate
        dil = None if dil is None else list(dil) if not np.isscalar(dil) else [dil]
        if len(one) != 1 or (dil is not None and len(dil) != 1):
            raise ValueError(f"convolution: a 1-D input takes one stride and one dilation, "
                             f"got strides={strides}, dilation_rate={dil}")
        return conv1d(x, filter, stride=int(one[0]), padding=padding,
                      dilations=None if dil is None else int(dil[0]), name=name)
    if x.shape.ndims not in (None, 4):
        raise NotImplementedError(f"convolution: only 2-D convolutions (4-D inputs) are "
                                  f"supported, got input shape {x.shape}")
    strides = [1, 1] if strides is None else strides
    dil = dilations if dilations is not None else dilation_rate
    return conv_ops.conv2d(x, filter, strides, padding, data_format=data_format or "NHWC",
                           dilations=dil, name=name)


# ------------------------------------------------------------------ lrn
def local_response_normalization(input, depth_radius=5, bias=1.0, alpha=1.0,  # noqa: A002
                                 beta=0.5, name=None):
    """``x / (bias + alpha * sum_{|d' - d| <= r} x[..., d']^2) ** beta`` over the last
    axis (4-D NHWC input, as TF)."""
    x = convert_to_tensor(input)
    r = int(depth_radius)
    sq = math_ops.square(x)
    nd = x.shape.ndims if x.shape.ndims is not None else 4
    pads = [[0, 0]] * (nd - 1) + [[r, r]]
    padded = array_ops.pad(sq, pads)
    c = x.shape.values[-1] if x.shape.ndims else None
    if c is None:
        raise ValueError("local_response_normalization: the depth (last dim) must be known")
    total = None
    for i in range(2 * r + 1):
        part = array_ops.slice(padded, [0] * (nd - 1) + [i], [-1] * (nd - 1) + [c])
        total = part if total is None else total + part
    denom = math_ops.pow(bias + alpha * total, beta)
    return math_ops.divide(x, denom, name=name)


lrn = local_response_normalization


# ------------------------------------------------------------------ top_k
TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])  # TF's result type


def top_k(input, k=1, sorted=True, name=None):  # noqa: A002
    """``(values, indices)`` of the ``k`` largest entries along the last axis (ties: lower
    index first, as TF)."""
    x = convert_to_tensor(input)
    if isinstance(k, Tensor) and k.op.type != "Const":
        return TopKV2(*_top_k_dynamic(x, k, name))
    k = int(k.op.attrs["value"]) if isinstance(k, Tensor) else int(k)
    if x.shape.ndims == 0:
        raise ValueError("top_k: input must be at least 1-D")
    if x.shape.ndims is not None and x.shape.values[-1] is not None and x.shape.values[-1] < k:
        raise ValueError(f"top_k: input must have at least k={k} columns, got shape "
                         f"{x.shape}")
    shape = list(x.shape.values[:-1]) + [k] if x.shape.ndims is not None else None
    op = make_op("TopKV2", [x], [(x.dtype, shape), (dtypes.int32, shape)], {"k": k},
                 name=name)
    return TopKV2(op.outputs[0], op.outputs[1])


def _top_k_dynamic(x, k, name):
    """``top_k`` with ``k`` a tensor known only when the graph runs."""
    if x.shape.ndims == 0:
        raise ValueError("top_k: input must be at least 1-D")
    k = convert_to_tensor(k, dtype=dtypes.int32)
    shape = list(x.shape.values[:-1]) + [None] if x.shape.ndims is not None else None
    op = make_op("TopKV2Dynamic", [x, k], [(x.dtype, shape), (dtypes.int32, shape)],
                 name=name or "TopKV2")
    return op.outputs[0], op.outputs[1]


def _top_k_dynamic_kernel(op, ctx):
    def run(x, k):
        k = int(k)
        if k < 0 or k > np.shape(x)[-1]:
            raise ValueError(f"{op.name}: k={k} must be in [0, {np.shape(x)[-1]}] (the size "
                             f"of the last axis of input shape {list(np.shape(x))})")
        return _top_k(x, k)
    return run


def _top_k(x, k):
    idx = np.argsort(-x, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, idx, axis=-1), idx.astype(np.int32)


def _top_k_grad(op, dvals, didx):
    if dvals is None:
        return [None]
    return [make_tensor("TopKGrad", [dvals, op.outputs[1], op.inputs[0]], dvals.dtype,
                        op.inputs[0].shape)]


def _top_k_grad_kernel(dv, idx, x):
    out = np.zeros(np.shape(x), dtype=dv.dtype)
    np.put_along_axis(out, np.asarray(idx, dtype=np.intp), dv, axis=-1)
    return out


OPS.define("TopKV2", kernel=with_attrs(_top_k, "k"), grad=_top_k_grad)
OPS.define("TopKV2Dynamic", kernel=_top_k_dynamic_kernel,
           grad=lambda op, dvals, didx: _top_k_grad(op, dvals, didx) + [None])
OPS.define("TopKGrad", kernel=lambda op, ctx: _top_k_grad_kernel,
           grad=lambda op, g: [make_tensor("TopKGather", [g, op.inputs[1]], g.dtype,
                                           op.inputs[0].shape), None, None])
OPS.define("TopKGather", kernel=lambda op, ctx: (
    lambda g, idx: np.take_along_axis(g, np.asarray(idx, dtype=np.intp), axis=-1)),
    grad=lambda op, h: [make_tensor("TopKGrad", [h, op.inputs[1], op.inputs[0]], h.dtype,
                                    op.inputs[0].shape), None])
