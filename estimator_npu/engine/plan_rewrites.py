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
  An ``Add`` of such a result and a vector (``conv2d(x, w) + b``, either order) counts as a
  ``BiasAdd`` when, at run time, the vector runs along the last axis.
* **Pool before ReLU.** ``MaxPool(Relu(a))`` with ``a = BiasAdd(z, b)`` (NHWC, windows that
  do not overlap) where the plan reads the ``Relu`` only there and, for the gradient, in
  ``MaxPoolGrad(r, p, dp)`` and the ReLU gradient ``Mul(that, Cast(Greater(r, 0)))``:
  ReLU is non-decreasing, so the pool of ``Relu(a)`` is ``Relu`` of the pool of ``a``,
  computed on a quarter of the elements, and the ReLU gradient becomes ``dp * (p > 0)``
  before the pool gradient scatters it (the pool's first maximum of ``a`` and of
  ``Relu(a)`` are the same pixel wherever ``p > 0``; elsewhere both gradients are
  ``dp * 0``). The ``Relu``, ``Greater``, ``Cast`` and ``Mul`` lines pass their inputs on.
  Bit-identical, but for the sign of a zero pooled value when ``a`` holds an exact
  ``-0.0``.
* **Masked products.** The ReLU gradient ``Mul(dy, Cast(Greater(y, 0)))`` multiplies
  ``dy`` by the boolean mask directly (numpy converts it to 0/1 exactly as the ``Cast``
  did), in one plan line ``multiply(dy, greater(y, 0))``: the ``Greater`` and ``Cast``
  are elided (no line, no tuple, no lambda frame). One pass and one allocation fewer per
  ReLU.

Rewrites are skipped under the fp16 precision modes (their kernels round inputs and must
see them unchanged) and for dtypes other than float32/float64.
"""
import threading

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
        return _fast.relu(x, out=x)
    f = x.reshape(-1)
    threads.split(f.size, lambda s, e: _fast.relu(f[s:e], out=f[s:e]))
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


def _add_in_place(x, b):
    """``x + b`` into ``x`` where ``b`` is a vector along ``x``'s last axis (a bias written
    as ``conv2d(...) + b``); any other broadcast allocates as ``Add`` does."""
    if b.ndim == 1 and x.ndim >= 1 and b.shape[0] == x.shape[-1] and b.dtype == x.dtype:
        return _bias_add_in_place(x, b)
    return np.add(x, b)


def _fresh_private(x, readers, pinned):
    return x.op.type in _FRESH and _private(x, readers, pinned) and x.op.outputs[0] is x


# Small arrays of static shape: the plan line is the in-place numpy call itself (no
# Python frame, no size checks per run: 8.3 -> 1.6 us for a (8, 16) bias add).
_ADD_INTO = [Inline("{add}({0}, {1}, {%d})" % i, add=np.add) for i in (0, 1)]
_RELU_INTO = {dt: Inline("{maximum}({0}, {zero}, out={0})", maximum=np.maximum, zero=z)
              for dt, z in _fast.ZEROS_0D.items()}


def _small(x, y):
    """``y`` has ``x``'s static shape, with too few elements to thread or tile a bias."""
    n = y.shape.num_elements() if y.shape.is_fully_defined() else None
    return n is not None and 0 < n < _fast.TILE_MIN and x.shape.as_list() == y.shape.as_list()


def _in_place_epilogues(order, pinned, out):
    readers = _readers(order)
    for op in order:
        if op in out or not op.outputs or not _floats(op):
            continue
        x, y = op.inputs[:2], op.outputs[0]
        if op.type == "BiasAdd" and not op.attrs.get("nchw") and \
                _fresh_private(x[0], readers, pinned):
            out[op] = _ADD_INTO[0] if _small(x[0], y) else _bias_add_in_place
        elif op.type in ("Add", "AddV2") and x[1].shape.ndims == 1 and \
                _fresh_private(x[0], readers, pinned):
            out[op] = _ADD_INTO[0] if _small(x[0], y) else _add_in_place
        elif op.type in ("Add", "AddV2") and x[0].shape.ndims == 1 and \
                _fresh_private(x[1], readers, pinned):
            out[op] = _ADD_INTO[1] if _small(x[1], y) else lambda b, x: _add_in_place(x, b)
        else:
            continue
        nxt = readers.get(y, ())
        if _private(y, readers, pinned) and nxt[0].type == "Relu" and nxt[0] not in out:
            small = _small(y, nxt[0].outputs[0])
            out[nxt[0]] = _RELU_INTO[np.dtype(y.dtype.np)] if small else _relu_in_place


