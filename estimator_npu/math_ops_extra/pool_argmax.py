"""``tf.nn.max_pool_with_argmax`` (2-D, NHWC) and its gradient ops: the pooled maxima and
the flat index of each maximum (first in window order), with ``include_batch_in_index``
choosing whether the index counts the batch."""
import collections

import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops
from estimator_npu.engine.ops._spatial import dim
from estimator_npu.engine.ops.core import make_op, make_tensor
from estimator_npu.engine.registry import OpFamily
from estimator_npu.engine.shape import TensorShape
from estimator_npu.math_ops_extra.window3d import (_float, _geometry, _offsets, _pad,
                                                   _padding, _view)

OPS = OpFamily(__name__)


# ------------------------------------------------------------------ max_pool_with_argmax
def _argmax_pool(x, a):
    """``(y, flat index)`` of each 2-D window's first maximum (row-major, NaNs skipped),
    the index ``(y * W + x) * C + c`` (plus ``b * H * W * C`` with the batch)."""
    n, h, w, c = x.shape
    (oh, ow), pads = _geometry((h, w), a["ksize"], a["strides"], (1, 1), a["padding"])
    xp = _pad(x, pads, -np.inf)
    offs = _offsets(a["ksize"])
    win = np.stack([_view(xp, off, (oh, ow), a["strides"], (1, 1)) for off in offs], -2)
    k = np.argmax(np.where(np.isnan(win), -np.inf, win), axis=-2)  # [N, OH, OW, C]
    y = np.take_along_axis(win, k[..., None, :], axis=-2)[..., 0, :]
    ki, kj = np.array(offs)[:, 0][k], np.array(offs)[:, 1][k]
    rows = np.arange(oh)[:, None, None] * a["strides"][0] + ki - pads[0][0]
    cols = np.arange(ow)[None, :, None] * a["strides"][1] + kj - pads[1][0]
    idx = (rows * w + cols) * c + np.arange(c)
    if a["include_batch"]:
        idx = idx + np.arange(n)[:, None, None, None] * (h * w * c)
    return y, idx.astype(np.int64)


def _with_argmax_kernel(op, ctx):
    a = op.attrs

    def max_pool_with_argmax(x):
        y, idx = _argmax_pool(x, a)
        return np.ascontiguousarray(y, x.dtype), idx.astype(a["targmax"])
    return max_pool_with_argmax


def _flat_index(idx, shape, include_batch):
    n = shape[0]
    per = int(np.prod(shape[1:]))
    idx = np.asarray(idx, np.int64)
    return idx if include_batch else idx + np.arange(n).reshape((n,) + (1,) * (idx.ndim - 1)) * per


def _grad_with_argmax_kernel(op, ctx):
    a = op.attrs

    def max_pool_grad_with_argmax(x, dy, argmax):
        dx = np.zeros(x.size, dy.dtype)
        np.add.at(dx, _flat_index(argmax, x.shape, a["include_batch"]).ravel(), dy.ravel())
        return dx.reshape(x.shape)
    return max_pool_grad_with_argmax


def _grad_grad_with_argmax_kernel(op, ctx):
    a = op.attrs

    def max_pool_grad_grad_with_argmax(x, g, argmax):
        return g.ravel()[_flat_index(argmax, x.shape, a["include_batch"])].astype(g.dtype)
    return max_pool_grad_grad_with_argmax


def _with_argmax_grad(op, dy, _):
    x = op.inputs[0]
    return [make_tensor("MaxPoolGradWithArgmax", [x, dy, op.outputs[1]], x.dtype,
                        _rank4(x.shape), dict(op.attrs), name="MaxPoolGradWithArgmax")]


def _grad_with_argmax_grad(op, g):
    x, dy, argmax = op.inputs
    gg = make_tensor("MaxPoolGradGradWithArgmax", [x, g, argmax], x.dtype, _rank4(dy.shape),
                     dict(op.attrs), name="MaxPoolGradGradWithArgmax")
    return [array_ops.zeros_like(x), gg, None]


def _grad_grad_with_argmax_grad(op, h):
    x, _, argmax = op.inputs
    return [array_ops.zeros_like(x), make_tensor("MaxPoolGradWithArgmax", [x, h, argmax], x.dtype,
                              _rank4(x.shape), dict(op.attrs), name="MaxPoolGradWithArgmax"),
            None]


def _rank4(shape):
    return shape if shape.ndims is not None else TensorShape([None] * 4)


OPS.define("MaxPoolWithArgmax", kernel=_with_argmax_kernel, grad=_with_argmax_grad)
OPS.define("MaxPoolGradWithArgmax", kernel=_grad_with_argmax_kernel,
           grad=_grad_with_argmax_grad)
OPS.define("MaxPoolGradGradWithArgmax", kernel=_grad_grad_with_argmax_kernel,
           grad=_grad_grad_with_argmax_grad)


def _quad(value, what, op_type):
    try:
        v = [int(i) for i in ([value] * 4 if isinstance(value, int) else value)]
    except TypeError:
        v = []
    if len(v) == 2:
        v = [1] + v + [1]
    if len(v) != 4 or v[0] != 1 or v[3] != 1 or min(v) < 1:
        raise ValueError(f"{op_type}: {what} must be 4 positive ints [1, h, w, 1] (NHWC), "
                         f"got {value!r}")
    return tuple(v[1:3])


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC",  # noqa: A002
                         Targmax=None, name=None, output_dtype=None,  # noqa: N803
                         include_batch_in_index=False):
    """2-D max pooling of an NHWC tensor and the flattened index of each maximum,
    ``(y * width + x) * channels + c`` (``+ b * height * width * channels`` with
    ``include_batch_in_index``), as TF's ``MaxPoolWithArgmax``."""
    op_type = "MaxPoolWithArgmax"
    if data_format != "NHWC":
        raise ValueError(f"{op_type}: data_format must be 'NHWC', got {data_format!r}")
    targ = dtypes.as_dtype(output_dtype or Targmax or dtypes.int64)
    if targ not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"{op_type}: the index dtype must be int32 or int64, got {targ.name}")
    attrs = {"ksize": _quad(ksize, "ksize", op_type), "strides": _quad(strides, "strides",
                                                                         op_type),
             "padding": _padding(padding, op_type), "include_batch":
             bool(include_batch_in_index), "targmax": targ.as_numpy_dtype}
    x = _float(input, op_type, "input", rank=4)
    n, h, w, c = x.shape.values if x.shape.ndims is not None else (None,) * 4
    (oh, ow) = [None if d is None else dim(d, k, s, 1, attrs["padding"])[0] for d, k, s in
                zip((h, w), attrs["ksize"], attrs["strides"])]
    if (oh is not None and oh < 1) or (ow is not None and ow < 1):
        raise ValueError(f"{op_type}: input shape {x.shape} is smaller than the "
                         f"{list(attrs['ksize'])} window")
    shape = TensorShape([n, oh, ow, c])
    op = make_op(op_type, [x], [(x.dtype, shape), (targ, shape)], attrs, name=name or op_type)
    return MaxPoolWithArgmax(op.outputs[0], op.outputs[1])


MaxPoolWithArgmax = collections.namedtuple("MaxPoolWithArgmax", ["output", "argmax"])


__all__ = ["max_pool_with_argmax"]
