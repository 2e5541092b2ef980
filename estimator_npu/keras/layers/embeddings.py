"""``tf.keras.layers.Embedding``: ``embedding/embeddings [input_dim, output_dim]``
(initializer ``uniform``: U(-0.05, 0.05)), looked up with integer ids."""
from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.keras import constraints, initializers, regularizers
from estimator_npu.keras.engine.base_layer import Layer


class Embedding(Layer):
    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform",
                 embeddings_regularizer=None, activity_regularizer=None,
                 embeddings_constraint=None, mask_zero=False, input_length=None, **kwargs):
        if input_length is not None and "input_shape" not in kwargs:
            kwargs["input_shape"] = (input_length,) if isinstance(input_length, int) \
                else tuple(input_length)
        if "input_shape" not in kwargs and "batch_input_shape" not in kwargs:
            kwargs["input_shape"] = (None,)  # as Keras: a [batch, steps] input of ids
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        init = "random_uniform" if embeddings_initializer == "uniform" \
            else embeddings_initializer
        self._init = initializers.get(init)
        self._reg = regularizers.get(embeddings_regularizer)
        self._cons = constraints.get(embeddings_constraint)
        self.mask_zero, self.input_length = mask_zero, input_length

    def get_config(self):
        return dict(super().get_config(), input_dim=self.input_dim,
                    output_dim=self.output_dim,
                    embeddings_initializer=initializers.serialize(self._init),
                    embeddings_regularizer=regularizers.serialize(self._reg),
                    activity_regularizer=regularizers.serialize(self.activity_regularizer),
                    embeddings_constraint=constraints.serialize(self._cons),
                    mask_zero=self.mask_zero, input_length=self.input_length)

    def build(self, input_shape):
        self.embeddings = self.add_weight("embeddings", [self.input_dim, self.output_dim],
                                          initializer=self._init, regularizer=self._reg,
                                          constraint=self._cons)

    def call(self, inputs):
        ids = convert_to_tensor(inputs)
        if ids.dtype not in (dtypes.int32, dtypes.int64):
            ids = math_ops.cast(ids, dtypes.int32)
        return array_ops.gather(self.embeddings, ids)
