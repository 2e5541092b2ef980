"""``tf.contrib.sparsemax``: ``sparsemax`` (Martins & Astudillo, 2016) and its loss.

``sparsemax(z)`` is the Euclidean projection of ``z`` (last axis) onto the probability
simplex: ``max(z - tau, 0)``, with ``tau`` chosen so that the result sums to 1. It is built
from ``top_k``, ``cumsum`` and elementwise ops, so its gradient is the composite's:
``diag(s) - s s^T / |S|`` on the support ``S``; the loss's gradient is ``sparsemax - labels``.
"""
from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.engine.graph import name_scope as _name_scope
from estimator_npu.engine.ops import array_ops as _array_ops, math_ops as _math_ops
from estimator_npu.engine.ops import reduction_ops as _red
from estimator_npu.engine.ops.core import convert_to_tensor as _tensor
from estimator_npu.engine.ops.math_extra_ops import cumsum as _cumsum
from estimator_npu.engine.ops.nn_extra_ops import top_k as _top_k


def _float_logits(logits, what):
    z = _tensor(logits, name="logits")
    if not z.dtype.is_floating:
        raise TypeError(f"{what}: logits must be a float tensor, got {z.dtype.name}")
    if z.shape.ndims == 0:
        raise ValueError(f"{what}: logits must be at least 1-D (classes on the last axis)")
    return z


def sparsemax(logits, name=None):
    """Sparsemax of ``logits`` along the last axis (same shape and dtype)."""
    with _name_scope(name or "sparsemax"):
        z = _float_logits(logits, "sparsemax")
        z = _math_ops.subtract(z, _red.reduce_mean(z, axis=-1, keepdims=True))
        n = z.shape.values[-1] if z.shape.ndims is not None else None
        if n is None:
            n = _array_ops.shape(z)[-1]
        z_sorted = _top_k(z, k=n).values
        ranks = _math_ops.cast(_array_ops.range(1, _math_ops.add(n, 1)), z.dtype)
        support = _math_ops.cast(
            _math_ops.greater(_math_ops.add(1.0, _math_ops.multiply(ranks, z_sorted)),
                              _cumsum(z_sorted, axis=-1)), z.dtype)
        k_z = _red.reduce_sum(support, axis=-1, keepdims=True)
        top_sum = _red.reduce_sum(_math_ops.multiply(support, z_sorted), axis=-1, keepdims=True)
        tau = _math_ops.divide(_math_ops.subtract(top_sum, 1.0), k_z)
        return _math_ops.maximum(_math_ops.subtract(z, tau), 0.0)


def sparsemax_loss(logits, sparsemax, labels, name=None):  # noqa: F811 (TF's argument name)
    """The sparsemax loss per row: ``sum(p * (z - p / 2)) - z . y + |y|^2 / 2``, with
    ``p = sparsemax`` (the sparsemax of ``logits``) and ``z`` the mean-shifted logits."""
    with _name_scope(name or "sparsemax_loss"):
        z = _float_logits(logits, "sparsemax_loss")
        p = _tensor(sparsemax, name="sparsemax")
        y = _math_ops.cast(_tensor(labels, name="labels"), z.dtype)
        z = _math_ops.subtract(z, _red.reduce_mean(z, axis=-1, keepdims=True))
        p_term = _math_ops.multiply(p, _math_ops.subtract(z, _math_ops.multiply(p, 0.5)))
        y_term = _math_ops.subtract(_math_ops.multiply(0.5, _math_ops.square(y)),
                                    _math_ops.multiply(z, y))
        return _red.reduce_sum(_math_ops.add(p_term, y_term), axis=-1)


__all__ = ["sparsemax", "sparsemax_loss"]
__getattr__ = _module_getattr(__name__)
