"""``tf.layers.conv2d_transpose`` and ``tf.layers.separable_conv2d`` (TF1 variable names:
``conv2d_transpose/kernel [kh, kw, filters, in]``, ``separable_conv2d/depthwise_kernel``,
``pointwise_kernel``, ``bias``), ``conv1d`` and the 1-D poolings."""
from estimator_npu.engine import dtypes, init_ops
from estimator_npu.engine.ops import (array_ops, composites, conv_ops, math_ops, nn_extra_ops,
                                      nn_ops)
from estimator_npu.engine.graph import get_default_graph
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.engine.variable_scope import get_variable, variable_scope
from estimator_npu.layers.functional import (_apply_extras, _data_format, _float_inputs,
                                             _pair, _padding, _param_dtype)


def _out_len(n, k, s, pad):
    if n is None:
        return None
    return n * s if pad == "SAME" else n * s + max(k - s, 0)


def _dynamic_shape(x, dims, ksize, strides, pad, nchw):
    """The output shape as an int32 tensor, from the input's runtime shape where a static
    size is unknown."""
    shp = array_ops.shape(x)
    spatial = (2, 3) if nchw else (1, 2)
    out = list(dims)
    if out[0] is None:
        out[0] = shp[0]
    for axis, k, s in zip(spatial, ksize, strides):
        if out[axis] is None:
            out[axis] = shp[axis] * s if pad == "SAME" else shp[axis] * s + max(k - s, 0)
    return array_ops.stack([convert_to_tensor(d, dtype=dtypes.int32) for d in out])


def conv2d_transpose(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
                     data_format="channels_last", activation=None, use_bias=True,
                     kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None):
    """The transpose of a 2-D convolution (``same``: size ``in * stride``; ``valid``:
    ``in * stride + max(k - stride, 0)``)."""
    x = _float_inputs(inputs, "conv2d_transpose")
    fmt = _data_format(data_format, "conv2d_transpose")
    if x.shape.ndims != 4:
        raise ValueError(f"conv2d_transpose: inputs must be 4-D, got shape {x.shape}")
    nchw = fmt == "NCHW"
    v = x.shape.values
    n, h, w, c = (v[0], v[2], v[3], v[1]) if nchw else v
    if c is None:
        raise ValueError(f"conv2d_transpose: the channel dimension must be known, got "
                         f"shape {x.shape}")
    kh, kw = _pair(kernel_size, "kernel_size", "conv2d_transpose")
    sh, sw = _pair(strides, "strides", "conv2d_transpose")
    pad = _padding(padding, "conv2d_transpose")
    filters = int(filters)
    dt = _param_dtype(x)
    with variable_scope(name, default_name="conv2d_transpose", reuse=reuse):
        kernel = get_variable("kernel", [kh, kw, filters, c], dtype=dt,
                              initializer=kernel_initializer, regularizer=kernel_regularizer,
                              trainable=trainable)
        oh, ow = _out_len(h, kh, sh, pad), _out_len(w, kw, sw, pad)
        dims = [n, filters, oh, ow] if nchw else [n, oh, ow, filters]
        out_shape = dims if None not in dims else _dynamic_shape(x, dims, (kh, kw),
                                                                  (sh, sw), pad, nchw)
        y = conv_ops.conv2d_transpose(x, math_ops.cast(kernel, x.dtype), out_shape,
                                      [1, sh, sw, 1] if not nchw else [1, 1, sh, sw], pad,
                                      data_format=fmt)
        y.set_shape(dims)
        if use_bias:
            bias = get_variable("bias", [filters], dtype=dt,
                                initializer=bias_initializer or init_ops.zeros_initializer(),
                                regularizer=bias_regularizer, trainable=trainable)
            y = nn_ops.bias_add(y, math_ops.cast(bias, x.dtype), data_format=fmt)
        return _apply_extras(y, activation, activity_regularizer)


def separable_conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
                     data_format="channels_last", dilation_rate=(1, 1), depth_multiplier=1,
                     activation=None, use_bias=True, depthwise_initializer=None,
                     pointwise_initializer=None, bias_initializer=None,
                     depthwise_regularizer=None, pointwise_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None,
                     depthwise_constraint=None, pointwise_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None):
    """A depthwise convolution (``depth_multiplier`` per channel) followed by a 1x1 one."""
    x = _float_inputs(inputs, "separable_conv2d")
    fmt = _data_format(data_format, "separable_conv2d")
    if x.shape.ndims != 4:
        raise ValueError(f"separable_conv2d: inputs must be 4-D, got shape {x.shape}")
    c = x.shape.values[1] if fmt == "NCHW" else x.shape.values[3]
    if c is None:
        raise ValueError(f"separable_conv2d: the channel dimension must be known, got "
                         f"shape {x.shape}")
    kh, kw = _pair(kernel_size, "kernel_size", "separable_conv2d")
    stride = _pair(strides, "strides", "separable_conv2d")
    dil = _pair(dilation_rate, "dilation_rate", "separable_conv2d")
    pad = _padding(padding, "separable_conv2d")
    dm, filters = int(depth_multiplier), int(filters)
    dt = _param_dtype(x)
    with variable_scope(name, default_name="separable_conv2d", reuse=reuse):
        dw = get_variable("depthwise_kernel", [kh, kw, c, dm], dtype=dt,
                          initializer=depthwise_initializer, regularizer=depthwise_regularizer,
                          trainable=trainable)
        pw = get_variable("pointwise_kernel", [1, 1, c * dm, filters], dtype=dt,
                          initializer=pointwise_initializer, regularizer=pointwise_regularizer,
                          trainable=trainable)
        s4 = [1, 1] + stride if fmt == "NCHW" else [1] + stride + [1]
        y = nn_extra_ops.separable_conv2d(x, math_ops.cast(dw, x.dtype),
                                          math_ops.cast(pw, x.dtype), s4, pad,
                                          data_format=fmt,
                                          dilations=None if dil == [1, 1] else dil)
        if use_bias:
            bias = get_variable("bias", [filters], dtype=dt,
                                initializer=bias_initializer or init_ops.zeros_initializer(),
                                regularizer=bias_regularizer, trainable=trainable)
            y = nn_ops.bias_add(y, math_ops.cast(bias, x.dtype), data_format=fmt)
        return _apply_extras(y, activation, activity_regularizer)


