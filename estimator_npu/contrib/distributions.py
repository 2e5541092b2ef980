"""``tf.contrib.distributions``: only ``percentile`` (the sample statistic) so far; the
distribution classes raise "does not implement"."""
from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.engine import dtypes as _dtypes
from estimator_npu.engine.graph import name_scope as _name_scope
from estimator_npu.engine.ops import array_ops as _array_ops, math_ops as _math_ops
from estimator_npu.engine.ops.core import convert_to_tensor as _tensor
from estimator_npu.engine.ops.nn_extra_ops import top_k as _top_k
from estimator_npu.engine.ops.slice_ops import gather as _gather

_ROUNDING = {"nearest": _math_ops.round, "lower": _math_ops.ceil, "higher": _math_ops.floor}


def percentile(x, q, axis=None, interpolation=None, keep_dims=False, validate_args=False,
               name=None):
    """The ``q``-th percentile (scalar ``q`` in [0, 100]) of ``x`` over ``axis`` (all axes
    when ``None``), without interpolation: the sorted (descending) entry at
    ``round((n - 1) * (1 - q / 100))`` (``ceil`` for ``lower``, ``floor`` for ``higher``;
    ``round`` is half to even), as TF 1.x's contrib."""
    interpolation = interpolation or "nearest"
    if interpolation not in _ROUNDING:
        raise ValueError(f"percentile: interpolation must be one of {sorted(_ROUNDING)}, got "
                         f"{interpolation!r}")
    del validate_args
    with _name_scope(name or "percentile"):
        x = _tensor(x, name="x")
        nd = x.shape.ndims
        if axis is None:
            y = _array_ops.reshape(x, [-1])
            axes = list(range(nd)) if nd is not None else None
        else:
            if nd is None:
                raise ValueError("percentile: x must have a known rank when axis is given")
            axes = sorted({int(a) % nd for a in (axis if isinstance(axis, (list, tuple))
                                                 else [axis])})
            keep = [a for a in range(nd) if a not in axes]
            y = _array_ops.transpose(x, keep + axes)
            batch = [x.shape.values[a] for a in keep]
            if None in batch:
                lead = _array_ops.shape(y)[:len(keep)]
                y = _array_ops.reshape(y, _array_ops.concat([lead, [-1]], 0))
            else:
                y = _array_ops.reshape(y, batch + [-1])
        n = _array_ops.shape(y)[-1]
        frac = _math_ops.subtract(1.0, _math_ops.divide(
            _math_ops.cast(_tensor(q, name="q"), _dtypes.float64), 100.0))
        index = _ROUNDING[interpolation](_math_ops.multiply(
            _math_ops.subtract(_math_ops.cast(n, _dtypes.float64), 1.0), frac))
        index = _math_ops.clip_by_value(_math_ops.cast(index, _dtypes.int32), 0, n - 1)
        static_n = y.shape.values[-1] if y.shape.ndims is not None else None
        sorted_y = _top_k(y, k=static_n if static_n is not None else n).values
        result = _gather(sorted_y, index, axis=y.shape.ndims - 1)
        if keep_dims and axes is not None:
            shape = [1 if a in axes else x.shape.values[a] for a in range(nd)]
            if None in shape:
                dyn = _array_ops.shape(x)
                shape = _array_ops.stack([1 if a in axes else dyn[a] for a in range(nd)])
            result = _array_ops.reshape(result, shape)
        return result


__all__ = ["percentile"]
__getattr__ = _module_getattr(__name__)
