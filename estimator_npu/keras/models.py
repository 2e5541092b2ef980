"""``tf.keras.models``: ``Model``, ``Sequential``, ``clone_model`` (same architecture,
new weights, for Sequential models), ``load_model`` / ``save_model`` (Keras's HDF5 files)
and ``model_from_json`` / ``model_from_config`` (the architecture as TF 2.15 writes it)."""
from estimator_npu.keras.engine import Input, Model, Sequential  # noqa: F401
from estimator_npu.keras.engine.model_config import (model_from_config,  # noqa: F401
                                                     model_from_json, model_from_yaml)
from estimator_npu.keras.engine.saving import load_model, save_model  # noqa: F401


def clone_model(model, input_tensors=None, clone_function=None):
    import copy
    clone_function = clone_function or (lambda layer: _fresh(layer, copy))
    if isinstance(model, Sequential):
        return Sequential([clone_function(layer) for layer in model.layers])
    raise NotImplementedError("clone_model: only Sequential models are implemented")


def _fresh(layer, copy):
    new = copy.copy(layer)
    object.__setattr__(new, "_sublayers", [])
    new.name = layer.name + "_clone"
    new.built, new._scope = False, None
    new._trainable_weights, new._non_trainable_weights = [], []
    new._updates, new._losses, new._constraints, new._inbound_nodes = [], [], [], []
    return new


from estimator_npu.compat.missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("estimator_npu.keras.models")
