"""``tf.keras.layers`` core layers: Dense, Activation, Dropout, Flatten, Reshape, Permute,
RepeatVector, Lambda, ActivityRegularization, Masking. Dense applies ``tf.layers.dense`` in
the layer's weight scope (variables ``dense/kernel``, ``dense/bias``)."""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.core import convert_to_tensor, identity
from estimator_npu.keras import activations, backend, constraints, initializers, regularizers
from estimator_npu.keras.engine.base_layer import Layer
from estimator_npu.layers import functional


class Dense(Layer):
    _opens_name_scope = False

    def __init__(self, units, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self._constraint_of = {"kernel": constraints.get(kernel_constraint),
                               "bias": constraints.get(bias_constraint)}

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        if x.dtype != dtypes.as_dtype(self.dtype) and not x.dtype.is_floating:
            x = math_ops.cast(x, self.dtype)
        return functional.dense(x, self.units, activation=self.activation,
                                use_bias=self.use_bias,
                                kernel_initializer=self.kernel_initializer,
                                bias_initializer=self.bias_initializer,
                                kernel_regularizer=self.kernel_regularizer,
                                bias_regularizer=self.bias_regularizer,
                                name=self.weight_scope())

    @property
    def kernel(self):
        return self._own("kernel")

    @property
    def bias(self):
        return self._own("bias")

    def _own(self, base):
        for v in self._trainable_weights + self._non_trainable_weights:
            if v.op.name.endswith("/" + base):
                return v
        return None

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:-1]) + (self.units,)

    def get_config(self):
        config = dict(super().get_config(), units=self.units,
                      activation=activations.serialize(self.activation),
                      use_bias=self.use_bias,
                      kernel_initializer=initializers.serialize(self.kernel_initializer),
                      bias_initializer=initializers.serialize(self.bias_initializer),
                      kernel_regularizer=regularizers.serialize(self.kernel_regularizer),
                      bias_regularizer=regularizers.serialize(self.bias_regularizer),
                      activity_regularizer=regularizers.serialize(self.activity_regularizer))
        config["kernel_constraint"] = constraints.serialize(self._constraint_of["kernel"])
        config["bias_constraint"] = constraints.serialize(self._constraint_of["bias"])
        return config


class Activation(Layer):
    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def get_config(self):
        return dict(super().get_config(), activation=activations.serialize(self.activation))


