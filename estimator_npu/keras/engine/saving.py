"""``Model.save_weights`` / ``load_weights``: the model's weights as a TF checkpoint (the
tensor-bundle format) under the keys TF 2.15's Keras writes,
``layer_with_weights-<i>/<attribute>/.ATTRIBUTES/VARIABLE_VALUE`` (``i`` counts the layers
that have weights, ``attribute`` is the weight's name in its layer: ``kernel``, ``bias``,
``gamma``, ``moving_mean``, ...).

``load_weights`` reads those keys, so it also reads a checkpoint TF's ``save_weights``
wrote for the same architecture, and the older estimator_npu layout keyed by variable name
(``dense/kernel``). Not written: TF's ``_CHECKPOINTABLE_OBJECT_GRAPH`` entry and the
optimizer's slots; HDF5 files (an ``.h5`` name gets a TF checkpoint, with a warning).
"""
import os

from estimator_npu.utils import logging
from estimator_npu.keras import backend
from estimator_npu.train.checkpoint_io import checkpoint_exists, latest_checkpoint, list_variables
from estimator_npu.train.saver import Saver

_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"


def _is_h5(path):
    return str(path).endswith((".h5", ".hdf5", ".keras"))


def tf_keys(model):
    """``{TF's object-based key: variable}`` for the model's weights."""
    keys, i = {}, 0
    for layer in model.layers:
        weights = layer.weights
        if not weights:
            continue
        for v in weights:
            attr = v.op.name.split("/")[-1]
            key = f"layer_with_weights-{i}/{attr}{_SUFFIX}"
            if key in keys:
                raise ValueError(f"save_weights: layer {layer.name} has two weights named "
                                 f"{attr!r}; cannot key them as TF does")
            keys[key] = v
        i += 1
    if not keys:
        raise ValueError(f"Model {model.name} has no weights to save or load (is it built?)")
    return keys


def save_weights(model, filepath):
    filepath = os.fspath(filepath)
    if _is_h5(filepath):
        logging.warning("save_weights(%r): HDF5 is not implemented; writing a TF checkpoint "
                        "with that prefix instead", filepath)
    parent = os.path.dirname(filepath)
    if parent:
        os.makedirs(parent, exist_ok=True)
    Saver(tf_keys(model), max_to_keep=None).save(backend.get_session(), filepath)


def load_weights(model, filepath):
    filepath = os.fspath(filepath)
    path = filepath
    if os.path.isdir(path):
        path = latest_checkpoint(path)
    if path is None or not checkpoint_exists(path):
        raise ValueError(f"load_weights: {filepath!r} is not a checkpoint written by "
                         f"save_weights (no {filepath}.index)")
    stored = {name for name, _ in list_variables(path)}
    keys = tf_keys(model)
    if not set(keys) <= stored:  # the older layout, keyed by variable name
        by_name = {v.op.name: v for v in model.weights}
        if set(by_name) <= stored:
            keys = by_name
        else:
            missing = sorted(set(keys) - stored)
            raise ValueError(f"load_weights: {filepath!r} does not hold this model's weights: "
                             f"missing {missing[:4]} (it has {sorted(stored)[:6]})")
    Saver(keys, max_to_keep=None).restore(backend.get_session(), path)
