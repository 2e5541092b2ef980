"""The graph of layers behind a functional ``tf.keras.Model(inputs, outputs)``.

``Network`` finds, from the outputs back to the inputs (through the layer calls each
tensor remembers), the layer calls in between, in the order they ran. Called on its own
inputs it returns its outputs; called on other tensors it replays those calls (the same
layers, so the same weights) on them. A subclass without ``inputs``/``outputs`` is a
subclassed model: its ``call`` is the user's and its layers are the ones set as
attributes.
"""
from estimator_npu.keras import backend
from estimator_npu.keras.engine.base_layer import Layer
from estimator_npu.utils import nest


def _history(t):
    h = backend.keras_history(t)
    if h is None:
        raise ValueError(f"Output tensors to a Model must be the output of a Keras `Layer` "
                         f"(thus holding past layer metadata); found: {t}")
    return h


def _nodes_between(inputs, outputs):
    """The layer calls (nodes) from ``inputs`` to ``outputs`` in the order they ran."""
    input_ids = {id(t) for t in inputs}
    order, seen = [], set()

    def visit(t):
        layer, index, _ = _history(t)
        node = layer._inbound_nodes[index]
        if id(node) in seen:
            return
        seen.add(id(node))
        if id(t) not in input_ids:
            for parent in nest.flatten(node.input_tensors):
                if backend.keras_history(parent) is not None and parent is not t:
                    visit(parent)
                elif id(parent) not in input_ids and parent is not t:
                    raise ValueError(f"Graph disconnected: cannot obtain value for tensor "
                                     f"{parent} at layer \"{layer.name}\". The model inputs "
                                     f"were: {list(inputs)}")
        order.append(node)

    for t in outputs:
        visit(t)
    return order


