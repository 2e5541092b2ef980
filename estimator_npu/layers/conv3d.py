"""The 3-D TF1 layers: ``tf.layers.conv3d``, ``conv3d_transpose``, ``max_pooling3d`` and
``average_pooling3d`` over ``[batch, depth, height, width, channels]`` inputs
(``channels_first``: ``[batch, channels, depth, height, width]``), on the ``tf.nn`` 3-D ops
of ``math_ops_extra.window3d``. Variables as TF1 names them: ``conv3d/kernel
[kd, kh, kw, in, filters]`` (``conv3d_transpose/kernel [kd, kh, kw, filters, in]``) and
``.../bias [filters]``."""
import numpy as np

from estimator_npu.engine import dtypes, init_ops
from estimator_npu.engine.graph import get_default_graph
from estimator_npu.engine.ops import array_ops, math_ops, nn_ops
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.engine.variable_scope import get_variable, variable_scope
from estimator_npu.layers.functional import (_apply_extras, _float_inputs, _padding,
                                             _param_dtype)
from estimator_npu.math_ops_extra import window3d


def _triple(value, what, layer):
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = [value] * 3
    try:
        v = [int(i) for i in value]
    except (TypeError, ValueError):
        v = []
    if len(v) != 3 or min(v) < 1:
        raise ValueError(f"{layer}: {what} must be a positive int or 3 positive ints, got "
                         f"{value!r}")
    return v


def _format(data_format, layer):
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"{layer}: data_format must be 'channels_last' or 'channels_first', "
                         f"got {data_format!r}")
    return "NCDHW" if data_format == "channels_first" else "NDHWC"


def _five(vals, ncdhw):
    return [1, 1] + list(vals) if ncdhw else [1] + list(vals) + [1]


def _rank5(x, layer):
    if x.shape.ndims != 5:
        raise ValueError(f"{layer}: inputs must be 5-D [batch, depth, height, width, "
                         f"channels] (or channels_first), got shape {x.shape}")


def _channels(x, ncdhw, layer, data_format):
    c = x.shape.values[1 if ncdhw else 4]
    if c is None:
        raise ValueError(f"{layer}: the channel dimension of the inputs must be known, got "
                         f"shape {x.shape} ({data_format})")
    return c


def _filters(filters, layer):
    if isinstance(filters, bool) or int(filters) < 1:
        raise ValueError(f"{layer}: filters must be a positive integer, got {filters!r}")
    return int(filters)


def _conv_args(inputs, filters, kernel_size, strides, padding, data_format, layer):
    """The checked arguments both 3-D convolution layers share: ``(x, fmt, ncdhw,
    in_channels, kernel, strides, padding, filters, param_dtype)``."""
    x = _float_inputs(inputs, layer)
    fmt = _format(data_format, layer)
    _rank5(x, layer)
    ncdhw = fmt == "NCDHW"
    in_c = _channels(x, ncdhw, layer, data_format)
    k = _triple(kernel_size, "kernel_size", layer)
    s = _triple(strides, "strides", layer)
    return (x, fmt, ncdhw, in_c, k, s, _padding(padding, layer), _filters(filters, layer),
            _param_dtype(x))


def _bias(y, filters, dt, fmt, initializer, regularizer, constraint, trainable):
    bias = get_variable("bias", [filters], dtype=dt,
                        initializer=initializer or init_ops.zeros_initializer(),
                        regularizer=regularizer, constraint=constraint, trainable=trainable)
    return nn_ops.bias_add(y, math_ops.cast(bias, y.dtype), data_format=fmt)


