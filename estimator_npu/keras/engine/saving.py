"""``Model.save`` / ``tf.keras.models.load_model`` and ``Model.save_weights`` /
``load_weights``.

An ``.h5`` / ``.hdf5`` name (or ``save_format='h5'``, or an open ``h5py.File``) means
Keras's HDF5 format as TF 2.15 writes it (``hdf5.py``). Any other weights path is a TF
checkpoint (the tensor-bundle format) under the keys TF 2.15's Keras writes,
``layer_with_weights-<i>/<attribute>/.ATTRIBUTES/VARIABLE_VALUE`` (``i`` counts the layers
that have weights, ``attribute`` is the weight's name in its layer: ``kernel``, ``bias``,
``gamma``, ``moving_mean``, ...); ``load_weights`` reads those keys, so it also reads a
checkpoint TF's ``save_weights`` wrote for the same architecture, and the older
estimator_npu layout keyed by variable name (``dense/kernel``). Not written there: TF's
``_CHECKPOINTABLE_OBJECT_GRAPH`` entry and the optimizer's slots.

The SavedModel format of ``model.save(dir)`` is not implemented: it says so and names
the HDF5 alternative.
"""
import os

from estimator_npu.keras import backend
from estimator_npu.keras.engine import hdf5
from estimator_npu.train.checkpoint_io import checkpoint_exists, latest_checkpoint, list_variables
from estimator_npu.train.saver import Saver

_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"


def _wants_h5(filepath, save_format):
    if save_format is not None:
        fmt = str(save_format).lower()
        if fmt in ("h5", "hdf5", "keras_h5"):
            return True
        if fmt not in ("tf", "tensorflow"):
            raise ValueError(f"Unknown format {save_format!r}: save_format must be 'h5' "
                             f"(HDF5) or 'tf'")
        return False
    return hdf5.is_h5_path(filepath) or type(filepath).__module__.startswith("h5py")


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


def save_weights(model, filepath, save_format=None):
    if _wants_h5(filepath, save_format):
        hdf5.save_weights(model, filepath)
        return
    filepath = os.fspath(filepath)
    parent = os.path.dirname(filepath)
    if parent:
        os.makedirs(parent, exist_ok=True)
    Saver(tf_keys(model), max_to_keep=None).save(backend.get_session(), filepath)


def _old_h5_named_checkpoint(filepath):
    """An ``.h5`` name that earlier estimator_npu versions wrote as a TF checkpoint."""
    if not isinstance(filepath, (str, os.PathLike)):
        return False
    path = os.fspath(filepath)
    return not os.path.exists(path) and checkpoint_exists(path)


def load_weights(model, filepath, by_name=False, skip_mismatch=False):
    if hdf5.is_h5_file(filepath) and not _old_h5_named_checkpoint(filepath):
        hdf5.load_weights(model, filepath, by_name=by_name, skip_mismatch=skip_mismatch)
        return
    if by_name:
        raise NotImplementedError("Weights may only be loaded based on topology into Models "
                                  "when loading TensorFlow-formatted weights (got "
                                  "by_name=True to load_weights).")
    filepath = os.fspath(filepath)
    path = filepath
    if os.path.isdir(path):
        path = latest_checkpoint(path)
    if path is None or not checkpoint_exists(path):
        raise ValueError(f"load_weights: {filepath!r} is not a checkpoint written by "
                         f"save_weights (no {filepath}.index) nor an HDF5 file")
    stored = {name for name, _ in list_variables(path)}
    keys = tf_keys(model)
    if not set(keys) <= stored:  # the older layout, keyed by variable name
        by_var = {v.op.name: v for v in model.weights}
        if set(by_var) <= stored:
            keys = by_var
        else:
            missing = sorted(set(keys) - stored)
            raise ValueError(f"load_weights: {filepath!r} does not hold this model's weights: "
                             f"missing {missing[:4]} (it has {sorted(stored)[:6]})")
    Saver(keys, max_to_keep=None).restore(backend.get_session(), path)


def _savedmodel_error(what, filepath):
    return NotImplementedError(
        f"estimator_npu does not implement {what} in the SavedModel format (yet) "
        f"({os.fspath(filepath)!r}): use the HDF5 format, a name ending in .h5 "
        f"(model.save('model.h5'), tf.keras.models.load_model('model.h5')) or "
        f"save_format='h5'; docs/porting.md lists what is supported")


def save_model(model, filepath, overwrite=True, include_optimizer=True, save_format=None,
               **kwargs):
    """``model.save``: HDF5 only (architecture, weights, training config, optimizer)."""
    if not _wants_h5(filepath, save_format):
        raise _savedmodel_error("tf.keras.Model.save", filepath)
    hdf5.save_model(model, filepath, overwrite=overwrite, include_optimizer=include_optimizer)


def load_model(filepath, custom_objects=None, compile=True, options=None, **kwargs):
    """``tf.keras.models.load_model`` of an HDF5 file ``model.save`` wrote (ours or TF's)."""
    if hdf5.is_h5_file(filepath):
        return hdf5.load_model(filepath, custom_objects=custom_objects, compile=compile)
    path = os.fspath(filepath)
    if os.path.isdir(path):
        raise _savedmodel_error("tf.keras.models.load_model", filepath)
    raise OSError(f"No file or directory found at {path}")
