"""``tf.contrib``: the contrib modules TF1 scripts use that estimator_npu has.

Each ``tf.contrib.X`` is the module ``estimator_npu.contrib.X``, imported on first use; a
contrib module that is not there raises "estimator_npu does not implement tf.contrib.X
(yet)". ``tf.contrib.mixed_precision`` is ``estimator_npu.mixed_precision``.
"""
import importlib as _importlib

from estimator_npu.compat.missing import NotImplementedName as _NotImplementedName


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name == "mixed_precision":
        return _importlib.import_module("estimator_npu.mixed_precision")
    full = f"{__name__}.{name}"
    try:
        return _importlib.import_module(full)
    except ModuleNotFoundError as e:
        if e.name != full:
            raise
    raise _NotImplementedName(f"tf.contrib.{name}")