def conv3d(inputs, filters, kernel_size, strides=(1, 1, 1), padding="valid",
           data_format="channels_last", dilation_rate=(1, 1, 1), activation=None,
           use_bias=True, kernel_initializer=None, bias_initializer=None,
           kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
           kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
           reuse=None):
    """A 3-D convolution layer; ``kernel_size``/``strides``/``dilation_rate`` an int or 3
    ints, ``padding`` ``"valid"`` or ``"same"``; other arguments as ``tf.layers.conv2d``."""
    layer = "conv3d"
    x, fmt, ncdhw, in_c, k, s, pad, filters, dt = _conv_args(
        inputs, filters, kernel_size, strides, padding, data_format, layer)
    d = _triple(dilation_rate, "dilation_rate", layer)
    with variable_scope(name, default_name="conv3d", reuse=reuse):
        kernel = get_variable("kernel", k + [in_c, filters], dtype=dt,
                              initializer=kernel_initializer, regularizer=kernel_regularizer,
                              constraint=kernel_constraint, trainable=trainable)
        y = window3d.conv3d(x, math_ops.cast(kernel, x.dtype), _five(s, ncdhw), pad,
                            data_format=fmt, dilations=_five(d, ncdhw))
        if use_bias:
            y = _bias(y, filters, dt, fmt, bias_initializer, bias_regularizer,
                      bias_constraint, trainable)
        return _apply_extras(y, activation, activity_regularizer)


def _out_len(n, k, s, pad):
    if n is None:
        return None
    return n * s if pad == "SAME" else n * s + max(k - s, 0)


def conv3d_transpose(inputs, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                     data_format="channels_last", activation=None, use_bias=True,
                     kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None):
    """The transpose of a 3-D convolution (``same``: size ``in * stride``; ``valid``:
    ``in * stride + max(k - stride, 0)``)."""
    layer = "conv3d_transpose"
    x, fmt, ncdhw, in_c, k, s, pad, filters, dt = _conv_args(
        inputs, filters, kernel_size, strides, padding, data_format, layer)
    spatial = (2, 3, 4) if ncdhw else (1, 2, 3)
    with variable_scope(name, default_name="conv3d_transpose", reuse=reuse):
        kernel = get_variable("kernel", k + [filters, in_c], dtype=dt,
                              initializer=kernel_initializer, regularizer=kernel_regularizer,
                              constraint=kernel_constraint, trainable=trainable)
        v = x.shape.values
        dims = [v[0]] + [_out_len(v[a], kk, ss, pad) for a, kk, ss in zip(spatial, k, s)]
        dims = [dims[0], filters] + dims[1:] if ncdhw else dims + [filters]
        if None in dims:
            shp = array_ops.shape(x)
            run = list(dims)
            if run[0] is None:
                run[0] = shp[0]
            for a, kk, ss in zip(spatial, k, s):
                if run[a] is None:
                    run[a] = shp[a] * ss if pad == "SAME" else shp[a] * ss + max(kk - ss, 0)
            out_shape = array_ops.stack([convert_to_tensor(r, dtype=dtypes.int32)
                                         for r in run])
        else:
            out_shape = dims
        y = window3d.conv3d_transpose(x, math_ops.cast(kernel, x.dtype), out_shape,
                                      _five(s, ncdhw), pad, data_format=fmt)
        y.set_shape(dims)
        if use_bias:
            y = _bias(y, filters, dt, fmt, bias_initializer, bias_regularizer,
                      bias_constraint, trainable)
        return _apply_extras(y, activation, activity_regularizer)


def _pooling3d(fn, layer, inputs, pool_size, strides, padding, data_format, name):
    x = _float_inputs(inputs, layer)
    fmt = _format(data_format, layer)
    _rank5(x, layer)
    ncdhw = fmt == "NCDHW"
    k = _triple(pool_size, "pool_size", layer)
    s = _triple(strides, "strides", layer)
    pad = _padding(padding, layer)
    with get_default_graph().name_scope(name or layer):
        return fn(x, _five(k, ncdhw), _five(s, ncdhw), pad, data_format=fmt)


def max_pooling3d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None):
    """3-D max pooling; ``pool_size``/``strides`` an int or 3 ints."""
    return _pooling3d(window3d.max_pool3d, "max_pooling3d", inputs, pool_size, strides,
                      padding, data_format, name)


def average_pooling3d(inputs, pool_size, strides, padding="valid",
                      data_format="channels_last", name=None):
    """3-D average pooling (``same`` windows average their in-bounds elements)."""
    return _pooling3d(window3d.avg_pool3d, "average_pooling3d", inputs, pool_size, strides,
                      padding, data_format, name)