class Dropout(Layer):
    """``rate`` of the inputs set to zero (the rest scaled by ``1/(1-rate)``) when
    ``training`` (default: the learning phase); the identity otherwise."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate, self.noise_shape, self.seed = float(rate), noise_shape, seed

    def get_config(self):
        return dict(super().get_config(), rate=self.rate, noise_shape=self.noise_shape,
                    seed=self.seed)

    def call(self, inputs, training=None):
        if training is None:
            training = backend.learning_phase()
        if isinstance(training, (int, np.integer)) and not isinstance(training, bool):
            training = bool(training)
        if self.rate == 0:
            return identity(inputs)
        return _dropout(inputs, self.rate, self.noise_shape, self.seed, training)


def _dropout(inputs, rate, noise_shape, seed, training):
    """As Keras's smart_cond: with a learning-phase tensor the mask's random op runs only
    in the runs that train, so its stream (and every later mask) is TF's however often
    fit validates in between. (tf.layers.dropout keeps its element-wise select, whose
    GraphDef freezes and imports.)"""
    if isinstance(training, bool):
        return functional.dropout(inputs, rate=rate, noise_shape=noise_shape, seed=seed,
                                  training=training, name="dropout")
    return backend.in_train_phase(
        lambda: functional.dropout(inputs, rate=rate, noise_shape=noise_shape, seed=seed,
                                   training=True, name="dropout"),
        lambda: identity(inputs), training=training)


class SpatialDropout2D(Dropout):
    """Drops whole feature maps: one draw per example and channel."""

    def __init__(self, rate, data_format=None, **kwargs):
        super().__init__(rate, **kwargs)
        self.data_format = data_format or "channels_last"

    def call(self, inputs, training=None):
        shape = array_ops.shape(inputs)
        noise = array_ops.stack([shape[0], 1, 1, shape[3]]) \
            if self.data_format == "channels_last" else array_ops.stack([shape[0], shape[1],
                                                                          1, 1])
        if training is None:
            training = backend.learning_phase()
        if isinstance(training, (int, np.integer)) and not isinstance(training, bool):
            training = bool(training)
        if self.rate == 0:
            return identity(inputs)
        return _dropout(inputs, self.rate, noise, self.seed, training)


class Flatten(Layer):
    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or "channels_last"

    def get_config(self):
        return dict(super().get_config(), data_format=self.data_format)

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        if x.shape.ndims == 1:
            return array_ops.expand_dims(x, 1)
        return functional.flatten(x, name="flatten", data_format=self.data_format)


def _batch_reshape(x, target):
    """``x`` reshaped to ``[batch, *target]`` (one -1 allowed in ``target``)."""
    if x.shape.values[0] is not None and -1 not in target:
        return array_ops.reshape(x, [x.shape.values[0], *target])
    return array_ops.reshape(x, [-1, *target]) if -1 not in target else \
        array_ops.reshape(x, array_ops.concat([array_ops.shape(x)[:1],
                                               convert_to_tensor(list(target),
                                                                 dtype=dtypes.int32)], 0))


class Reshape(Layer):
    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(int(d) for d in target_shape)

    def get_config(self):
        return dict(super().get_config(), target_shape=self.target_shape)

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        y = _batch_reshape(x, self.target_shape)
        if -1 in self.target_shape:
            known = x.shape.values[1:]
            if None not in known:
                missing = int(np.prod(known)) // max(1, int(np.prod(
                    [d for d in self.target_shape if d != -1])))
                y.set_shape([x.shape.values[0]] + [missing if d == -1 else d
                                            for d in self.target_shape])
        return y


class Permute(Layer):
    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(dims)

    def get_config(self):
        return dict(super().get_config(), dims=self.dims)

    def call(self, inputs):
        return array_ops.transpose(inputs, [0, *self.dims])


class RepeatVector(Layer):
    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        self.n = int(n)

    def get_config(self):
        return dict(super().get_config(), n=self.n)

    def call(self, inputs):
        return array_ops.tile(array_ops.expand_dims(inputs, 1), [1, self.n, 1])


class Lambda(Layer):
    """Applies ``function(inputs, **arguments)`` (it has no weights)."""

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        self.function, self.arguments = function, dict(arguments or {})
        self._output_shape = output_shape

    def call(self, inputs, mask=None, training=None):
        import inspect
        kwargs = dict(self.arguments)
        try:
            params = inspect.signature(self.function).parameters
        except (TypeError, ValueError):
            params = {}
        if "training" in params:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def _call_takes(self, arg):
        return False

    def get_config(self):
        raise NotImplementedError(
            f"estimator_npu does not implement tf.keras.layers.Lambda.get_config (yet): the "
            f"Lambda layer {self.name!r} holds Python code, which the model's config (JSON, "
            f"HDF5) cannot carry here; save_weights and rebuild the model in code")


class ActivityRegularization(Layer):
    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        super().__init__(activity_regularizer=regularizers.L1L2(l1, l2), **kwargs)
        self.l1, self.l2 = l1, l2

    def get_config(self):
        return dict(super().get_config(), l1=self.l1, l2=self.l2)


class Masking(Layer):
    """Zeroes the time steps whose features all equal ``mask_value`` (masks are not
    propagated to later layers)."""

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value

    def get_config(self):
        return dict(super().get_config(), mask_value=self.mask_value)

    def call(self, inputs):
        keep = math_ops.reduce_any(math_ops.not_equal(inputs, self.mask_value), -1,
                                   keepdims=True)
        return inputs * math_ops.cast(keep, inputs.dtype)
