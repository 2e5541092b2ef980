"""``tf.keras.Sequential``: a linear stack of layers. With an input shape on its first
layer (``input_shape=``, or an ``InputLayer``) it is built at once on an ``Input``;
otherwise on the first ``fit``/``evaluate``/``predict`` (from the data's shape) or call."""
from estimator_npu.keras.engine.input_layer import Input, InputLayer
from estimator_npu.keras.engine.training import Model


class Sequential(Model):
    def __init__(self, layers=None, name=None):
        super().__init__(name=name)
        self._stack = []
        self._input = None
        self._build_input_shape = None  # set when built from data / build(): no InputLayer
        for layer in layers or []:
            self.add(layer)

    @property
    def layers(self):
        return [layer for layer in self._stack if not isinstance(layer, InputLayer)]

    def add(self, layer):
        if isinstance(layer, InputLayer):
            self._input = layer.input_tensor
            self._stack.append(layer)
            self._rebuild()
            return
        if hasattr(layer, "op") and not hasattr(layer, "_as_tensor"):  # an Input tensor
            self._input = layer
            return
        self._stack.append(layer)
        if all(layer is not s for s in self._sublayers):
            self._sublayers.append(layer)
        if self._input is None and getattr(layer, "_batch_input_shape", None) is not None \
                and len(self.layers) == 1:
            shape = layer._batch_input_shape
            # as Keras: named <layer>_input, of the layer's dtype (an Embedding's ids are
            # float32 there too, cast to int32 by the layer)
            self._input = Input(batch_shape=shape, dtype=layer.dtype,
                                name=layer.name + "_input")
            self._rebuild()
        elif self._input is not None:
            self._init_graph_network(self._input, layer(self.outputs[0] if
                                                        self._is_graph_network
                                                        else self._input))
            self._compiled_graph = None

    def pop(self):
        if not self.layers:
            raise TypeError("There are no layers in the model.")
        self._stack.pop()
        self._sublayers.pop()
        self._rebuild()

    def _rebuild(self):
        if self._input is None:
            return
        x = self._input
        for layer in self.layers:
            x = layer(x)
        self._init_graph_network(self._input, x)
        self._compiled_graph = None

    def _build_from(self, inputs):
        from estimator_npu.keras import backend
        self._input = inputs
        self._build_input_shape = tuple(backend.int_shape(inputs))
        self._rebuild()

    def build(self, input_shape=None):
        """``model.build((None, 784))``: builds the model on an input of that shape (a
        call on tensors builds through ``__call__`` as before)."""
        if isinstance(input_shape, (tuple, list)) and not self._is_graph_network:
            self._build_from(Input(batch_shape=tuple(input_shape)))
            return
        super().build(input_shape)

    def call(self, inputs, training=None, mask=None):
        if self._is_graph_network:
            return super().call(inputs, training=training, mask=mask)
        x = inputs
        for layer in self.layers:
            kwargs = {"training": training} if training is not None and \
                layer._call_takes("training") else {}
            x = layer(x, **kwargs)
        return x

    def _call_takes(self, arg):
        return False

    def get_config(self):
        from estimator_npu.keras.engine.model_config import sequential_config
        return sequential_config(self)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from estimator_npu.keras.engine.model_config import sequential_from_config
        return sequential_from_config(cls, config, custom_objects)

