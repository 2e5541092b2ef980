"""``tf.keras`` in TF1 graph mode: layers usable on tensors in graph code and model_fns,
``Sequential`` / functional / subclassed ``Model`` with ``compile``/``fit``/``evaluate``/
``predict``, optimizers, losses, metrics, callbacks, ``backend`` and
``estimator.model_to_estimator``; ``datasets`` loads locally cached data sets. Any other
``tf.keras`` name raises "estimator_npu does not implement tf.keras.X (yet)"."""
from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.keras import (activations, backend, callbacks, constraints,  # noqa: F401
                                 datasets, initializers, layers, losses, metrics, optimizers,
                                 preprocessing, regularizers, utils)
from estimator_npu.keras import estimator, models  # noqa: F401
from estimator_npu.keras.engine import Input, Model, Sequential  # noqa: F401

__getattr__ = _module_getattr("estimator_npu.keras")
__all__ = ["datasets", "estimator", "layers", "models", "Model", "Sequential", "Input", "backend",
           "optimizers", "losses", "metrics", "callbacks", "initializers", "regularizers",
           "activations", "constraints", "utils", "preprocessing"]
