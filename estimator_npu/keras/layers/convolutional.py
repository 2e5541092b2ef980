"""``tf.keras.layers`` convolutions and their shape helpers: Conv1D, Conv2D,
Conv2DTranspose, SeparableConv2D, DepthwiseConv2D, ZeroPadding1D/2D, Cropping2D,
UpSampling1D/2D. The 2-D ones apply the ``tf.layers`` functions in the layer's weight
scope (``conv2d/kernel [kh, kw, in, filters]``, ``conv2d/bias``)."""
from estimator_npu.engine.ops import array_ops, composites, nn_extra_ops, nn_ops
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.engine.shape import dimension_value
from estimator_npu.keras import activations, backend, constraints, initializers, regularizers
from estimator_npu.keras.engine.base_layer import Layer
from estimator_npu.layers import conv_extra, functional


def _fmt(data_format):
    return data_format or backend.image_data_format()


def _tuple(value, n):
    """``value`` (an int or a sequence) as an ``n``-tuple of ints, as Keras keeps
    ``kernel_size``, ``strides``, ``dilation_rate`` and ``pool_size``."""
    if isinstance(value, int):
        return (value,) * n
    return tuple(int(v) for v in value)


def _no_groups(groups, name):
    if groups != 1:
        raise ValueError(f"{name}: groups={groups} is not implemented (only 1)")


def _conv_config(layer, n, kernel_init, kernel_reg, kernel_cons, bias_init, bias_reg,
                 bias_cons, kernel=True):
    """The entries TF 2.15 gives every convolution's config, in its order."""
    config = dict(Layer.get_config(layer))
    if hasattr(layer, "filters"):
        config["filters"] = layer.filters
    config.update(kernel_size=_tuple(layer.kernel_size, n), strides=_tuple(layer.strides, n),
                  padding=layer.padding, data_format=getattr(layer, "data_format",
                                                             "channels_last"),
                  dilation_rate=_tuple(layer.dilation_rate, n), groups=1,
                  activation=activations.serialize(layer.activation), use_bias=layer.use_bias)
    if kernel:
        config.update(kernel_initializer=initializers.serialize(kernel_init))
    config["bias_initializer"] = initializers.serialize(bias_init)
    if kernel:
        config["kernel_regularizer"] = regularizers.serialize(kernel_reg)
    config["bias_regularizer"] = regularizers.serialize(bias_reg)
    config["activity_regularizer"] = regularizers.serialize(layer.activity_regularizer)
    if kernel:
        config["kernel_constraint"] = constraints.serialize(kernel_cons)
    config["bias_constraint"] = constraints.serialize(bias_cons)
    return config


class _Conv(Layer):
    _opens_name_scope = False
    _fn = None

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, groups=1, **kwargs):
        _no_groups(groups, type(self).__name__)
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.filters, self.kernel_size, self.strides = int(filters), kernel_size, strides
        self.padding, self.data_format = padding, _fmt(data_format)
        self.dilation_rate = dilation_rate
        self.activation, self.use_bias = activations.get(activation), use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self._constraint_of = {"kernel": constraints.get(kernel_constraint),
                               "bias": constraints.get(bias_constraint)}

    def _common(self):
        return dict(strides=self.strides, padding=self.padding, data_format=self.data_format,
                    activation=self.activation, use_bias=self.use_bias,
                    kernel_initializer=self.kernel_initializer,
                    bias_initializer=self.bias_initializer,
                    kernel_regularizer=self.kernel_regularizer,
                    bias_regularizer=self.bias_regularizer, name=self.weight_scope())

    def call(self, inputs):
        return functional.conv2d(inputs, self.filters, self.kernel_size,
                                 dilation_rate=self.dilation_rate, **self._common())

    def get_config(self):
        return _conv_config(self, 2, self.kernel_initializer, self.kernel_regularizer,
                            self._constraint_of["kernel"], self.bias_initializer,
                            self.bias_regularizer, self._constraint_of["bias"])

    kernel = property(lambda self: self._own("kernel"))
    bias = property(lambda self: self._own("bias"))

    def _own(self, base):
        for v in self._trainable_weights + self._non_trainable_weights:
            if v.op.name.endswith("/" + base):
                return v
        return None