def conv1d(inputs, filters, kernel_size, strides=1, padding="valid",
           data_format="channels_last", dilation_rate=1, activation=None, use_bias=True,
           kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
           bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None):
    """A 1-D convolution layer over ``[batch, width, channels]``: variables
    ``conv1d/kernel [k, in, filters]`` and ``conv1d/bias [filters]``; ``valid`` output
    width ``ceil((w - (k - 1) * dilation) / stride)``, ``same`` ``ceil(w / stride)``."""
    x = _float_inputs(inputs, "conv1d")
    if data_format not in ("channels_last", "NWC"):
        raise ValueError(f"conv1d: data_format must be 'channels_last', got {data_format!r}")
    if x.shape.ndims != 3:
        raise ValueError(f"conv1d: inputs must be 3-D [batch, width, channels], got shape "
                         f"{x.shape}")
    in_c = x.shape.values[2]
    if in_c is None:
        raise ValueError(f"conv1d: the channel dimension of the inputs must be known, got "
                         f"shape {x.shape}")
    k = _single(kernel_size, "kernel_size")
    stride = _single(strides, "strides")
    dil = _single(dilation_rate, "dilation_rate")
    pad = _padding(padding, "conv1d")
    if isinstance(filters, bool) or int(filters) < 1:
        raise ValueError(f"conv1d: filters must be a positive integer, got {filters!r}")
    dt = _param_dtype(x)
    with variable_scope(name, default_name="conv1d", reuse=reuse):
        kernel = get_variable("kernel", [k, in_c, int(filters)], dtype=dt,
                              initializer=kernel_initializer, regularizer=kernel_regularizer,
                              trainable=trainable)
        y = composites.conv1d(x, math_ops.cast(kernel, x.dtype), stride, pad,
                              dilations=None if dil == 1 else dil)
        if use_bias:
            bias = get_variable("bias", [int(filters)], dtype=dt,
                                initializer=bias_initializer or init_ops.zeros_initializer(),
                                regularizer=bias_regularizer, trainable=trainable)
            y = nn_ops.bias_add(y, math_ops.cast(bias, x.dtype))
        return _apply_extras(y, activation, activity_regularizer)


def _single(value, what):
    if isinstance(value, (list, tuple)):
        if len(value) != 1:
            raise ValueError(f"conv1d: {what} must be an int or a 1-tuple, got {value!r}")
        value = value[0]
    if isinstance(value, bool) or int(value) < 1:
        raise ValueError(f"conv1d: {what} must be a positive int, got {value!r}")
    return int(value)


def _pooling1d(fn, default_name, inputs, pool_size, strides, padding, data_format, name):
    x = _float_inputs(inputs, default_name)
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"{default_name}: data_format must be 'channels_last' or "
                         f"'channels_first', got {data_format!r}")
    if x.shape.ndims is not None and x.shape.ndims != 3:
        raise ValueError(f"{default_name}: inputs must be 3-D [batch, width, channels], got "
                         f"shape {x.shape}")
    k, s = _single(pool_size, "pool_size"), _single(strides, "strides")
    pad = _padding(padding, default_name)
    first = data_format == "channels_first"
    axis = 3 if first else 2  # [N, W, 1, C] / [N, C, W, 1], as TF's Pooling1D
    ksize = [1, 1, k, 1] if first else [1, k, 1, 1]
    stride = [1, 1, s, 1] if first else [1, s, 1, 1]
    with get_default_graph().name_scope(name or default_name):
        y = fn(array_ops.expand_dims(x, axis), ksize, stride, pad,
               data_format="NCHW" if first else "NHWC")
        return array_ops.squeeze(y, [axis])


def max_pooling1d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None):
    """1-D max pooling over ``[batch, width, channels]``; ``pool_size``/``strides`` ints."""
    return _pooling1d(conv_ops.max_pool, "max_pooling1d", inputs, pool_size, strides, padding,
                      data_format, name)


def average_pooling1d(inputs, pool_size, strides, padding="valid",
                      data_format="channels_last", name=None):
    """1-D average pooling (``same`` windows divide by their in-bounds count)."""
    return _pooling1d(conv_ops.avg_pool, "average_pooling1d", inputs, pool_size, strides,
                      padding, data_format, name)
