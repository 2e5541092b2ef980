"""A model's architecture as TF 2.15's Keras writes it (``model.get_config()``,
``to_json``, the ``model_config`` of an HDF5 file) and back (``from_config``,
``model_from_json``, ``load_model``).

A ``Sequential`` config is ``{"name", "layers": [{"class_name", "config"}, ...]}``, its
first entry the ``InputLayer`` (named ``<first layer>_input``) when the model has an input.
A functional model is ``"Functional"``: ``{"name", "trainable", "layers": [{"class_name",
"config", "name", "inbound_nodes"}], "input_layers", "output_layers"}``, where each inbound
node lists ``[layer_name, node_index, tensor_index, kwargs]`` per input tensor of one call.
Layer classes are found among ``tf.keras.layers`` and then ``custom_objects``.
"""
import json

from estimator_npu.keras import backend
from estimator_npu.utils import nest

KERAS_VERSION = "2.15.0"  # what TF 2.15 writes; files record it in keras_version
BACKEND = "tensorflow"


def layer_class_name(layer):
    from estimator_npu.keras.engine.sequential import Sequential
    from estimator_npu.keras.engine.network import Network
    if isinstance(layer, Sequential):
        return "Sequential"
    if isinstance(layer, Network) and layer._is_graph_network:
        return "Functional"
    return type(layer).__name__


def serialize_layer(layer):
    return {"class_name": layer_class_name(layer), "config": layer.get_config()}


def _json_value(v):
    """``v`` if it survives JSON (call kwargs such as ``training=True``), else None."""
    try:
        json.dumps(v)
        return True
    except (TypeError, ValueError):
        return False


# ------------------------------------------------------------------ get_config
def sequential_config(model):
    """A model built from data or ``build(shape)`` records ``build_input_shape`` instead
    of an ``InputLayer`` (as Keras does)."""
    layers = []
    deferred = getattr(model, "_build_input_shape", None)
    if model._input is not None and deferred is None:
        layers.append(serialize_layer(backend.keras_history(model._input)[0]))
    layers.extend(serialize_layer(layer) for layer in model.layers)
    config = {"name": model.name, "layers": layers}
    if deferred is not None:
        config["build_input_shape"] = deferred
    return config


def functional_config(model):
    nodes = {id(n) for n in model._network_nodes}

    def node_index(layer, node):
        """The index of ``node`` among ``layer``'s calls that belong to this model (from 1
        for a nested model: Keras counts its call on its own inputs as node 0)."""
        own = [n for n in layer._inbound_nodes if id(n) in nodes]
        return _first_node(layer) + next(i for i, n in enumerate(own) if n is node)

    def ref(t):
        layer, index, tensor_index = backend.keras_history(t)
        return [layer.name, node_index(layer, layer._inbound_nodes[index]), tensor_index]

    layers = []
    for layer in model.layers:
        inbound = []
        for node in layer._inbound_nodes:
            if id(node) not in nodes or getattr(layer, "is_placeholder", False):
                continue
            kwargs = {k: v for k, v in node.kwargs.items()
                      if not (k == "training" and not isinstance(v, bool))
                      and k != "mask" and _json_value(v)}
            inbound.append([ref(t) + [kwargs] for t in nest.flatten(node.input_tensors)])
        layers.append(dict(serialize_layer(layer), name=layer.name, inbound_nodes=inbound))
    return {"name": model.name, "trainable": model.trainable, "layers": layers,
            "input_layers": _refs(model, model._nested_inputs, ref),
            "output_layers": _refs(model, model._nested_outputs, ref)}


def _first_node(layer):
    from estimator_npu.keras.engine.network import Network
    return 1 if isinstance(layer, Network) and layer._is_graph_network else 0


def _refs(model, nested, ref):
    if isinstance(nested, (list, tuple)):
        return [ref(t) for t in nested]
    return [ref(nested)]


def model_json(model, **kwargs):
    config = {"class_name": layer_class_name(model), "config": model.get_config(),
              "keras_version": KERAS_VERSION, "backend": BACKEND}
    return json.dumps(config, default=_json_default, **kwargs)


def _json_default(o):
    if hasattr(o, "tolist"):
        return o.tolist()
    if hasattr(o, "as_list"):
        return o.as_list()
    raise TypeError(f"Not JSON Serializable: {o!r}")


# ------------------------------------------------------------------ from_config
_CUSTOM_OBJECTS = {}  # tf.keras.utils.get_custom_objects() / custom_object_scope


def get_custom_objects():
    """The global ``{name: class or function}`` that deserialization also looks in."""
    return _CUSTOM_OBJECTS


class CustomObjectScope:
    """``with custom_object_scope({'Scale': Scale}): load_model(...)``: the objects are
    known by name inside the block."""

    def __init__(self, *args):
        self.custom_objects, self._backup = args, None

    def __enter__(self):
        self._backup = dict(_CUSTOM_OBJECTS)
        for objects in self.custom_objects:
            _CUSTOM_OBJECTS.update(objects or {})
        return self

    def __exit__(self, *exc):
        _CUSTOM_OBJECTS.clear()
        _CUSTOM_OBJECTS.update(self._backup)
        return False


