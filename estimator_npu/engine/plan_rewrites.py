"""Kernel rewrites at plan compilation: choices that need to see the whole plan.

``kernel_overrides(order, targets, feeds, ctx)`` looks at a plan's ordered ops and returns
``{op: kernel}`` for the ops whose kernel it replaces; the plan compiler uses those instead
of the registry's (one call in ``plan.compile_plan``). The graph is never changed, so
gradients, fetches of other plans and ``Session.explain`` see the ops as built. Rewrites:

* **Shared patches.** A ``Conv2D`` and the ``Conv2DBackpropFilter`` of the same input
  tensor and geometry in one plan share the forward im2col matrix (``conv_ops.Patches``):
  the filter gradient skips its own im2col.
* **Paired pools.** A 2x2 stride-2 ``MaxPool`` over many channels and its ``MaxPoolGrad``
  share the masks of each window's first maximum computed by the forward pass.
* **In-place bias and activation.** ``Relu(BiasAdd(Conv2D(x, w), b))`` where the plan
  reads the convolution only through the ``BiasAdd`` and the ``BiasAdd`` only through the
  ``Relu`` (neither fetched nor fed): the ``BiasAdd`` adds into the convolution's fresh
  result and the ``Relu`` clamps it in place, so one buffer serves all three instead of
  three passes that each allocate. The same for ``BiasAdd`` after ``MatMul``. The
  arithmetic is the same float operations in the same order, so results are bit-identical.
* **Masked products.** The ReLU gradient ``Mul(dy, Cast(Greater(y, 0)))`` multiplies
  ``dy`` by the boolean mask directly (numpy converts it to 0/1 exactly as the ``Cast``
  did), in one plan line ``multiply(dy, greater(y, 0))``: the ``Greater`` and ``Cast``
  are elided (no line, no tuple, no lambda frame). One pass and one allocation fewer per
  ReLU.

Rewrites are skipped under the fp16 precision modes (their kernels round inputs and must
see them unchanged) and for dtypes other than float32/float64.
"""
import numpy as np

from estimator_npu.engine import precision, threads
from estimator_npu.engine.registry import Inline, elided
from estimator_npu.engine.ops import _fast

# Ops whose kernels return a fresh array that no other op or buffer aliases.
_FRESH = frozenset({"Conv2D", "MatMul"})
_FLOATS = frozenset({"float32", "float64"})


def _readers(order):
    readers = {}
    for op in order:
        for t in op.inputs:
            readers.setdefault(t, []).append(op)
    return readers


def _private(t, readers, pinned):
    """``t`` is read by exactly one op of the plan and neither fetched nor fed."""
    return t not in pinned and len(readers.get(t, ())) == 1


