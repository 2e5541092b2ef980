"""Less common elementwise and scan math: ``div_no_nan``, ``cumsum`` / ``cumprod``,
``einsum`` and ``norm``, each with its gradient."""
import numpy as np

from estimator_npu.engine.ops import math_ops
from estimator_npu.engine.ops.core import broadcast_shape, convert_to_tensor, make_tensor
from estimator_npu.engine.registry import OpFamily, simple, with_attrs

OPS = OpFamily(__name__)  # this family's op definitions (data)


# ------------------------------------------------------------------ div_no_nan
def div_no_nan(x, y, name=None):
    """``x / y``, and 0 wherever ``y`` is 0 (even when ``x`` is 0, inf or nan)."""
    x, y = math_ops._pair(x, y, "DivNoNan")
    shape = broadcast_shape(x.shape, y.shape, "DivNoNan")
    return make_tensor("DivNoNan", [x, y], x.dtype, shape, name=name)


def _div_no_nan(x, y):
    zero = y == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.true_divide(x, np.where(zero, 1, y))
    return np.where(zero, np.zeros((), out.dtype), out).astype(np.result_type(x, y),
                                                                copy=False)


def _div_no_nan_grad(op, dy):
    x, y = op.inputs
    gx = div_no_nan(dy, y)
    gy = math_ops.negative(dy) * div_no_nan(op.outputs[0], y)
    return [math_ops.sum_to_like(gx, x), math_ops.sum_to_like(gy, y)]


OPS.define("DivNoNan", kernel=simple(_div_no_nan), grad=_div_no_nan_grad)


# ------------------------------------------------------------------ cumsum / cumprod
def _axis(x, axis, op_type):
    if not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{op_type}: axis must be a Python int, got {axis!r}")
    nd = x.shape.ndims
    axis = int(axis)
    if nd is not None:
        if not -nd <= axis < max(nd, 1):
            raise ValueError(f"{op_type}: axis {axis} is out of range for rank {nd}")
        axis %= max(nd, 1)
    return axis


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running sum along ``axis``; ``exclusive`` leaves out the current element,
    ``reverse`` runs from the end."""
    x = convert_to_tensor(x)
    attrs = {"axis": _axis(x, axis, "Cumsum"), "exclusive": bool(exclusive),
             "reverse": bool(reverse)}
    return make_tensor("Cumsum", [x], x.dtype, x.shape, attrs, name=name)


def _cumsum(x, axis, exclusive, reverse):
    v = np.flip(x, axis) if reverse else x
    out = np.cumsum(v, axis=axis, dtype=x.dtype)
    if exclusive:
        out = out - v
    return np.ascontiguousarray(np.flip(out, axis)) if reverse else out


OPS.define("Cumsum", kernel=with_attrs(_cumsum, "axis", "exclusive", "reverse"),
           grad=lambda op, dy: [cumsum(dy, op.attrs["axis"], op.attrs["exclusive"],
                                       not op.attrs["reverse"])])


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running product along ``axis`` (gradient via ``cumsum`` of ``dy * y`` over ``x``; the
    inputs must be non-zero for it)."""
    x = convert_to_tensor(x)
    attrs = {"axis": _axis(x, axis, "Cumprod"), "exclusive": bool(exclusive),
             "reverse": bool(reverse)}
    return make_tensor("Cumprod", [x], x.dtype, x.shape, attrs, name=name)


def _cumprod(x, axis, exclusive, reverse):
    v = np.flip(x, axis) if reverse else x
    out = np.cumprod(v, axis=axis, dtype=x.dtype)
    if exclusive:
        out = np.concatenate([np.ones_like(np.take(out, [0], axis=axis)),
                              np.take(out, np.arange(out.shape[axis] - 1), axis=axis)],
                             axis=axis)
    return np.ascontiguousarray(np.flip(out, axis)) if reverse else out


def _cumprod_grad(op, dy):
    x, y = op.inputs[0], op.outputs[0]
    a = op.attrs
    s = cumsum(dy * y, a["axis"], a["exclusive"], not a["reverse"])
    return [s / x]


OPS.define("Cumprod", kernel=with_attrs(_cumprod, "axis", "exclusive", "reverse"),
           grad=_cumprod_grad)