class Conv2D(_Conv):
    pass


class Conv2DTranspose(_Conv):
    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 output_padding=None, **kwargs):
        if output_padding is not None:
            raise ValueError("Conv2DTranspose: output_padding is not implemented")
        super().__init__(filters, kernel_size, strides, padding, **kwargs)

    def get_config(self):
        return dict(super().get_config(), output_padding=None)

    def call(self, inputs):
        return conv_extra.conv2d_transpose(inputs, self.filters, self.kernel_size,
                                           **self._common())


class SeparableConv2D(_Conv):
    def __init__(self, filters, kernel_size, depth_multiplier=1,
                 depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", depthwise_regularizer=None,
                 pointwise_regularizer=None, **kwargs):
        self._extra_cons = [kwargs.pop(k, None) for k in ("depthwise_constraint",
                                                          "pointwise_constraint")]
        super().__init__(filters, kernel_size, **kwargs)
        self.depth_multiplier = int(depth_multiplier)
        self._extra = dict(depthwise_initializer=initializers.get(depthwise_initializer),
                           pointwise_initializer=initializers.get(pointwise_initializer),
                           depthwise_regularizer=regularizers.get(depthwise_regularizer),
                           pointwise_regularizer=regularizers.get(pointwise_regularizer))

    def call(self, inputs):
        kw = self._common()
        kw.pop("kernel_initializer")
        kw.pop("kernel_regularizer")
        return conv_extra.separable_conv2d(inputs, self.filters, self.kernel_size,
                                           dilation_rate=self.dilation_rate,
                                           depth_multiplier=self.depth_multiplier,
                                           **kw, **self._extra)

    def get_config(self):
        config = super().get_config()
        e = self._extra
        config.update(depth_multiplier=self.depth_multiplier,
                      depthwise_initializer=initializers.serialize(e["depthwise_initializer"]),
                      pointwise_initializer=initializers.serialize(e["pointwise_initializer"]),
                      depthwise_regularizer=regularizers.serialize(e["depthwise_regularizer"]),
                      pointwise_regularizer=regularizers.serialize(e["pointwise_regularizer"]),
                      depthwise_constraint=constraints.serialize(self._extra_cons[0]),
                      pointwise_constraint=constraints.serialize(self._extra_cons[1]))
        return config


