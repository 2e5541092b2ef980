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


def _fed_by(update, own_inputs, clean):
    """False when ``update`` depends on a Keras ``Input`` placeholder that is not one of
    ``own_inputs`` (op ids); ``clean`` (op ids known not to) is shared between calls."""
    op = update if not hasattr(update, "op") else update.op
    stack, seen = [op], set()
    while stack:
        op = stack.pop()
        if id(op) in seen or id(op) in clean:
            continue
        seen.add(id(op))
        if op.type == "Placeholder" and id(op) not in own_inputs and op.outputs:
            history = backend.keras_history(op.outputs[0])
            if history is not None and getattr(history[0], "is_placeholder", False):
                return False
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    clean.update(seen)
    return True


def _layers_by_depth(nodes):
    """The layers of ``nodes`` (in the order they ran) as Keras orders a functional
    model's ``layers``: deepest first (depth = the longest path to an output), layers of
    the same depth in the order they were first reached."""
    index_of = {id(n): i for i, n in enumerate(nodes)}
    node_depth, layer_depth, first = {}, {}, {}
    for node in nodes:
        first.setdefault(id(node.layer), (len(first), node.layer))
    for node in reversed(nodes):
        depth = max(node_depth.get(id(node), 0), layer_depth.get(id(node.layer), 0))
        layer_depth[id(node.layer)] = depth
        node_depth[id(node)] = depth
        for parent in nest.flatten(node.input_tensors):
            h = backend.keras_history(parent)
            if h is None:
                continue
            pnode = h[0]._inbound_nodes[h[1]]
            if id(pnode) in index_of and pnode is not node:
                node_depth[id(pnode)] = max(depth + 1, node_depth.get(id(pnode), 0))
    order = sorted(first.values(), key=lambda p: (-layer_depth[id(p[1])], p[0]))
    return [layer for _, layer in order]


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
        layers = _layers_by_depth(self._network_nodes)
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
    def updates(self):
        """The layers' updates that this model's inputs feed: a layer also used elsewhere
        (a nested model's layers, built first on its own ``Input``) keeps updates of those
        other calls, which Keras leaves out (``get_updates_for`` its inputs)."""
        updates = super().updates
        if not self._is_graph_network:
            return updates
        own, clean = {id(t.op) for t in self.inputs}, set()
        return [u for u in updates if _fed_by(u, own, clean)]

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

    def save(self, filepath, overwrite=True, include_optimizer=True, save_format=None,
             signatures=None, options=None, save_traces=True):
        """The whole model as Keras's HDF5 file (``.h5`` / ``.hdf5`` or
        ``save_format='h5'``): architecture, weights, training config and optimizer state;
        ``tf.keras.models.load_model`` reads it back (TF 2.15 reads it too)."""
        from estimator_npu.keras.engine.saving import save_model
        save_model(self, filepath, overwrite, include_optimizer, save_format)

    def to_json(self, **kwargs):
        """The architecture as TF 2.15's JSON (``model_from_json`` reads it back)."""
        from estimator_npu.keras.engine.model_config import model_json
        return model_json(self, **kwargs)

    def to_yaml(self, **kwargs):
        raise RuntimeError("Method `model.to_yaml()` has been removed due to security risk "
                           "of arbitrary code execution. Please use `model.to_json()` "
                           "instead.")

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
    def save_weights(self, filepath, overwrite=True, save_format=None, options=None):
        """The weights as Keras's HDF5 file (an ``.h5`` / ``.hdf5`` name or
        ``save_format='h5'``), else as a TF checkpoint with prefix ``filepath``."""
        from estimator_npu.keras.engine.saving import save_weights
        save_weights(self, filepath, save_format)

    def load_weights(self, filepath, by_name=False, skip_mismatch=False, options=None):
        """From an HDF5 file (by topology, or ``by_name`` with ``skip_mismatch``) or a TF
        checkpoint (by topology)."""
        from estimator_npu.keras.engine.saving import load_weights
        load_weights(self, filepath, by_name=by_name, skip_mismatch=skip_mismatch)

    def summary(self, line_length=None, positions=None, print_fn=None):
        from estimator_npu.keras.engine.summary import print_summary
        print_summary(self, line_length=line_length, print_fn=print_fn)

    def get_config(self):
        if not self._is_graph_network:
            raise NotImplementedError(
                f"Model {self.name!r} is a subclassed model: its architecture is Python "
                f"code, so it has no config (TF raises too); use save_weights, or override "
                f"get_config/from_config")
        from estimator_npu.keras.engine.model_config import functional_config
        return functional_config(self)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from estimator_npu.keras.engine.model_config import functional_from_config
        return functional_from_config(cls, config, custom_objects)

    @property
    def state_updates(self):
        return self.updates
