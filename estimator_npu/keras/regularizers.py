"""``tf.keras.regularizers``: ``l1``, ``l2``, ``l1_l2`` (``L1L2``); the penalty of a
weight goes to its layer's ``losses`` (Keras does not use ``REGULARIZATION_LOSSES``)."""
from estimator_npu.engine.ops import math_ops


class Regularizer:
    def __call__(self, x):
        return 0.0

    def get_config(self):
        return {}


class L1L2(Regularizer):
    def __init__(self, l1=0.0, l2=0.0):
        self.l1, self.l2 = float(l1), float(l2)

    def __call__(self, x):
        terms = []
        if self.l1:
            terms.append(self.l1 * math_ops.reduce_sum(math_ops.abs(x)))
        if self.l2:
            terms.append(self.l2 * math_ops.reduce_sum(math_ops.square(x)))
        if not terms:
            return None
        return terms[0] if len(terms) == 1 else terms[0] + terms[1]

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


def l1(l=0.01):  # noqa: E741 - Keras's argument name
    r = L1L2(l1=l)
    r._keras_name = "L1"
    return r


def l2(l=0.01):  # noqa: E741
    r = L1L2(l2=l)
    r._keras_name = "L2"
    return r


def l1_l2(l1=0.01, l2=0.01):  # noqa: F811
    return L1L2(l1=l1, l2=l2)


L1 = l1
L2 = l2


def get(identifier):
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, str) and identifier in ("l1", "l2", "l1_l2"):
        return {"l1": l1, "l2": l2, "l1_l2": l1_l2}[identifier]()
    if isinstance(identifier, dict):
        name, config = identifier.get("class_name"), dict(identifier.get("config") or {})
        if name not in ("L1", "L2", "L1L2", "l1", "l2", "l1_l2"):
            raise ValueError(f"Unknown regularizer: {name!r}; known: L1, L2, L1L2")
        r = L1L2(**config)
        if name in ("L1", "L2"):
            r._keras_name = name
        return r
    raise ValueError(f"Could not interpret regularizer identifier: {identifier!r}")


def _f32(x):
    import numpy as np
    return float(np.float32(x))


def serialize(regularizer):
    """TF 2.15's ``{'class_name': 'L2', 'config': {'l2': ...}}`` (factors as float32, as
    Keras stores them)."""
    if regularizer is None:
        return None
    name = getattr(regularizer, "_keras_name", None) or type(regularizer).__name__
    if name == "L1":
        return {"class_name": "L1", "config": {"l1": _f32(regularizer.l1)}}
    if name == "L2":
        return {"class_name": "L2", "config": {"l2": _f32(regularizer.l2)}}
    if isinstance(regularizer, L1L2):
        return {"class_name": "L1L2", "config": {"l1": _f32(regularizer.l1),
                                                 "l2": _f32(regularizer.l2)}}
    return {"class_name": name, "config": regularizer.get_config()}