class Conv1D(Layer):
    """1-D convolution of ``[batch, steps, channels]``: ``conv1d/kernel [k, in, filters]``."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, groups=1, **kwargs):
        _no_groups(groups, "Conv1D")
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.filters = int(filters)
        self.kernel_size = int(kernel_size[0] if isinstance(kernel_size, (list, tuple))
                               else kernel_size)
        self.strides = int(strides[0] if isinstance(strides, (list, tuple)) else strides)
        self.dilation_rate = int(dilation_rate[0] if isinstance(dilation_rate, (list, tuple))
                                 else dilation_rate)
        if padding not in ("valid", "same", "causal"):
            raise ValueError(f"Conv1D: padding must be 'valid', 'same' or 'causal', got "
                             f"{padding!r}")
        self.padding, self.activation = padding, activations.get(activation)
        self.use_bias = use_bias
        self._init = (initializers.get(kernel_initializer), initializers.get(bias_initializer))
        self._reg = (regularizers.get(kernel_regularizer), regularizers.get(bias_regularizer))
        self._cons = (constraints.get(kernel_constraint), constraints.get(bias_constraint))
        self.data_format = data_format or "channels_last"

    def get_config(self):
        return _conv_config(self, 1, self._init[0], self._reg[0], self._cons[0],
                            self._init[1], self._reg[1], self._cons[1])

    def build(self, input_shape):
        c = dimension_value(input_shape[-1])
        if c is None:
            raise ValueError(f"Conv1D {self.name}: the channel dimension of the inputs must "
                             f"be known, got shape {input_shape}")
        self.kernel = self.add_weight("kernel", [self.kernel_size, int(c), self.filters],
                                      initializer=self._init[0], regularizer=self._reg[0],
                                      constraint=self._cons[0])
        self.bias = self.add_weight("bias", [self.filters], initializer=self._init[1],
                                    regularizer=self._reg[1], constraint=self._cons[1]) \
            if self.use_bias else None

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        pad = self.padding
        if pad == "causal":
            x = array_ops.pad(x, [[0, 0], [self.dilation_rate * (self.kernel_size - 1), 0],
                                  [0, 0]])
            pad = "valid"
        y = composites.conv1d(x, self.kernel, self.strides, pad.upper(),
                              dilations=None if self.dilation_rate == 1 else self.dilation_rate)
        if self.bias is not None:
            y = nn_ops.bias_add(y, self.bias)
        return self.activation(y)


class DepthwiseConv2D(Layer):
    """Per-channel 2-D convolution: ``depthwise_kernel [kh, kw, in, depth_multiplier]``."""

    def __init__(self, kernel_size, strides=(1, 1), padding="valid", depth_multiplier=1,
                 data_format=None, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, bias_constraint=None, dilation_rate=(1, 1),
                 groups=1, **kwargs):
        _no_groups(groups, "DepthwiseConv2D")
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.kernel_size = functional._pair(kernel_size, "kernel_size", "DepthwiseConv2D")
        self.strides = functional._pair(strides, "strides", "DepthwiseConv2D")
        self.dilation_rate = functional._pair(dilation_rate, "dilation_rate",
                                              "DepthwiseConv2D")
        self._op_padding = functional._padding(padding, "DepthwiseConv2D")
        self.padding = self._op_padding.lower()
        self.data_format = _fmt(data_format)
        self.depth_multiplier = int(depth_multiplier)
        self.activation, self.use_bias = activations.get(activation), use_bias
        self._init = (initializers.get(depthwise_initializer),
                      initializers.get(bias_initializer))
        self._reg = (regularizers.get(depthwise_regularizer),
                     regularizers.get(bias_regularizer))
        self._cons = (constraints.get(depthwise_constraint), constraints.get(bias_constraint))

    def get_config(self):
        config = _conv_config(self, 2, None, None, None, self._init[1], self._reg[1],
                              self._cons[1], kernel=False)
        config.update(depth_multiplier=self.depth_multiplier,
                      **self._weight_config("depthwise", self._init[0], self._reg[0],
                                            self._cons[0]))
        return config

    def build(self, input_shape):
        c = input_shape[1 if self.data_format == "channels_first" else -1]
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", [*self.kernel_size, int(c), self.depth_multiplier],
            initializer=self._init[0], regularizer=self._reg[0], constraint=self._cons[0])
        self.bias = self.add_weight("bias", [int(c) * self.depth_multiplier],
                                    initializer=self._init[1], regularizer=self._reg[1],
                                    constraint=self._cons[1]) if self.use_bias else None

    def call(self, inputs):
        nchw = self.data_format == "channels_first"
        fmt = "NCHW" if nchw else "NHWC"
        strides = [1, 1, *self.strides] if nchw else [1, *self.strides, 1]
        y = nn_extra_ops.depthwise_conv2d(inputs, self.depthwise_kernel, strides,
                                          self._op_padding, data_format=fmt,
                                          dilations=None if self.dilation_rate == [1, 1]
                                          else self.dilation_rate)
        if self.bias is not None:
            y = nn_ops.bias_add(y, self.bias, data_format=fmt)
        return self.activation(y)


def _pairs(padding, n):
    if isinstance(padding, int):
        return [[padding, padding]] * n
    out = []
    for p in padding:
        out.append([p, p] if isinstance(p, int) else list(p))
    return out


class ZeroPadding2D(Layer):
    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.padding, self.data_format = _pairs(padding, 2), _fmt(data_format)

    def get_config(self):
        return dict(super().get_config(), padding=tuple(tuple(p) for p in self.padding),
                    data_format=self.data_format)

    def call(self, inputs):
        p = self.padding
        spec = [[0, 0], [0, 0], *p] if self.data_format == "channels_first" else \
            [[0, 0], *p, [0, 0]]
        return array_ops.pad(inputs, spec)


class ZeroPadding1D(Layer):
    def __init__(self, padding=1, **kwargs):
        super().__init__(**kwargs)
        self.padding = _pairs([padding] if isinstance(padding, int) else [padding], 1)[0]

    def get_config(self):
        return dict(super().get_config(), padding=tuple(self.padding))

    def call(self, inputs):
        return array_ops.pad(inputs, [[0, 0], self.padding, [0, 0]])


class Cropping2D(Layer):
    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.cropping, self.data_format = _pairs(cropping, 2), _fmt(data_format)

    def get_config(self):
        return dict(super().get_config(), cropping=tuple(tuple(p) for p in self.cropping),
                    data_format=self.data_format)

    def call(self, inputs):
        (t, b), (left, r) = self.cropping
        x = convert_to_tensor(inputs)
        hw = (2, 3) if self.data_format == "channels_first" else (1, 2)
        begin, size = [0] * 4, [-1] * 4
        for axis, lo, hi in ((hw[0], t, b), (hw[1], left, r)):
            begin[axis] = lo
            n = x.shape[axis]
            size[axis] = -1 if hi == 0 else (n - lo - hi if n is not None else None)
            if size[axis] is None:
                raise ValueError(f"Cropping2D {self.name}: the spatial size of the inputs "
                                 f"must be known to crop the end, got {x.shape}")
        return array_ops.slice(x, begin, size)


def _repeat(x, axis, n):
    """Each element of ``x`` along ``axis`` repeated ``n`` times (nearest upsampling)."""
    if n == 1:
        return x
    shape = x.shape.values
    y = array_ops.expand_dims(x, axis + 1)
    multiples = [1] * (len(shape) + 1)
    multiples[axis + 1] = n
    y = array_ops.tile(y, multiples)
    dyn = array_ops.shape(x)
    new = [d if d is not None else dyn[i] for i, d in enumerate(shape)]
    new[axis] = shape[axis] * n if shape[axis] is not None else dyn[axis] * n
    if any(not isinstance(d, int) for d in new):
        new = array_ops.stack([convert_to_tensor(d) for d in new])
    y = array_ops.reshape(y, new)
    out = list(shape)
    out[axis] = None if shape[axis] is None else shape[axis] * n
    y.set_shape(out)
    return y


class UpSampling2D(Layer):
    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        self.size = functional._pair(size, "size", "UpSampling2D")
        self.data_format = _fmt(data_format)
        if interpolation != "nearest":
            raise ValueError(f"UpSampling2D: only interpolation='nearest' is implemented, "
                             f"got {interpolation!r}")

    def get_config(self):
        return dict(super().get_config(), size=tuple(self.size), data_format=self.data_format,
                    interpolation="nearest")

    def call(self, inputs):
        hw = (2, 3) if self.data_format == "channels_first" else (1, 2)
        x = convert_to_tensor(inputs)
        return _repeat(_repeat(x, hw[0], self.size[0]), hw[1], self.size[1])


class UpSampling1D(Layer):
    def __init__(self, size=2, **kwargs):
        super().__init__(**kwargs)
        self.size = int(size)

    def get_config(self):
        return dict(super().get_config(), size=self.size)

    def call(self, inputs):
        return _repeat(convert_to_tensor(inputs), 1, self.size)


Convolution1D, Convolution2D = Conv1D, Conv2D
Convolution2DTranspose = Deconvolution2D = Conv2DTranspose
SeparableConvolution2D = SeparableConv2D
