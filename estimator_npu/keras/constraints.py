"""``tf.keras.constraints``: applied to a weight after each optimizer step of ``fit``."""
from estimator_npu.engine.ops import math_ops


class Constraint:
    def __call__(self, w):
        return w

    def get_config(self):
        return {}


class _Configured(Constraint):
    _keys = ()

    def get_config(self):
        return {k: getattr(self, k) for k in self._keys}


class MaxNorm(_Configured):
    _keys = ("max_value", "axis")

    def __init__(self, max_value=2, axis=0):
        self.max_value, self.axis = max_value, axis

    def __call__(self, w):
        norms = math_ops.sqrt(math_ops.reduce_sum(math_ops.square(w), self.axis,
                                                  keepdims=True))
        desired = math_ops.clip_by_value(norms, 0.0, float(self.max_value))
        return w * (desired / (1e-7 + norms))


class NonNeg(Constraint):
    def __call__(self, w):
        return w * math_ops.cast(math_ops.greater_equal(w, 0.0), w.dtype)


class UnitNorm(_Configured):
    _keys = ("axis",)

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        return w / (1e-7 + math_ops.sqrt(math_ops.reduce_sum(math_ops.square(w), self.axis,
                                                             keepdims=True)))


class MinMaxNorm(_Configured):
    _keys = ("min_value", "max_value", "rate", "axis")

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w):
        norms = math_ops.sqrt(math_ops.reduce_sum(math_ops.square(w), self.axis,
                                                  keepdims=True))
        desired = self.rate * math_ops.clip_by_value(norms, self.min_value, self.max_value) \
            + (1 - self.rate) * norms
        return w * (desired / (1e-7 + norms))


max_norm, non_neg, unit_norm, min_max_norm = MaxNorm, NonNeg, UnitNorm, MinMaxNorm
_BY_NAME = {"max_norm": MaxNorm, "non_neg": NonNeg, "unit_norm": UnitNorm,
            "min_max_norm": MinMaxNorm}


def get(identifier):
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, str) and identifier in _BY_NAME:
        return _BY_NAME[identifier]()
    if isinstance(identifier, dict):
        from estimator_npu.keras.backend import to_snake_case
        key = to_snake_case(identifier.get("class_name", ""))
        if key not in _BY_NAME:
            raise ValueError(f"Unknown constraint: {identifier.get('class_name')!r}; known: "
                             f"{sorted(_BY_NAME)}")
        return _BY_NAME[key](**(identifier.get("config") or {}))
    raise ValueError(f"Could not interpret constraint identifier: {identifier!r}")


def serialize(constraint):
    """``{'class_name': 'MaxNorm', 'config': {'max_value': 2, 'axis': 0}}``."""
    if constraint is None:
        return None
    return {"class_name": type(constraint).__name__, "config": constraint.get_config()}
