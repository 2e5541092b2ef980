"""The ``training_config`` of a Keras HDF5 model file: what ``compile`` was given, as TF
2.15 writes it (``{"loss", "metrics", "loss_weights", "sample_weight_mode",
"weighted_metrics", "optimizer_config"}``), and ``compile`` again from it on load.

Losses and metrics given by name stay names; functions become their names; ``Loss`` /
metric objects become ``{"class_name", "config"}``. A ``tf.train`` optimizer passed to
``compile`` has no Keras config: as TF does, the model is saved without it (warned).
"""
from estimator_npu.keras import losses as losses_mod
from estimator_npu.keras import metrics as metrics_mod
from estimator_npu.keras import optimizers
from estimator_npu.utils import logging


def _serialize(obj):
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if isinstance(obj, dict):
        return {k: _serialize(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_serialize(v) for v in obj]
    if isinstance(obj, type):
        obj = obj()
    if hasattr(obj, "get_config"):
        return {"class_name": type(obj).__name__, "config": obj.get_config()}
    name = getattr(obj, "__name__", None)
    if name is None:
        raise ValueError(f"model.save: cannot serialize {obj!r} in the training config")
    return name


def training_config(model):
    if isinstance(model.optimizer, optimizers.TFOptimizerWrapper):
        logging.warning("TensorFlow optimizers do not make it possible to access optimizer "
                        "attributes or optimizer state after instantiation. As a result, "
                        "we cannot save the optimizer as part of the model save file. You "
                        "will have to compile your model again after loading it. Prefer "
                        "using a Keras optimizer instead (see keras.io/optimizers).")
        return None
    return {"loss": _serialize(model.loss), "metrics": _serialize(model._compile_metrics),
            "loss_weights": _serialize(model._loss_weights), "sample_weight_mode": None,
            "weighted_metrics": None,
            "optimizer_config": optimizers.serialize(model.optimizer)}


def _deserialize(obj, module, custom_objects):
    if isinstance(obj, list):
        return [_deserialize(v, module, custom_objects) for v in obj]
    if isinstance(obj, dict) and "class_name" not in obj:  # per output
        return {k: _deserialize(v, module, custom_objects) for k, v in obj.items()}
    if isinstance(obj, dict):
        name, config = obj["class_name"], dict(obj.get("config") or {})
        if custom_objects and name in custom_objects:
            return custom_objects[name](**config)
        cls = getattr(module, name, None)
        if isinstance(cls, type):
            config.pop("fn", None)
            try:
                return cls(**config)
            except TypeError:
                pass
        if config.get("name"):  # a metric class we lack: its function by name
            return config["name"]
        raise ValueError(f"load_model: unknown {module.__name__.split('.')[-1][:-1]} "
                         f"{name!r} in the training config; pass it in custom_objects=")
    if isinstance(obj, str) and custom_objects and obj in custom_objects:
        return custom_objects[obj]
    return obj


def compile_from(model, config, custom_objects=None):
    from estimator_npu.keras.engine.model_config import with_custom_objects
    custom_objects = with_custom_objects(custom_objects)
    opt = config["optimizer_config"]
    optimizer = optimizers.deserialize(opt, custom_objects)
    model.compile(optimizer=optimizer,
                  loss=_deserialize(config.get("loss"), losses_mod, custom_objects),
                  metrics=_deserialize(config.get("metrics") or [], metrics_mod,
                                       custom_objects),
                  loss_weights=config.get("loss_weights"))
