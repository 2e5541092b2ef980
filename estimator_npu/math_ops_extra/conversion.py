"""``tf.register_tensor_conversion_function``: instances of a user class become tensors
wherever a tensor is expected (``convert_to_tensor``, every op's inputs), through the
engine's ``_as_tensor`` protocol: registering sets ``base_type._as_tensor`` to a method
that tries the functions registered for the instance's classes, lowest ``priority``
first (registration order among equals), skipping those that return ``NotImplemented``,
as TF does. tensorflow/benchmarks' ``StagedModelVariable`` registers one at import."""
import itertools
import numbers

import numpy as np

from estimator_npu.engine.graph import Tensor

_REGISTRY = {}  # class -> [(priority, order, function)]
_ORDER = itertools.count()
# TF refuses these: convert_to_tensor handles them itself
_BUILTIN = (numbers.Number, np.generic, np.ndarray, str, bytes, list, tuple, dict)


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """Registers ``conversion_func(value, dtype=None, name=None, as_ref=False)`` for
    instances of ``base_type`` (a class or a tuple of classes).

    Raises:
        TypeError: ``base_type`` is not a class (or tuple of classes), is a Python
            number / string / container or numpy type, or a built-in class that cannot
            take the hook; ``conversion_func`` is not callable.
    """
    classes = base_type if isinstance(base_type, tuple) else (base_type,)
    for c in classes:
        if not isinstance(c, type):
            raise TypeError("register_tensor_conversion_function: base_type must be a "
                            f"class or a tuple of classes, got {c!r}")
        if issubclass(c, _BUILTIN):
            raise TypeError("register_tensor_conversion_function: cannot register "
                            "conversions for Python numeric types, strings, containers "
                            f"and NumPy scalars and arrays (got {c.__name__})")
    if not callable(conversion_func):
        raise TypeError("register_tensor_conversion_function: conversion_func must be "
                        f"callable, got {conversion_func!r}")
    for c in classes:
        try:
            c._as_tensor = _convert
        except TypeError:
            raise TypeError("register_tensor_conversion_function: cannot register a "
                            f"conversion for the built-in class {c.__name__}") from None
        _REGISTRY.setdefault(c, []).append((int(priority), next(_ORDER), conversion_func))


def _convert(value):
    found = sorted(e for c in type(value).__mro__ for e in _REGISTRY.get(c, ()))
    for _, _, fn in found:
        out = fn(value, dtype=None, name=None, as_ref=False)
        if out is NotImplemented:
            continue
        if not isinstance(out, Tensor) and hasattr(out, "_as_tensor"):
            out = out._as_tensor()  # a Variable
        if not isinstance(out, Tensor):
            raise RuntimeError(f"Conversion function {fn!r} for type {type(value).__name__} "
                               f"returned non-Tensor: {out!r}")
        return out
    raise TypeError(f"Failed to convert object of type {type(value).__name__} to Tensor: "
                    "every conversion function registered for it returned NotImplemented")


__all__ = ["register_tensor_conversion_function"]