# ------------------------------------------------------------------ einsum
def _parse_einsum(equation, n):
    eq = equation.replace(" ", "")
    if "..." in eq:
        raise NotImplementedError(f"einsum: ellipsis ('...') is not supported: {equation!r}")
    if "->" in eq:
        lhs, out = eq.split("->")
    else:
        lhs = eq
        letters = lhs.replace(",", "")
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    ins = lhs.split(",")
    if len(ins) != n:
        raise ValueError(f"einsum: equation {equation!r} names {len(ins)} inputs, got {n}")
    return ins, out


def einsum(equation, *inputs, **kwargs):
    """``tf.einsum`` for one or two operands without ellipsis (the common forms:
    matmul, batch matmul, outer/inner products, transposes, traces-free reductions)."""
    name = kwargs.pop("name", None)
    xs = [convert_to_tensor(x) for x in inputs]
    ins, out = _parse_einsum(equation, len(xs))
    sizes = {}
    for spec, x in zip(ins, xs):
        if x.shape.ndims is not None:
            if x.shape.ndims != len(spec):
                raise ValueError(f"einsum: operand {x.name} of shape {x.shape} does not match "
                                 f"subscripts {spec!r} of {equation!r}")
            for c, d in zip(spec, x.shape.values):
                if d is not None:
                    sizes[c] = d
    shape = [sizes.get(c) for c in out]
    eq = ",".join(ins) + "->" + out
    return make_tensor("Einsum", xs, xs[0].dtype, shape, {"equation": eq}, name=name)


def _einsum_kernel(op, ctx):
    eq = op.attrs["equation"]
    return lambda *xs: np.asarray(np.einsum(eq, *xs, optimize=len(xs) > 1))


def _einsum_grad(op, dy):
    ins, out = op.attrs["equation"].split("->")
    ins = ins.split(",")
    grads = []
    for i, (spec, x) in enumerate(zip(ins, op.inputs)):
        others = [(s, t) for j, (s, t) in enumerate(zip(ins, op.inputs)) if j != i]
        present = set(out) | {c for s, _ in others for c in s}
        kept = "".join(c for c in dict.fromkeys(spec) if c in present)
        eq = ",".join([out] + [s for s, _ in others]) + "->" + kept
        g = make_tensor("Einsum", [dy] + [t for _, t in others], dy.dtype,
                        [None] * len(kept), {"equation": eq})
        if kept != spec:  # letters summed away by the forward pass: broadcast them back
            g = _einsum_expand(g, kept, spec, x)
        grads.append(g)
    return grads


def _einsum_expand(g, kept, spec, x):
    from estimator_npu.engine.ops import array_ops
    shape = [1 if c not in kept else None for c in spec]
    order = [c for c in spec if c in kept]
    if len(set(spec)) != len(spec):
        raise NotImplementedError("einsum gradient: repeated subscripts within one operand")
    if order != list(kept):
        g = array_ops.transpose(g, [kept.index(c) for c in order])
    for axis, d in enumerate(shape):
        if d == 1:
            g = array_ops.expand_dims(g, axis)
    return math_ops.broadcast_like(g, x)


OPS.define("Einsum", kernel=_einsum_kernel, grad=_einsum_grad)


# ------------------------------------------------------------------ norm
def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None,  # noqa: A002
         keep_dims=None):
    """Vector norms (``ord`` in ``euclidean``/2, 1, ``np.inf``) over ``axis`` (all elements
    when ``None``), and the Frobenius norm over a pair of axes."""
    x = convert_to_tensor(tensor)
    keep = bool(keepdims if keepdims is not None else keep_dims)
    if ord in ("euclidean", "fro", 2, 2.0):
        if ord == 2 and isinstance(axis, (list, tuple)) and len(axis) == 2:
            raise NotImplementedError("norm: the matrix 2-norm (ord=2 over two axes) is not "
                                      "supported")
        r = math_ops.sqrt(math_ops.reduce_sum(math_ops.square(x), axis=axis, keepdims=keep))
    elif ord in (1, 1.0):
        r = math_ops.reduce_sum(math_ops.abs(x), axis=axis, keepdims=keep)
    elif ord == np.inf:
        r = math_ops.reduce_max(math_ops.abs(x), axis=axis, keepdims=keep)
    else:
        raise ValueError(f"norm: ord must be 'euclidean', 'fro', 1, 2 or np.inf, got {ord!r}")
    if name:
        from estimator_npu.engine.ops.core import identity
        r = identity(r, name=name)
    return r

