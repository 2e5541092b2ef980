"""Keras's HDF5 files, laid out as TF 2.15's ``tf.keras`` (graph mode) writes them.

A weights file (``save_weights('w.h5')``) has, at its root, the attributes
``layer_names`` (every layer of ``model.layers``), ``backend`` and ``keras_version``, and a
group per layer whose ``weight_names`` attribute lists its weights (``dense/kernel:0``,
...) in ``trainable_weights + non_trainable_weights`` order; each weight is a dataset at
``<layer>/<weight name>`` (so ``dense/dense/kernel:0``), and ``top_level_model_weights``
holds the model's own weights. A model file (``model.save('m.h5')``) has the same under
``model_weights``, and as root attributes ``model_config`` (the architecture's JSON),
``training_config`` (the ``compile`` arguments and the optimizer's config), ``backend``
and ``keras_version``; ``optimizer_weights`` holds the optimizer's state
(``training/Adam/iter:0``, ``training/Adam/dense/kernel/m:0``, ...).

Strings are stored as TF's Keras stores them: variable-length, ASCII for the byte strings
it encodes itself (name lists, the JSON configs), UTF-8 for the root ``backend`` /
``keras_version`` of a model file. h5py is an optional extra (``pip install
estimator-npu[h5]``).
"""
import json
import os

import numpy as np

from estimator_npu.keras import backend
from estimator_npu.keras.engine import model_config
from estimator_npu.utils import logging


def h5py():
    try:
        import h5py as module
    except ImportError:
        raise ImportError("Keras HDF5 files (model.save('m.h5'), save_weights('w.h5'), "
                          "load_model, load_weights of an .h5 file) need h5py, which is not "
                          "installed: pip install 'estimator-npu[h5]' (or pip install "
                          "h5py)") from None
    return module


def is_h5_path(path):
    return str(path).endswith((".h5", ".hdf5"))


def is_h5_file(obj):
    if type(obj).__module__.startswith("h5py"):
        return True
    path = os.fspath(obj) if isinstance(obj, (str, os.PathLike)) else None
    if path is None:
        return False
    if is_h5_path(path):
        return True
    if os.path.isfile(path):
        with open(path, "rb") as f:
            return f.read(8) == b"\x89HDF\r\n\x1a\n"
    return False


# ------------------------------------------------------------------ strings
def _names_attr(names):
    """A list of names as Keras writes it: variable-length ASCII strings (an empty list
    is an empty float64 array, as ``np.asarray([])`` gives)."""
    if not names:
        return np.asarray([])
    return np.array([n.encode("utf8") for n in names], dtype=h5py().string_dtype("ascii"))


def _text(value):
    return value.decode("utf8") if isinstance(value, bytes) else str(value)


def _names(attrs, name):
    """The list attribute ``name`` (Keras splits long ones into ``name0``, ``name1``...)."""
    if name in attrs:
        return [_text(n) for n in attrs[name]]
    out, i = [], 0
    while f"{name}{i}" in attrs:
        out.extend(_text(n) for n in attrs[f"{name}{i}"])
        i += 1
    return out


# ------------------------------------------------------------------ weights
def _layer_weights(layer):
    return list(layer.trainable_weights) + list(layer.non_trainable_weights)


def _top_level_weights(model):
    return list(model._trainable_weights) + list(model._non_trainable_weights)


def _write_weights(group, names, values):
    group.attrs["weight_names"] = _names_attr(names)
    for name, value in zip(names, values):
        value = np.asarray(value)
        ds = group.create_dataset(name, value.shape, dtype=value.dtype)
        ds[()] = value


def save_weights_to_group(group, model):
    layers = model.layers
    group.attrs["layer_names"] = _names_attr([layer.name for layer in layers])
    group.attrs["backend"] = model_config.BACKEND.encode("utf8")
    group.attrs["keras_version"] = model_config.KERAS_VERSION.encode("utf8")
    session = backend.get_session()
    for layer in layers:
        weights = _layer_weights(layer)
        _write_weights(group.create_group(layer.name), [w.name for w in weights],
                       session.run(weights) if weights else [])
    top = _top_level_weights(model)
    _write_weights(group.create_group("top_level_model_weights"), [w.name for w in top],
                   session.run(top) if top else [])