class Network(Layer):
    def __init__(self, *args, **kwargs):
        inputs = kwargs.pop("inputs", None)
        outputs = kwargs.pop("outputs", None)
        if len(args) == 2:
            inputs, outputs = args
        elif len(args) == 1:
            inputs = args[0]
        name = kwargs.pop("name", None)
        self._is_graph_network = inputs is not None and outputs is not None
        super().__init__(name=name, **{k: v for k, v in kwargs.items()
                                       if k in ("trainable", "dtype")})
        if self._is_graph_network:
            self._init_graph_network(inputs, outputs)

    def _init_graph_network(self, inputs, outputs):
        self._nested_inputs, self._nested_outputs = inputs, outputs
        self.inputs, self.outputs = list(nest.flatten(inputs)), list(nest.flatten(outputs))
        self._network_nodes = _nodes_between(self.inputs, self.outputs)
        layers = []
        for node in self._network_nodes:
            if all(node.layer is not seen for seen in layers):
                layers.append(node.layer)
        self._all_layers = layers
        for layer in layers:
            if all(layer is not s for s in self._sublayers):
                self._sublayers.append(layer)
        self.input_names = [_history(t)[0].name for t in self.inputs]
        self.output_names = [_history(t)[0].name for t in self.outputs]
        self.built = True
        self._is_graph_network = True

    @property
    def weights(self):
        """Layer by layer, each layer's weights (trainable then not), as Keras orders a
        model's weights (``get_weights``/``set_weights`` use this order)."""
        out, seen = [], set()
        for layer in self._sublayers:
            for w in layer.weights:
                if id(w) not in seen:
                    seen.add(id(w))
                    out.append(w)
        for w in self._trainable_weights + self._non_trainable_weights:
            if id(w) not in seen:
                seen.add(id(w))
                out.append(w)
        return out

    variables = weights

    @property
    def input(self):
        if getattr(self, "_nested_inputs", None) is not None:
            return self._nested_inputs
        return super().input

    @property
    def output(self):
        if getattr(self, "_nested_outputs", None) is not None:
            return self._nested_outputs
        return super().output

    @property
    def input_shape(self):
        if getattr(self, "_nested_inputs", None) is not None:
            return nest.map_structure(backend.int_shape, self._nested_inputs)
        return super().input_shape

    @property
    def output_shape(self):
        if getattr(self, "_nested_outputs", None) is not None:
            return nest.map_structure(backend.int_shape, self._nested_outputs)
        return super().output_shape

    def save(self, filepath, overwrite=True, include_optimizer=True, save_format=None):
        """Not implemented: whole-model files (HDF5 / SavedModel with the architecture)
        need the layers' configs; ``save_weights`` writes the weights."""
        raise NotImplementedError(
            f"estimator_npu does not implement tf.keras.Model.save ({filepath!r}) (yet): "
            f"use model.save_weights(path) and rebuild the model in code; docs/porting.md "
            f"lists what is supported")

    def to_json(self, **kwargs):
        raise NotImplementedError("estimator_npu does not implement tf.keras.Model.to_json "
                                  "(yet); docs/porting.md lists what is supported")

    @property
    def layers(self):
        if getattr(self, "_is_graph_network", False):
            return list(self._all_layers)
        return list(self._sublayers)

    def get_layer(self, name=None, index=None):
        layers = self.layers
        if index is not None:
            if index >= len(layers):
                raise ValueError(f"Was asked to retrieve layer at index {index} but model "
                                 f"only has {len(layers)} layers.")
            return layers[index]
        for layer in layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}")

    def build(self, input_shape):
        if self._is_graph_network:
            self.built = True
            return
        # a subclassed model builds its layers on the first call
        self.built = True

    def call(self, inputs, training=None, mask=None):
        if not self._is_graph_network:
            raise NotImplementedError("When subclassing the `Model` class, you should "
                                      "implement a `call` method.")
        flat = list(nest.flatten(inputs))
        if len(flat) == len(self.inputs) and all(a is b for a, b in zip(flat, self.inputs)):
            return self._nested_outputs
        if len(flat) != len(self.inputs):
            raise ValueError(f"Model {self.name} expects {len(self.inputs)} input(s), but "
                             f"it received {len(flat)} input tensors.")
        return self._replay(flat, training)

    def _replay(self, flat_inputs, training):
        mapped = {id(a): b for a, b in zip(self.inputs, flat_inputs)}
        for node in self._network_nodes:
            layer = node.layer
            if getattr(layer, "is_placeholder", False):
                continue
            args = nest.map_structure(lambda t: mapped.get(id(t), t), node.input_tensors)
            kwargs = dict(node.kwargs)
            if training is not None and "training" in kwargs:
                kwargs["training"] = training
            elif "training" in kwargs and not isinstance(kwargs["training"], bool):
                kwargs.pop("training")
            outs = layer(args, *node.args, **kwargs)
            for a, b in zip(nest.flatten(node.output_tensors), nest.flatten(outs)):
                mapped[id(a)] = b
        return nest.map_structure(lambda t: mapped[id(t)], self._nested_outputs)

    def _call_takes(self, arg):
        if self._is_graph_network:
            return False
        return super()._call_takes(arg)

    # ------------------------------------------------------------ weights files
    def save_weights(self, filepath, overwrite=True, save_format=None):
        """Writes the weights as a TF checkpoint at ``filepath`` (a prefix; an ``.h5`` /
        ``.hdf5`` name is written in the TF format too, under that name)."""
        from estimator_npu.keras.engine.saving import save_weights
        save_weights(self, filepath)

    def load_weights(self, filepath, by_name=False, skip_mismatch=False):
        from estimator_npu.keras.engine.saving import load_weights
        load_weights(self, filepath)

    def summary(self, line_length=None, positions=None, print_fn=None):
        from estimator_npu.keras.engine.summary import print_summary
        print_summary(self, line_length=line_length, print_fn=print_fn)

    def get_config(self):
        return {"name": self.name, "layers": [layer.get_config() for layer in self.layers]}

    @property
    def state_updates(self):
        return self.updates
