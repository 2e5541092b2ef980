"""The fused LSTM step behind ``BasicLSTMCell`` (and ``LSTMCell`` without peepholes,
clipping or projection): one kernel per time step instead of ~15, with a hand-written
backward kernel. The arithmetic is TF1's ``BasicLSTMCell``, in the same order::

    z = [x, h] @ kernel + bias;  i, j, f, o = split(z, 4)
    c' = c * sigmoid(f + forget_bias) + sigmoid(i) * tanh(j)
    h' = tanh(c') * sigmoid(o)

The sigmoids are computed as ``0.5 tanh(z / 2) + 0.5`` (all four gates in one ``tanh``
pass; within float32 rounding of TF's logistic). Outputs ``(c', h', gates, tanh(c'))``;
the last two (the activated gates ``[i j f o]`` and ``tanh(c')``) are kept for the
gradient, so a ``while_loop`` records them per step.
"""
import numpy as np

from estimator_npu.engine.ops.core import make_op
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.shape import TensorShape

OPS = OpFamily(__name__)  # this family's op definitions (data)


def lstm_block(x, c, h, kernel, bias, forget_bias, name="lstm_block"):
    """One fused LSTM step; returns ``(new_c, new_h)``."""
    from estimator_npu.engine.ops.core import convert_to_tensor
    x, c, h, kernel, bias = [convert_to_tensor(t) for t in (x, c, h, kernel, bias)]
    units = None  # from the kernel's static shape, else from the state's
    if kernel.shape.values is not None and kernel.shape.values[-1] is not None:
        units = kernel.shape.values[-1] // 4
    for t in (c, h):
        if units is None and t.shape.values and t.shape.values[-1] is not None:
            units = t.shape.values[-1]
    batch = None
    for t in (x, c, h):  # the most specific batch size any input knows
        if t.shape.values and t.shape.values[0] is not None:
            batch = t.shape.values[0]
    for t, what in ((c, "c"), (h, "h")):
        if t.shape.values is not None and t.shape.values[-1] not in (None, units):
            raise ValueError(f"{name}: state {what} {t.name} has shape {t.shape}, expected "
                             f"[batch, {units}]")
    spec = [(x.dtype, TensorShape([batch, units])), (x.dtype, TensorShape([batch, units])),
            (x.dtype, TensorShape([batch, None if units is None else 4 * units])), (x.dtype, TensorShape([batch, units]))]
    op = make_op("LSTMBlock", [x, c, h, kernel, bias], spec,
                 {"forget_bias": float(forget_bias)}, name=name)
    return op.outputs[0], op.outputs[1]


def _gate_constants(n, dtype):
    """``sigmoid(z) = 0.5 tanh(z / 2) + 0.5`` for i, f, o and ``tanh`` for j: all four gates
    are then one ``tanh`` of the scaled pre-activations, scaled and shifted."""
    scale = np.full(4 * n, 0.5, dtype)
    scale[n:2 * n] = 1.0
    shift = np.full(4 * n, 0.5, dtype)
    shift[n:2 * n] = 0.0
    return scale, shift


def _forward_kernel(op, ctx):
    fb = op.attrs["forget_bias"]
    cache = {}

    def step(x, c, h, kernel, bias):
        n = kernel.shape[1] // 4
        key = (n, kernel.dtype)
        consts = cache.get(key)
        if consts is None:
            scale, shift = _gate_constants(n, kernel.dtype)
            fbias = np.zeros(4 * n, kernel.dtype)
            fbias[2 * n:3 * n] = fb
            consts = cache[key] = (scale, shift, fbias)
        scale, shift, fbias = consts
        z = np.concatenate([x, h], 1) @ kernel
        z += bias + fbias  # (the forget bias joins the bias: one pass over z)
        z *= scale
        gates = np.tanh(z, out=z)
        gates *= scale
        gates += shift
        new_c = c * gates[:, 2 * n:3 * n]
        new_c += gates[:, :n] * gates[:, n:2 * n]
        tc = np.tanh(new_c)
        return new_c, tc * gates[:, 3 * n:], gates, tc
    return step


def _grad(op, dc, dh, dgates, dtc):
    x, c, h, kernel, bias = op.inputs
    _, _, gates, tc = op.outputs
    from estimator_npu.engine.ops.array_ops import zeros_like
    dc = dc if dc is not None else zeros_like(op.outputs[0])
    dh = dh if dh is not None else zeros_like(op.outputs[1])
    g = make_op("LSTMBlockGrad", [x, c, h, kernel, gates, tc, dc, dh],
                [(t.dtype, t.shape) for t in (x, c, h, kernel, bias)],
                name=op.name.rsplit("/", 1)[-1] + "_grad")
    return list(g.outputs)


def _grad_kernel(op, ctx):
    spare = []  # scratch (dz, gate derivatives, [x h]) kept between calls, one set per caller

    def backward(x, c, h, kernel, gates, tc, dnc, dnh):
        n = kernel.shape[1] // 4
        d = x.shape[1]
        scratch = spare.pop() if spare else None
        if scratch is None or scratch[0].shape != gates.shape or \
                scratch[0].dtype != gates.dtype or scratch[2].shape[1] != d + n:
            scratch = (np.empty_like(gates), np.empty_like(gates),
                       np.empty((gates.shape[0], d + n), gates.dtype))
        dz, deriv, xh = scratch
        i, j, f, o = gates[:, :n], gates[:, n:2 * n], gates[:, 2 * n:3 * n], gates[:, 3 * n:]
        dc_total = dnh * o
        dc_total *= 1 - tc * tc
        dc_total += dnc
        np.multiply(dc_total, j, out=dz[:, :n])
        np.multiply(dc_total, i, out=dz[:, n:2 * n])
        np.multiply(dc_total, c, out=dz[:, 2 * n:3 * n])
        np.multiply(dnh, tc, out=dz[:, 3 * n:])
        np.subtract(1, gates, out=deriv)  # sigmoid' = g (1 - g); tanh' = 1 - g^2 for j
        deriv *= gates
        np.multiply(j, j, out=deriv[:, n:2 * n])
        np.subtract(1, deriv[:, n:2 * n], out=deriv[:, n:2 * n])
        dz *= deriv
        xh[:, :d] = x
        xh[:, d:] = h
        dxh = dz @ kernel.T
        out = dxh[:, :d], dc_total * f, dxh[:, d:], xh.T @ dz, dz.sum(0)
        spare.append(scratch)
        return out
    return backward

OPS.define("LSTMBlock", kernel=_forward_kernel, grad=_grad)
OPS.define("LSTMBlockGrad", kernel=_grad_kernel, grad=NOT_DIFFERENTIABLE)

__all__ = ["lstm_block"]