def _read(group, layer_name):
    g = group[layer_name]
    return [np.asarray(g[n]) for n in _names(g.attrs, "weight_names")]


def _check_shapes(layer, params, values, where):
    for p, v in zip(params, values):
        want = tuple(p.shape.as_list())
        if want != tuple(v.shape):
            raise ValueError(f"{where}: shape mismatch in layer {layer.name!r} for weight "
                             f"{p.name}: the model has {want}, the file {tuple(v.shape)}")


def load_weights_from_group(group, model, where):
    """By topology: the layers with weights, in order, against the file's layers with
    weights, in order (TF's checks and messages)."""
    layers = [layer for layer in model.layers if _layer_weights(layer)]
    names = [n for n in _names(group.attrs, "layer_names")
             if _names(group[n].attrs, "weight_names")]
    if len(names) != len(layers):
        raise ValueError(f"Layer count mismatch when loading weights from file. Model "
                         f"expected {len(layers)} layers, found {len(names)} saved layers.")
    pairs = []
    for k, (name, layer) in enumerate(zip(names, layers)):
        values, params = _read(group, name), _layer_weights(layer)
        if len(values) != len(params):
            raise ValueError(f"Weight count mismatch for layer #{k} (named {layer.name} in "
                             f"the current model, {name} in the save file). Layer expects "
                             f"{len(params)} weight(s). Received {len(values)} saved "
                             f"weight(s)")
        _check_shapes(layer, params, values, where)
        pairs.extend(zip(params, values))
    top = _top_level_weights(model)
    if "top_level_model_weights" in group and top:
        values = _read(group, "top_level_model_weights")
        if len(values) != len(top):
            raise ValueError(f"Weight count mismatch for top-level weights when loading "
                             f"weights from file. Model expects {len(top)} top-level "
                             f"weight(s). Received {len(values)} saved top-level weight(s)")
        pairs.extend(zip(top, values))
    backend.batch_set_value(pairs)


def load_weights_by_name(group, model, skip_mismatch, where):
    """Each layer of the file into the model's layers of the same name; with
    ``skip_mismatch`` a layer whose weight count or shapes differ is skipped (warned)."""
    by_name = {}
    for layer in model.layers:
        by_name.setdefault(layer.name, []).append(layer)
    pairs = []
    for k, name in enumerate(_names(group.attrs, "layer_names")):
        values = _read(group, name)
        for layer in by_name.get(name, []):
            params = _layer_weights(layer)
            if len(params) != len(values):
                msg = (f"Weight count mismatch for layer #{k} (named {layer.name}). Layer "
                       f"expects {len(params)} weight(s). Received {len(values)} saved "
                       f"weight(s)")
                if skip_mismatch:
                    logging.warning("Skipping loading of weights for layer #%d (named %s) "
                                    "due to mismatch in number of weights. %s", k,
                                    layer.name, msg)
                    continue
                raise ValueError(msg)
            bad = [(p, v) for p, v in zip(params, values)
                   if tuple(p.shape.as_list()) != tuple(v.shape)]
            if bad and skip_mismatch:
                logging.warning("Skipping loading weights for layer #%d (named %s) due to "
                                "mismatch in shape for weight %s. Weight expects shape %s. "
                                "Received saved weight with shape %s", k, layer.name,
                                bad[0][0].name, tuple(bad[0][0].shape.as_list()),
                                tuple(bad[0][1].shape))
                continue
            _check_shapes(layer, params, values, where)
            pairs.extend(zip(params, values))
    backend.batch_set_value(pairs)


def _open(filepath, mode):
    if type(filepath).__module__.startswith("h5py"):
        return _Borrowed(filepath)
    path = os.fspath(filepath)
    if mode == "w":
        parent = os.path.dirname(path)
        if parent:
            os.makedirs(parent, exist_ok=True)
    elif not os.path.isfile(path):
        raise OSError(f"No file or directory found at {path}")
    return h5py().File(path, mode)


