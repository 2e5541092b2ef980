"""Reductions (``reduce_sum``, ``reduce_mean``, ..., ``reduce_all``/``reduce_any``) and
``argmax``/``argmin``, each with its gradient; re-exported by ``math_ops``."""
import functools
import math

import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import Tensor
from estimator_npu.engine.ops import _fast
from estimator_npu.engine.ops.core import convert_to_tensor, make_tensor
from estimator_npu.engine.ops.math_ops import (cast, equal, logical_and, negative, ones_like_,
                                               where_)
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, Inline, OpFamily, with_attrs
from estimator_npu.engine.shape import TensorShape

OPS = OpFamily(__name__)  # this family's op definitions (data)


# ------------------------------------------------------------------ reductions
def _norm_axis(axis, reduction_indices, ndims, op_name):
    if axis is None:
        axis = reduction_indices
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        if axis.op.type != "Const":
            raise TypeError(f"{op_name}: axis must be a Python int, a list of ints or a "
                            "constant, not a computed Tensor")
        axis = np.asarray(axis.op.attrs["value"]).tolist()
    axes = list(axis if isinstance(axis, (list, tuple, np.ndarray)) else [axis])
    for a in axes:
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"{op_name}: axis must be an int or a list of ints, got "
                            f"{type(a).__name__}: {a!r}")
    axes = [int(a) for a in axes]
    if ndims is not None:
        for a in axes:
            if not -ndims <= a < max(ndims, 1):
                raise ValueError(f"{op_name}: axis {a} is out of range for a tensor of rank "
                                 f"{ndims}")
        axes = sorted({a % ndims if ndims else 0 for a in axes})
    return tuple(axes)


def _reduced_shape(shape, axes, keepdims):
    if shape.values is None:  # a full reduction of any rank is a scalar (TF infers [] too)
        return TensorShape([]) if axes is None and not keepdims else TensorShape(None)
    if axes is None:
        return TensorShape([1] * len(shape.values) if keepdims else [])
    if any(a < 0 for a in axes):
        return TensorShape(None)
    return TensorShape([1 if i in axes else d for i, d in enumerate(shape.values)
                        if keepdims or i not in axes])


def _reduce(op_type, x, axis, keepdims, name, reduction_indices, keep_dims, out_dtype=None):
    x = convert_to_tensor(x)
    if x.dtype == dtypes.bool and op_type not in ("All", "Any"):
        raise TypeError(f"{op_type}: `input_tensor` {x.name} is bool; reduce it with "
                        f"reduce_any/reduce_all or cast it to a number first")
    if keep_dims is not None:
        keepdims = keep_dims
    keepdims = bool(keepdims)
    axes = _norm_axis(axis, reduction_indices, x.shape.ndims, op_type)
    if axes == ():
        return x if out_dtype is None else cast(x, out_dtype)
    shape = _reduced_shape(x.shape, axes, keepdims)
    return make_tensor(op_type, [x], out_dtype or x.dtype, shape,
                       {"axis": axes, "keepdims": keepdims}, name=name)


def reduce_sum(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None):
    x = convert_to_tensor(input_tensor)  # a bool input is a TypeError (in _reduce), as TF
    if not (keepdims or keep_dims):
        fused = _fused_cross_entropy(x, axis if axis is not None else reduction_indices)
        if fused is not None:
            return fused
    return _reduce("Sum", x, axis, keepdims, name, reduction_indices, keep_dims)


def _fused_cross_entropy(x, axis):
    """``reduce_sum(labels * log(softmax(logits)), -1)`` is ``-cross_entropy(labels,
    logits)``: the TF1 tutorial's loss becomes one fused kernel (forward and backprop
    together, via log-softmax, so it never takes ``log(0)``). ``None`` if no match."""
    nd = x.shape.ndims
    if x.op.type != "Mul" or not nd or axis is None:
        return None
    axes = axis if isinstance(axis, (list, tuple)) else [axis]
    if len(axes) != 1 or isinstance(axes[0], Tensor) or int(axes[0]) % nd != nd - 1:
        return None
    a, b = x.op.inputs
    for labels, log_p in ((a, b), (b, a)):
        sm = log_p.op.inputs[0].op if log_p.op.type == "Log" else None
        if sm is None or sm.type != "Softmax" or sm.attrs["axis"] % nd != nd - 1:
            continue
        logits = sm.inputs[0]
        if labels.shape.values != logits.shape.values or labels.dtype != logits.dtype:
            continue
        from estimator_npu.engine.ops import nn_ops
        return negative(nn_ops.softmax_cross_entropy_with_logits_v2(labels=labels,
                                                                    logits=logits))
    return None


