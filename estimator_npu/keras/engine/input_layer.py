"""``tf.keras.Input`` / ``tf.keras.layers.InputLayer``: a placeholder (``input_1``,
``input_2``, ... as Keras names them) that a functional ``Model`` starts from."""
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.engine.ops.core import placeholder as _placeholder
from estimator_npu.keras import backend
from estimator_npu.keras.engine.base_layer import Layer, Node


class InputLayer(Layer):
    def __init__(self, input_shape=None, batch_size=None, dtype=None, input_tensor=None,
                 sparse=False, name=None, batch_input_shape=None, **kwargs):
        if name is None:  # Keras counts inputs from 1: input_1, input_2, ...
            name = f"input_{backend.get_uid('input')}"
        super().__init__(name=name, dtype=dtype, **kwargs)
        if batch_input_shape is None:
            batch_input_shape = (batch_size,) + tuple(input_shape or ())
        self._batch_input_shape = tuple(batch_input_shape)
        if input_tensor is None:
            input_tensor = _placeholder(self.dtype, list(batch_input_shape), name=self.name)
        else:
            input_tensor = convert_to_tensor(input_tensor)
        self.built = True
        self._scope = self.name
        self.is_placeholder = True
        node = Node(self, input_tensor, input_tensor, (), {})
        self._inbound_nodes.append(node)
        backend.set_keras_history(input_tensor, (self, 0, 0))
        self.input_tensor = input_tensor
        self.sparse = bool(sparse)

    def get_config(self):
        return {"batch_input_shape": self._batch_input_shape, "dtype": self.dtype,
                "sparse": self.sparse, "ragged": False, "name": self.name}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config.pop("ragged", None)
        return cls(**config)


def Input(shape=None, batch_size=None, name=None, dtype=None, sparse=False, tensor=None,
          batch_shape=None, **kwargs):
    """A Keras input tensor: ``Input(shape=(784,))`` is a ``[None, 784]`` placeholder."""
    if shape is None and batch_shape is None and tensor is None:
        raise ValueError("Please provide to Input either a `shape` or a `tensor` argument. "
                         "Note that `shape` does not include the batch dimension.")
    if isinstance(shape, int):
        shape = (shape,)
    if tensor is not None and shape is None and batch_shape is None:
        batch_shape = tuple(backend.int_shape(tensor))
    layer = InputLayer(input_shape=shape, batch_size=batch_size, name=name, dtype=dtype,
                       input_tensor=tensor, batch_input_shape=batch_shape)
    return layer.input_tensor