def custom_object_scope(*args):
    return CustomObjectScope(*args)


def with_custom_objects(custom_objects):
    """``custom_objects`` over the global ones."""
    return dict(_CUSTOM_OBJECTS, **(custom_objects or {}))


def layer_class(class_name, custom_objects=None):
    from estimator_npu.keras import layers as layers_mod
    from estimator_npu.keras.engine.sequential import Sequential
    from estimator_npu.keras.engine.training import Model
    custom_objects = with_custom_objects(custom_objects)
    if custom_objects and class_name in custom_objects:
        return custom_objects[class_name]
    if class_name == "Sequential":
        return Sequential
    if class_name in ("Functional", "Model"):
        return Model
    cls = getattr(layers_mod, class_name, None) if not class_name.startswith("_") else None
    if not isinstance(cls, type):
        raise ValueError(f"Unknown layer: '{class_name}'. Please ensure you are using a "
                         f"`keras.utils.custom_object_scope` and that this object is "
                         f"included in the scope (or pass it in custom_objects=).")
    return cls


def deserialize_layer(spec, custom_objects=None):
    cls = layer_class(spec["class_name"], custom_objects)
    config = spec["config"]
    from estimator_npu.keras.engine.network import Network
    if isinstance(cls, type) and issubclass(cls, Network):
        return cls.from_config(config, custom_objects=custom_objects)
    return _from_config(cls, config, custom_objects)


def _from_config(cls, config, custom_objects):
    import inspect
    try:
        takes = "custom_objects" in inspect.signature(cls.from_config).parameters
    except (TypeError, ValueError):
        takes = False
    return cls.from_config(config, custom_objects=custom_objects) if takes \
        else cls.from_config(dict(config))


def sequential_from_config(cls, config, custom_objects=None):
    if isinstance(config, list):  # Keras 2.0's layout: the list of layers only
        config = {"layers": config}
    model = cls(name=config.get("name"))
    for spec in config["layers"]:
        model.add(deserialize_layer(spec, custom_objects))
    shape = config.get("build_input_shape")
    if shape is not None and not model._is_graph_network:
        model.build(tuple(shape))
    return model


def functional_from_config(cls, config, custom_objects=None):
    made, outputs = {}, {}  # layer name -> layer; (name, node index) -> its outputs
    pending = []
    for spec in config["layers"]:
        layer = deserialize_layer({"class_name": spec["class_name"],
                                   "config": spec["config"]}, custom_objects)
        made[spec["name"]] = layer
        if spec["class_name"] == "InputLayer":
            outputs[(spec["name"], 0)] = [layer.input_tensor]
        else:
            pending.extend((spec["name"], i, node) for i, node in
                           enumerate(spec.get("inbound_nodes") or [], _first_node(layer)))
    while pending:
        later = []
        for name, index, node in pending:
            if not all((ref[0], ref[1]) in outputs for ref in node):
                later.append((name, index, node))
                continue
            args = [outputs[(ref[0], ref[1])][ref[2]] for ref in node]
            kwargs = node[0][3] if node and len(node[0]) > 3 else {}
            out = made[name](args[0] if len(args) == 1 else args, **(kwargs or {}))
            outputs[(name, index)] = list(nest.flatten(out))
        if len(later) == len(pending):
            names = sorted({p[0] for p in later})
            raise ValueError(f"from_config: the inbound layers of {names} are not in the "
                             f"config (is it a functional model's config?)")
        pending = later

    def tensors(refs):
        return [outputs[(r[0], r[1])][r[2]] for r in refs]

    ins, outs = tensors(config["input_layers"]), tensors(config["output_layers"])
    return cls(inputs=ins if len(ins) > 1 else ins[0],
               outputs=outs if len(outs) > 1 else outs[0], name=config.get("name"))


def model_from_config(config, custom_objects=None):
    """A model (or layer) from ``{'class_name', 'config'}``."""
    if isinstance(config, list):
        raise TypeError("`model_from_config` expects a dictionary, not a list. Maybe you "
                        "meant to use `Sequential.from_config(config)`?")
    return deserialize_layer(config, custom_objects)


def model_from_json(json_string, custom_objects=None):
    try:
        config = json.loads(json_string)
    except (TypeError, ValueError) as e:
        raise ValueError(f"model_from_json: expected the JSON string of model.to_json(), "
                         f"got {str(json_string)[:60]!r} ({e})") from None
    return model_from_config(config, custom_objects)


def model_from_yaml(yaml_string, custom_objects=None):
    raise RuntimeError("Method `model_from_yaml()` has been removed due to security risk of "
                       "arbitrary code execution. Please use `Model.to_json()` and "
                       "`model_from_json()` instead.")