def reduce_mean(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
                keep_dims=None):
    return _reduce("Mean", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_max(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None):
    return _reduce("Max", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_min(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None):
    return _reduce("Min", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_prod(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
                keep_dims=None):
    return _reduce("Prod", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_all(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None):
    return _reduce("All", cast(input_tensor, dtypes.bool), axis, keepdims, name,
                   reduction_indices, keep_dims)


def reduce_any(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None):
    return _reduce("Any", cast(input_tensor, dtypes.bool), axis, keepdims, name,
                   reduction_indices, keep_dims)


def _red_kernel(fn):
    def factory(op, ctx):
        kw = {"axis": op.attrs["axis"], "keepdims": op.attrs["keepdims"]}
        if op.inputs[0].dtype.is_integer:  # numpy would widen int32 sums to int64
            kw["dtype"] = op.inputs[0].dtype.np
        return functools.partial(fn, **kw)
    return factory


def _mean_kernel(op, ctx):
    axis, keepdims = op.attrs["axis"], op.attrs["keepdims"]
    x = op.inputs[0]
    reduce = np.add.reduce
    if x.shape.is_fully_defined() and x.dtype.is_floating:
        dims = x.shape.values
        n = 1
        for a in (range(len(dims)) if axis is None else axis):
            n *= dims[a]
        scale = x.dtype.np.type(1.0 / max(n, 1))
        total = _fast.make_sum(axis, keepdims, x.shape.ndims, True)
        return lambda v: total(v) * scale
    if x.dtype.is_floating:
        def mean(v):
            r = reduce(v, axis=axis, keepdims=keepdims)
            return r * v.dtype.type(np.size(r) / max(v.size, 1))
        return mean
    return functools.partial(_mean, axis=axis, keepdims=keepdims)


def _mean(x, axis, keepdims):
    if x.dtype.kind in "iu":  # integer mean truncates toward zero and keeps the dtype, as TF
        total = np.add.reduce(x, axis=axis, keepdims=keepdims, dtype=np.int64)
        n = max(np.size(x) // max(np.size(total), 1), 1)
        return (np.sign(total) * (np.abs(total) // n)).astype(x.dtype)
    return np.mean(x, axis=axis, keepdims=keepdims, dtype=x.dtype if x.dtype.kind == "f"
                   else None)


def broadcast_reduced(dy, x, axis, keepdims, mean=False):
    """Broadcasts a reduction's output gradient ``dy`` back to the shape of ``x``
    (divided by the reduced element count when ``mean``)."""
    return make_tensor("BroadcastReduced", [dy, x], dy.dtype, x.shape,
                       {"axis": axis, "keepdims": keepdims, "mean": mean})


def _broadcast_reduced(dy, x, axis, keepdims, mean):
    xs = np.shape(x)
    if axis is not None and any(a < 0 for a in axis):  # unknown rank at build time
        axis = tuple(sorted({a % max(len(xs), 1) for a in axis}))
    if axis is None and np.ndim(dy) == 0 or np.size(dy) == 1 and len(xs) <= 1:
        value = dy.item() / max(math.prod(xs), 1) if mean else dy.item()
        return np.full(xs, value, dtype=dy.dtype)
    if not mean and axis is not None and not keepdims and len(axis) == 1 and \
            axis[0] == len(xs) - 1:
        out = np.empty(xs, dtype=np.result_type(dy))
        out[...] = dy[..., None]
        return out
    if axis is None:
        axes = tuple(range(len(xs)))
    else:
        axes = axis
    if not keepdims:
        dy = np.reshape(dy, [1 if i in axes else d for i, d in enumerate(xs)])
    if mean:
        n = 1
        for a in axes:
            n *= xs[a]
        dy = dy / np.asarray(max(n, 1), dtype=np.result_type(dy))
    out = np.empty(xs, dtype=np.result_type(dy))
    out[...] = dy
    return out


def _broadcast_reduced_grad(op, g):
    axis, keepdims, mean = op.attrs["axis"], op.attrs["keepdims"], op.attrs["mean"]
    red = reduce_mean if mean else reduce_sum
    return [red(g, axis=axis, keepdims=keepdims), None]


OPS.define("BroadcastReduced", kernel=with_attrs(_broadcast_reduced, "axis", "keepdims", "mean"),
           grad=_broadcast_reduced_grad)


def _sum_grad(op, dy):
    return [broadcast_reduced(dy, op.inputs[0], op.attrs["axis"], op.attrs["keepdims"])]


def _mean_grad(op, dy):
    return [broadcast_reduced(dy, op.inputs[0], op.attrs["axis"], op.attrs["keepdims"], True)]


def _extreme_grad(op, dy):
    x, y = op.inputs[0], op.outputs[0]
    axis, keepdims = op.attrs["axis"], op.attrs["keepdims"]
    yb = broadcast_reduced(y, x, axis, keepdims)
    mask = cast(equal(x, yb), dy.dtype)
    count = broadcast_reduced(reduce_sum(mask, axis=axis, keepdims=keepdims), x, axis,
                              keepdims)
    return [mask * broadcast_reduced(dy, x, axis, keepdims) / count]


def _prod_grad(op, dy):
    # d prod / d x_i is the product of the other elements: y / x_i when no element is
    # zero; when exactly one is zero, the product of the non-zeros at that element and 0
    # elsewhere; 0 everywhere when two or more are zero (no 0 / 0).
    from estimator_npu.engine.ops.array_ops import zeros_like
    x = op.inputs[0]
    axis, keepdims = op.attrs["axis"], op.attrs["keepdims"]
    is_zero = equal(x, 0.0)
    n_zero = broadcast_reduced(reduce_sum(cast(is_zero, x.dtype), axis=axis,
                                          keepdims=keepdims), x, axis, keepdims)
    safe = where_(is_zero, ones_like_(x), x)
    p = broadcast_reduced(reduce_prod(safe, axis=axis, keepdims=keepdims), x, axis, keepdims)
    one_zero = where_(logical_and(is_zero, equal(n_zero, 1.0)), p, zeros_like(x))
    others = where_(equal(n_zero, 0.0), p / safe, one_zero)
    return [others * broadcast_reduced(dy, x, axis, keepdims)]


def _static_size(x):
    """The number of elements of ``x`` when its static shape is fully known, else None."""
    return x.shape.num_elements() if x.shape.is_fully_defined() else None


def _sum_kernel(op, ctx):
    x = op.inputs[0]
    if x.dtype.is_floating and op.attrs["axis"] == (0,) and not op.attrs["keepdims"] and \
            x.shape.ndims == 2 and x.shape.is_fully_defined():
        # a dense layer's bias gradient: the plan line is the product with ones itself
        return Inline("{dot}({ones}, {0})", dot=_fast.dot,
                      ones=_fast.ones(x.shape.as_list()[0], x.dtype.np))
    return _fast.make_sum(op.attrs["axis"], op.attrs["keepdims"], x.shape.ndims,
                          x.dtype.is_floating)


def _empty_safe(factory, identity):
    """``factory``'s kernel; on empty inputs TF's results: ``identity(dtype)`` everywhere."""
    def wrapped(op, ctx):
        run, axis, keep = factory(op, ctx), op.attrs["axis"], op.attrs["keepdims"]
        if _static_size(op.inputs[0]):  # never empty: no check per run
            return run

        def kernel(x):
            if np.size(x):
                return run(x)
            ax = None if axis is None else tuple(a % max(np.ndim(x), 1) for a in axis)
            shape = np.shape(np.add.reduce(np.asarray(x), axis=ax, keepdims=keep))
            return np.full(shape, identity(np.asarray(x).dtype), np.asarray(x).dtype)
        return kernel
    return wrapped


_INF = {True: lambda dt: -np.inf if dt.kind == "f" else np.iinfo(dt).min,
        False: lambda dt: np.inf if dt.kind == "f" else np.iinfo(dt).max}
OPS.define("Sum", kernel=_empty_safe(_sum_kernel, lambda dt: 0), grad=_sum_grad)
OPS.define("Mean", kernel=_empty_safe(_mean_kernel, lambda dt: np.nan if dt.kind == "f" else 0),
           grad=_mean_grad)
OPS.define("Max", kernel=_empty_safe(_red_kernel(np.maximum.reduce), _INF[True]),
           grad=_extreme_grad)
OPS.define("Min", kernel=_empty_safe(_red_kernel(np.minimum.reduce), _INF[False]),
           grad=_extreme_grad)
OPS.define("Prod", kernel=_red_kernel(np.multiply.reduce), grad=_prod_grad)
OPS.define("All", kernel=_red_kernel(np.logical_and.reduce), grad=NOT_DIFFERENTIABLE)
OPS.define("Any", kernel=_red_kernel(np.logical_or.reduce), grad=NOT_DIFFERENTIABLE)


def argmax(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):  # noqa: A002
    return _arg("ArgMax", input, axis if axis is not None else dimension, name, output_type)


def argmin(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):  # noqa: A002
    return _arg("ArgMin", input, axis if axis is not None else dimension, name, output_type)


def _arg(op_type, x, axis, name, output_type):
    x = convert_to_tensor(x)
    axis = 0 if axis is None else int(axis)
    nd = x.shape.ndims
    if nd is not None:
        if not -nd <= axis < nd:
            raise ValueError(f"{op_type}: axis {axis} out of range for rank {nd}")
        axis %= nd
        shape = TensorShape([d for i, d in enumerate(x.shape.values) if i != axis])
    else:
        shape = TensorShape(None)
    odt = dtypes.as_dtype(output_type)
    return make_tensor(op_type, [x], odt, shape, {"axis": axis, "dtype": odt}, name=name)


def _arg_kernel(fn):
    def factory(op, ctx):
        axis, npd = op.attrs["axis"], op.attrs["dtype"].np
        if not op.inputs[0].dtype.is_floating:
            return lambda x: fn(x, axis=axis).astype(npd)
        skip = -np.inf if fn is np.argmax else np.inf  # TF's ArgMax never picks a NaN
        return lambda x: fn(np.where(np.isnan(x), skip, x) if np.isnan(x).any() else x,
                            axis=axis).astype(npd)
    return factory


OPS.define("ArgMax", kernel=_arg_kernel(np.argmax), grad=NOT_DIFFERENTIABLE)
OPS.define("ArgMin", kernel=_arg_kernel(np.argmin), grad=NOT_DIFFERENTIABLE)
