"""``Model.save_weights`` / ``load_weights``: the model's weights as a TF checkpoint keyed
by the variables' names (``dense/kernel``, ...), written and read with ``tf.train.Saver``
in the Keras session.

TF's own Keras writes an object-based checkpoint (``layer_with_weights-0/kernel/...``);
those keys are not read here, and HDF5 files are not written: an ``.h5`` name gets a TF
checkpoint under that name (a warning says so).
"""
import os

from estimator_npu.utils import logging
from estimator_npu.keras import backend
from estimator_npu.train.checkpoint_io import checkpoint_exists, latest_checkpoint
from estimator_npu.train.saver import Saver


def _is_h5(path):
    return str(path).endswith((".h5", ".hdf5", ".keras"))


def _saver(model):
    weights = model.weights
    if not weights:
        raise ValueError(f"Model {model.name} has no weights to save or load (is it built?)")
    return Saver({v.op.name: v for v in weights}, max_to_keep=None)


def save_weights(model, filepath):
    filepath = os.fspath(filepath)
    if _is_h5(filepath):
        logging.warning("save_weights(%r): HDF5 is not implemented; writing a TF checkpoint "
                        "with that prefix instead", filepath)
    parent = os.path.dirname(filepath)
    if parent:
        os.makedirs(parent, exist_ok=True)
    _saver(model).save(backend.get_session(), filepath)


def load_weights(model, filepath):
    filepath = os.fspath(filepath)
    path = filepath
    if os.path.isdir(path):
        path = latest_checkpoint(path)
    if path is None or not checkpoint_exists(path):
        raise ValueError(f"load_weights: {filepath!r} is not a checkpoint written by "
                         f"save_weights (no {filepath}.index)")
    _saver(model).restore(backend.get_session(), path)