class _Borrowed:
    """An open ``h5py.File`` the caller passed: used, not closed."""

    def __init__(self, f):
        self.f = f

    def __enter__(self):
        return self.f

    def __exit__(self, *exc):
        return False


def save_weights(model, filepath):
    with _open(filepath, "w") as f:
        save_weights_to_group(f, model)


def load_weights(model, filepath, by_name=False, skip_mismatch=False):
    if skip_mismatch and not by_name:
        raise ValueError("When calling model.load_weights, skip_mismatch can only be set to "
                         "True when by_name is True.")
    where = f"load_weights({filepath!r})"
    with _open(filepath, "r") as f:
        group = f
        if "layer_names" not in f.attrs and "model_weights" in f:
            group = f["model_weights"]
        if by_name:
            load_weights_by_name(group, model, skip_mismatch, where)
        else:
            load_weights_from_group(group, model, where)


# ------------------------------------------------------------------ whole models
def save_model(model, filepath, overwrite=True, include_optimizer=True):
    from estimator_npu.keras.engine.training_config import training_config
    if isinstance(filepath, (str, os.PathLike)) and not overwrite and \
            os.path.exists(os.fspath(filepath)):
        raise FileExistsError(f"model.save({os.fspath(filepath)!r}, overwrite=False): the "
                              f"file exists")
    from estimator_npu.keras.engine.sequential import Sequential
    if not (isinstance(model, Sequential) or model._is_graph_network):
        raise NotImplementedError(
            "Saving the model to HDF5 format requires the model to be a Functional model "
            "or a Sequential model. It does not work for subclassed models, because such "
            "models are defined via the body of a Python method, which isn't safely "
            "serializable. Use model.save_weights('w.h5') and rebuild the model in code.")
    architecture = {"class_name": model_config.layer_class_name(model),
                    "config": model.get_config()}
    with _open(filepath, "w") as f:
        f.attrs["keras_version"] = model_config.KERAS_VERSION
        f.attrs["backend"] = model_config.BACKEND
        f.attrs["model_config"] = json.dumps(
            architecture, default=model_config._json_default).encode("utf8")
        save_weights_to_group(f.create_group("model_weights"), model)
        optimizer = getattr(model, "optimizer", None)
        if not include_optimizer or optimizer is None:
            return
        config = training_config(model)
        if config is None:
            return
        f.attrs["training_config"] = json.dumps(
            config, default=model_config._json_default).encode("utf8")
        named = optimizer.named_weights()
        if named:
            values = optimizer.get_weights()
            _write_weights(f.create_group("optimizer_weights"), [n for n, _ in named],
                           values)


def load_model(filepath, custom_objects=None, compile=True):
    from estimator_npu.keras.engine.training_config import compile_from
    with _open(filepath, "r") as f:
        raw = f.attrs.get("model_config")
        if raw is None:
            raise ValueError(f"No model config found in the file at {filepath}: it is a "
                             f"weights file (save_weights); build the model and call "
                             f"load_weights")
        model = model_config.model_from_config(json.loads(_text(raw)), custom_objects)
        load_weights_from_group(f["model_weights"], model, f"load_model({filepath!r})")
        if not compile:
            return model
        raw = f.attrs.get("training_config")
        if raw is None:
            logging.warning("No training configuration found in the save file, so the "
                            "model was *not* compiled. Compile it manually.")
            return model
        compile_from(model, json.loads(_text(raw)), custom_objects)
        if "optimizer_weights" in f:
            g = f["optimizer_weights"]
            values = [np.asarray(g[n]) for n in _names(g.attrs, "weight_names")]
            model._compiled().train_op  # builds the optimizer's slots
            try:
                model.optimizer.set_weights(values)
            except ValueError as e:
                logging.warning("Error in loading the saved optimizer state. As a result, "
                                "your model is starting with a freshly initialized "
                                "optimizer. (%s)", e)
    return model