def _bias_add_in_place(x, b):
    rows = _fast.bias_rows(x, b)
    if rows is None:
        return np.add(x, b, out=x)
    r, br = rows
    if x.size < 2 * threads.MIN_SIZE:
        np.add(r, br, out=r)
        return x
    threads.split(r.shape[0], lambda s, e: np.add(r[s:e], br, out=r[s:e]),
                  threads.MIN_SIZE // r.shape[1] + 1)
    return x


def _relu_in_place(x):
    if x.size < 2 * threads.MIN_SIZE or not x.flags.c_contiguous:
        return np.maximum(x, 0, out=x)
    f = x.reshape(-1)
    threads.split(f.size, lambda s, e: np.maximum(f[s:e], 0, out=f[s:e]))
    return x


def _floats(op):
    return all(t.dtype.name in _FLOATS for t in op.outputs)


def _conv_key(x, attrs, w_shape):
    """What makes two convolutions' im2col the same; ``None`` for an unknown window."""
    if w_shape.ndims is None or None in w_shape.as_list()[:2]:
        return None
    key = x, tuple(sorted(attrs.items())), tuple(w_shape.as_list()[:2])
    try:
        hash(key)
    except TypeError:  # an unhashable attribute
        return None
    return key


def _shared_patches(order, ctx, out):
    from estimator_npu.engine.ops import conv_ops
    forward = {}
    for op in order:
        if not _floats(op):
            continue
        if op.type == "Conv2D":
            key = _conv_key(op.inputs[0], op.attrs, op.inputs[1].shape)
            if key is not None:
                forward.setdefault(key, op)
        elif op.type == "Conv2DBackpropFilter":
            key = _conv_key(op.inputs[0], op.attrs, op.outputs[0].shape)
            fwd = forward.get(key) if key is not None else None
            if fwd is None or fwd in out:
                continue
            patches = conv_ops.Patches()
            out[fwd] = conv_ops._conv2d_kernel(fwd, ctx, patches)
            out[op] = conv_ops._conv2d_backprop_filter_kernel(op, ctx, patches)


def _paired_pools(order, ctx, out):
    """A 2x2 ``MaxPool`` and the ``MaxPoolGrad`` of its input and output share the
    forward's first-maximum masks (``pool_ops.PoolMasks``)."""
    from estimator_npu.engine.ops import pool_ops
    for op in order:
        if op.type != "MaxPoolGrad" or not _floats(op):
            continue
        x, y = op.inputs[0], op.inputs[1]
        fwd = y.op
        if fwd.type != "MaxPool" or fwd.inputs[0] is not x or fwd in out or \
                fwd.attrs != op.attrs:
            continue
        masks = pool_ops.PoolMasks()
        out[fwd] = pool_ops._max_pool_kernel(fwd, ctx, masks)
        out[op] = pool_ops._max_pool_grad_kernel(op, ctx, masks)


def _in_place_epilogues(order, pinned, out):
    readers = _readers(order)
    for op in order:
        if op.type != "BiasAdd" or op.attrs.get("nchw") or not _floats(op):
            continue
        x = op.inputs[0]
        if x.op.type not in _FRESH or not _private(x, readers, pinned) or \
                x.op.outputs[0] is not x:
            continue
        out[op] = _bias_add_in_place
        y = op.outputs[0]
        nxt = readers.get(y, ())
        if _private(y, readers, pinned) and nxt[0].type == "Relu":
            out[nxt[0]] = _relu_in_place


def _masked_product(cast_second, d, greater):
    """``d * (y > z)`` as one plan line reading ``d``, ``y`` and ``z`` directly."""
    y, z = greater.inputs
    if cast_second:
        return Inline("{mul}({0}, {gt}({1}, {2}))", [d, y, z], mul=np.multiply, gt=np.greater)
    return Inline("{mul}({gt}({1}, {2}), {0})", [d, y, z], mul=np.multiply, gt=np.greater)


def _mask_products(order, pinned, out):
    """``Mul(d, Cast(Greater(y, z)))`` (the ReLU gradient) as one ``multiply`` by the
    boolean mask: the ``Greater`` and ``Cast`` get no line of their own."""
    readers = _readers(order)
    for op in order:
        if op.type != "Mul" or op in out or not _floats(op):
            continue
        for k, c in enumerate(op.inputs):
            g = c.op
            if c.op.type != "Cast" or not _private(c, readers, pinned) or g in out:
                continue
            m = g.inputs[0]
            if m.op.type != "Greater" or not _private(m, readers, pinned) or m.op in out \
                    or op.inputs[1 - k].dtype != c.dtype:
                continue
            out[m.op], out[g] = elided, elided
            out[op] = _masked_product(k == 1, op.inputs[1 - k], m.op)
            break


def kernel_overrides(order, targets, feeds, ctx):
    """``{op: kernel}`` replacing the registry's kernels for some of the plan's ops."""
    if getattr(ctx, "precision_mode", None) in precision.FP16_MODES:
        return {}
    pinned = set(feeds)
    pinned.update(t for t in targets if not hasattr(t, "outputs"))
    out = {}
    _shared_patches(order, ctx, out)
    _paired_pools(order, ctx, out)
    _in_place_epilogues(order, pinned, out)
    _mask_products(order, pinned, out)
    return out
