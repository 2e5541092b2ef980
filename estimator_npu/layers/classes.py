"""The TF1 layer classes (``tf.layers.Dense``, ``Conv2D``, ...): each stores its
arguments and applies the matching function in its own variable scope (see ``base``)."""
from estimator_npu.layers import conv3d, conv_extra, functional
from estimator_npu.layers.base import Layer


def _weight(name):
    """A read-only property: the layer's variable ``name`` (after it was built)."""
    return property(lambda self: self._var(name), doc=f"The layer's ``{name}`` variable.")


class Dense(Layer):
    _default_name = "dense"

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=None, kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 trainable=True, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name, **kwargs)
        self.units, self.activation, self.use_bias = int(units), activation, use_bias
        self._kw = dict(kernel_initializer=kernel_initializer,
                        bias_initializer=bias_initializer,
                        kernel_regularizer=kernel_regularizer,
                        bias_regularizer=bias_regularizer,
                        activity_regularizer=activity_regularizer,
                        kernel_constraint=kernel_constraint, bias_constraint=bias_constraint)

    def _apply(self, inputs, scope, reuse):
        return functional.dense(inputs, self.units, activation=self.activation,
                                use_bias=self.use_bias, trainable=self.trainable, name=scope,
                                reuse=reuse, **self._kw)

    kernel = _weight("kernel")
    bias = _weight("bias")


class _ConvBase(Layer):
    _fn = None

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format="channels_last", activation=None, use_bias=True,
                 kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        extra = {k: kwargs.pop(k) for k in ("dilation_rate",) if k in kwargs}
        super().__init__(trainable=trainable, name=name, **kwargs)
        self.filters, self.kernel_size, self.strides = filters, kernel_size, strides
        self.padding, self.data_format, self.activation = padding, data_format, activation
        self.use_bias = use_bias
        self._kw = dict(kernel_initializer=kernel_initializer,
                        bias_initializer=bias_initializer,
                        kernel_regularizer=kernel_regularizer,
                        bias_regularizer=bias_regularizer,
                        activity_regularizer=activity_regularizer,
                        kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                        **extra)

    def _apply(self, inputs, scope, reuse):
        return type(self)._fn(inputs, self.filters, self.kernel_size, strides=self.strides,
                              padding=self.padding, data_format=self.data_format,
                              activation=self.activation, use_bias=self.use_bias,
                              trainable=self.trainable, name=scope, reuse=reuse, **self._kw)

    kernel = _weight("kernel")
    bias = _weight("bias")


class Conv2D(_ConvBase):
    _default_name = "conv2d"
    _fn = staticmethod(functional.conv2d)

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format="channels_last", dilation_rate=(1, 1), **kwargs):
        super().__init__(filters, kernel_size, strides, padding, data_format,
                         dilation_rate=dilation_rate, **kwargs)


class Conv2DTranspose(_ConvBase):
    _default_name = "conv2d_transpose"
    _fn = staticmethod(conv_extra.conv2d_transpose)


class Conv3D(_ConvBase):
    _default_name = "conv3d"
    _fn = staticmethod(conv3d.conv3d)

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 data_format="channels_last", dilation_rate=(1, 1, 1), **kwargs):
        super().__init__(filters, kernel_size, strides, padding, data_format,
                         dilation_rate=dilation_rate, **kwargs)


class Conv3DTranspose(_ConvBase):
    _default_name = "conv3d_transpose"
    _fn = staticmethod(conv3d.conv3d_transpose)

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 data_format="channels_last", **kwargs):
        super().__init__(filters, kernel_size, strides, padding, data_format, **kwargs)


class _Pooling2D(Layer):
    _fn = None

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last",
                 name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.pool_size, self.strides = pool_size, strides
        self.padding, self.data_format = padding, data_format

    def _apply(self, inputs, scope, reuse):
        return type(self)._fn(inputs, self.pool_size, self.strides, padding=self.padding,
                              data_format=self.data_format, name=self.name)


class MaxPooling2D(_Pooling2D):
    _default_name = "max_pooling2d"
    _fn = staticmethod(functional.max_pooling2d)


class AveragePooling2D(_Pooling2D):
    _default_name = "average_pooling2d"
    _fn = staticmethod(functional.average_pooling2d)


class MaxPooling1D(_Pooling2D):
    _default_name = "max_pooling1d"
    _fn = staticmethod(conv_extra.max_pooling1d)


class AveragePooling1D(_Pooling2D):
    _default_name = "average_pooling1d"
    _fn = staticmethod(conv_extra.average_pooling1d)


class MaxPooling3D(_Pooling2D):
    _default_name = "max_pooling3d"
    _fn = staticmethod(conv3d.max_pooling3d)


class AveragePooling3D(_Pooling2D):
    _default_name = "average_pooling3d"
    _fn = staticmethod(conv3d.average_pooling3d)


class Flatten(Layer):
    _default_name = "flatten"

    def __init__(self, data_format="channels_last", name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.data_format = data_format

    def _apply(self, inputs, scope, reuse):
        return functional.flatten(inputs, name=self.name, data_format=self.data_format)


class Dropout(Layer):
    _default_name = "dropout"

    def __init__(self, rate=0.5, noise_shape=None, seed=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.rate, self.noise_shape, self.seed = rate, noise_shape, seed

    def _apply(self, inputs, scope, reuse, training=False):
        return functional.dropout(inputs, rate=self.rate, noise_shape=self.noise_shape,
                                  seed=self.seed, training=training, name=self.name)


class BatchNormalization(Layer):
    _default_name = "batch_normalization"

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer=None, gamma_initializer=None,
                 moving_mean_initializer=None, moving_variance_initializer=None,
                 beta_regularizer=None, gamma_regularizer=None, trainable=True, name=None,
                 **kwargs):
        # passed on: fused picks TF's moving-variance rule; the unsupported options raise there
        passed = {k: kwargs.pop(k) for k in ("beta_constraint", "gamma_constraint", "renorm",
                                             "renorm_clipping", "renorm_momentum", "fused",
                                             "virtual_batch_size", "adjustment")
                  if k in kwargs}
        super().__init__(trainable=trainable, name=name, **kwargs)
        self._kw = dict(axis=axis, momentum=momentum, epsilon=epsilon, center=center,
                        scale=scale, beta_initializer=beta_initializer,
                        gamma_initializer=gamma_initializer,
                        moving_mean_initializer=moving_mean_initializer,
                        moving_variance_initializer=moving_variance_initializer,
                        beta_regularizer=beta_regularizer,
                        gamma_regularizer=gamma_regularizer, **passed)

    def _apply(self, inputs, scope, reuse, training=False):
        return functional.batch_normalization(inputs, training=training,
                                              trainable=self.trainable, name=scope,
                                              reuse=reuse, **self._kw)

    moving_mean = _weight("moving_mean")
    moving_variance = _weight("moving_variance")
    gamma = _weight("gamma")
    beta = _weight("beta")