class _PooledPre(threading.local):
    """The pool ``q`` of the pre-activation ``a`` (for the paired ``MaxPoolGrad``)."""
    a = q = None


def _relu_gradient_of(pool_grad, r, readers, pinned):
    """``(Greater, Cast, Mul)`` of ``Mul(pool_grad, Cast(Greater(r, 0)))``, each read only
    there; else None."""
    g = pool_grad.outputs[0]
    mul = readers[g][0] if _private(g, readers, pinned) else None
    if mul is None or mul.type != "Mul" or mul.inputs[0] is mul.inputs[1]:
        return None
    c = mul.inputs[mul.inputs[0] is g]
    if c.op.type != "Cast" or c.dtype != g.dtype or not _private(c, readers, pinned):
        return None
    gt = c.op.inputs[0].op
    zero = gt.inputs[1].op if gt.type == "Greater" else gt
    if gt.type != "Greater" or gt.inputs[0] is not r or zero.type != "Const" or \
            np.shape(zero.attrs["value"]) != () or zero.attrs["value"] != 0 or \
            not _private(gt.outputs[0], readers, pinned):
        return None
    return gt, c.op, mul


def _pool_first(order, ctx, pinned, out):
    """``MaxPool(Relu(BiasAdd(z, b)))`` pools the pre-activation and applies ReLU to the
    pooled values; its gradient masks ``dp`` before the scatter (module docstring)."""
    from estimator_npu.engine.ops import pool_ops
    readers = _readers(order)
    for op in order:
        ks, st, r = op.attrs.get("ksize"), op.attrs.get("strides"), op.inputs[:1]
        if op.type != "MaxPool" or op in out or op.attrs["nchw"] or not _floats(op) or \
                st[0] < ks[0] or st[1] < ks[1] or r[0].op.type != "Relu" or r[0] in pinned:
            continue  # (overlapping windows sum gradients before the ReLU mask: not here)
        r, relu = r[0], r[0].op
        a = relu.inputs[0]
        if a.op.type != "BiasAdd" or a.op.attrs["nchw"] or not _private(a, readers, pinned):
            continue
        grads = [g for g in readers[r] if g.type == "MaxPoolGrad" and g.inputs[0] is r and
                 g.inputs[1] is op.outputs[0] and g.inputs[2] is not r and g.attrs == op.attrs]
        chains = [_relu_gradient_of(g, r, readers, pinned) for g in grads]
        if len(grads) > 1 or None in chains or sorted(map(id, readers[r])) != sorted(
                map(id, [op] + grads + [c[0] for c in chains])) or \
                any(o in out for o in [relu] + grads + [o for c in chains for o in c]):
            continue
        state, masks = _PooledPre(), pool_ops.PoolMasks() if grads else None
        pool, plain = pool_ops._max_pool_kernel(op, ctx, masks), pool_ops._max_pool_kernel(op, ctx)

        def max_pool_of_relu(a, pool=pool, state=state if grads else None):
            q = pool(a)
            if state is not None:  # for the gradient (a forward plan keeps nothing)
                state.a, state.q = a, q
            return _fast.relu(q)  # a new array: the gradient reads q
        out[relu], out[op] = _pass, max_pool_of_relu
        if grads:
            grad = pool_ops._max_pool_grad_kernel(grads[0], ctx, masks)

            def max_pool_grad_of_relu(a, p, dp, grad=grad, plain=plain, state=state):
                q = state.q if state.a is a else plain(a)
                state.a = state.q = None
                return grad(a, q, np.multiply(dp, np.greater(p, 0)))
            gt, cast, mul = chains[0]
            out[grads[0]], out[gt], out[cast] = max_pool_grad_of_relu, _pass_pair, _pass
            out[mul] = (lambda g, c: g) if mul.inputs[0] is grads[0].outputs[0] else \
                (lambda c, g: g)


def _pass_pair(a, b):
    return a, b


def _pass(a):
    return a


# the plan emits these as assignments (``t = a`` / ``t = (a, b, )``), not calls
_pass_pair.passes_inputs = _pass.passes_inputs = True


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
    _pool_first(order, ctx, pinned, out)
    _shared_patches(order, ctx, out)
    _paired_pools(order, ctx, out)
    _in_place_epilogues(order, pinned, out)
    _mask_products(order, pinned, out)
    return out
