"""TF-Slim layers (``tf.contrib.layers`` / ``tf.contrib.slim``) with Slim's variable
names: ``<scope>/weights``, ``<scope>/biases``, ``<scope>/BatchNorm/moving_mean`` ...
Default scopes: ``Conv``, ``SeparableConv2d``, ``fully_connected``, ``BatchNorm``, ``Flatten``, ``MaxPool2D``,
``AvgPool2D``, ``Dropout``. Every layer takes ``arg_scope`` defaults; weights and biases
also join ``MODEL_VARIABLES``.
"""
import numpy as np

from estimator_npu.engine import dtypes, init_ops
from estimator_npu.engine.graph import (GraphKeys, control_dependencies, get_collection,
                                        get_collection_ref, get_default_graph, name_scope)
from estimator_npu.engine.ops import array_ops, conv_ops, math_ops, nn_extra_ops, nn_ops
from estimator_npu.engine.ops.core import convert_to_tensor, identity
from estimator_npu.engine.variable_scope import get_variable, variable_scope
from estimator_npu.layers import conv_extra, functional
from estimator_npu.layers.arg_scope import add_arg_scope
from estimator_npu.layers.slim_init import xavier_initializer


def _collect(value, collections, alias=None):
    g = get_default_graph()
    for c in collections or []:
        g.add_to_collection(c, value)


def model_variable(name, shape=None, dtype=dtypes.float32, initializer=None,
                   regularizer=None, trainable=True, collections=None):
    """``get_variable`` that also adds the variable to ``MODEL_VARIABLES``."""
    v = get_variable(name, shape, dtype=dtype, initializer=initializer,
                     regularizer=regularizer, trainable=trainable)
    get_default_graph().add_to_collection(GraphKeys.MODEL_VARIABLES, v)
    _collect(v, collections)
    return v


variable = get_variable


def _var_collections(spec, key):
    if spec is None:
        return []
    if isinstance(spec, dict):
        spec = spec.get(key) or []
    return [spec] if isinstance(spec, str) else list(spec)


def _finish(outputs, scope, normalizer_fn, normalizer_params, activation_fn,
            outputs_collections):
    if normalizer_fn is not None:
        outputs = normalizer_fn(outputs, **(normalizer_params or {}))
    if activation_fn is not None:
        outputs = activation_fn(outputs)
    _collect(outputs, outputs_collections)
    return outputs


def _add_biases(y, n, dtype, normalizer_fn, biases_initializer, biases_regularizer,
                trainable, variables_collections, data_format=None):
    """``y`` plus a ``biases`` variable of ``n`` entries, which Slim's layers make only when
    there is no normalizer and ``biases_initializer`` is not None."""
    if normalizer_fn is not None or biases_initializer is None:
        return y
    b = model_variable("biases", [n], dtype=dtype, initializer=biases_initializer,
                       regularizer=biases_regularizer, trainable=trainable,
                       collections=_var_collections(variables_collections, "biases"))
    return nn_ops.bias_add(y, b, data_format=data_format)


def _pair(v):
    return [int(v), int(v)] if np.isscalar(v) else [int(x) for x in v]


@add_arg_scope
def conv2d(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None,
           rate=1, activation_fn=nn_ops.relu, normalizer_fn=None, normalizer_params=None,
           weights_initializer=None, weights_regularizer=None,
           biases_initializer=init_ops.zeros_initializer(), biases_regularizer=None,
           reuse=None, variables_collections=None, outputs_collections=None,
           trainable=True, scope=None):
    """2-D convolution ``<scope>/weights [kh, kw, in, out]`` (+ ``biases`` unless a
    ``normalizer_fn`` is given or ``biases_initializer`` is None)."""
    x = convert_to_tensor(inputs)
    fmt = data_format or "NHWC"
    if x.shape.ndims != 4:
        raise ValueError(f"conv2d: inputs must be 4-D, got shape {x.shape}")
    in_c = x.shape.values[1] if fmt.startswith("NC") else x.shape.values[3]
    kh, kw = _pair(kernel_size)
    with variable_scope(scope, default_name="Conv", reuse=reuse) as sc:
        w = model_variable("weights", [kh, kw, in_c, int(num_outputs)], dtype=x.dtype,
                           initializer=weights_initializer or xavier_initializer(),
                           regularizer=weights_regularizer, trainable=trainable,
                           collections=_var_collections(variables_collections, "weights"))
        s = _pair(stride)
        strides = [1, 1] + s if fmt.startswith("NC") else [1] + s + [1]
        y = conv_ops.conv2d(x, w, strides, padding.upper(), data_format=fmt,
                            dilations=None if _pair(rate) == [1, 1] else _pair(rate))
        y = _add_biases(y, int(num_outputs), x.dtype, normalizer_fn, biases_initializer,
                        biases_regularizer, trainable, variables_collections,
                        data_format=fmt)
        return _finish(y, sc, normalizer_fn, normalizer_params, activation_fn,
                       outputs_collections)


convolution2d = conv2d


@add_arg_scope
def separable_conv2d(inputs, num_outputs, kernel_size, depth_multiplier=1, stride=1,
                     padding="SAME", data_format="NHWC", rate=1, activation_fn=nn_ops.relu,
                     normalizer_fn=None, normalizer_params=None, weights_initializer=None,
                     pointwise_initializer=None, weights_regularizer=None,
                     biases_initializer=init_ops.zeros_initializer(), biases_regularizer=None,
                     reuse=None, variables_collections=None, outputs_collections=None,
                     trainable=True, scope=None):
    """Depthwise ``<scope>/depthwise_weights [kh, kw, in, depth_multiplier]``, then (unless
    ``num_outputs`` is None: depthwise only) pointwise ``pointwise_weights [1, 1,
    in * depth_multiplier, num_outputs]``, then ``biases`` unless a normalizer is given;
    default scope ``SeparableConv2d``; ``weights_regularizer`` applies to both kernels."""
    x = convert_to_tensor(inputs)
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"separable_conv2d: data_format must be 'NHWC' or 'NCHW', got "
                         f"{data_format!r}")
    if x.shape.ndims != 4:
        raise ValueError(f"separable_conv2d: inputs must be 4-D, got shape {x.shape}")
    nchw = data_format == "NCHW"
    in_c = x.shape.values[1 if nchw else 3]
    if in_c is None:
        raise ValueError(f"separable_conv2d: the channel dimension must be known, got "
                         f"shape {x.shape}")
    kh, kw = _pair(kernel_size)
    mult = int(depth_multiplier)
    sh, sw = _pair(stride)
    rate = None if _pair(rate) == [1, 1] else _pair(rate)
    collections = _var_collections(variables_collections, "weights")
    with variable_scope(scope, default_name="SeparableConv2d", reuse=reuse) as sc:
        dw = model_variable("depthwise_weights", [kh, kw, in_c, mult], dtype=x.dtype,
                            initializer=weights_initializer or xavier_initializer(),
                            regularizer=weights_regularizer, trainable=trainable,
                            collections=collections)
        strides = [1, 1, sh, sw] if nchw else [1, sh, sw, 1]
        if num_outputs is None:
            n = in_c * mult
            y = nn_extra_ops.depthwise_conv2d(x, dw, strides, padding.upper(), rate=rate,
                                              data_format=data_format)
        else:
            n = int(num_outputs)
            pw = model_variable("pointwise_weights", [1, 1, in_c * mult, n], dtype=x.dtype,
                                initializer=(pointwise_initializer or weights_initializer
                                             or xavier_initializer()),
                                regularizer=weights_regularizer, trainable=trainable,
                                collections=collections)
            y = nn_extra_ops.separable_conv2d(x, dw, pw, strides, padding.upper(), rate=rate,
                                              data_format=data_format)
        y = _add_biases(y, n, x.dtype, normalizer_fn, biases_initializer, biases_regularizer,
                        trainable, variables_collections, data_format=data_format)
        return _finish(y, sc, normalizer_fn, normalizer_params, activation_fn,
                       outputs_collections)


separable_convolution2d = separable_conv2d


@add_arg_scope
def conv2d_transpose(inputs, num_outputs, kernel_size, stride=1, padding="SAME",
                     data_format="NHWC", activation_fn=nn_ops.relu, normalizer_fn=None,
                     normalizer_params=None, weights_initializer=None,
                     weights_regularizer=None, biases_initializer=init_ops.zeros_initializer(),
                     biases_regularizer=None, reuse=None, variables_collections=None,
                     outputs_collections=None, trainable=True, scope=None):
    """Transposed 2-D convolution ``<scope>/weights [kh, kw, out, in]`` (+ ``biases``
    unless a ``normalizer_fn`` is given or ``biases_initializer`` is None); default scope
    ``Conv2d_transpose``; output size ``in * stride`` (``SAME``) or
    ``in * stride + max(k - stride, 0)`` (``VALID``)."""
    x = convert_to_tensor(inputs)
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"conv2d_transpose: data_format must be 'NHWC' or 'NCHW', got "
                         f"{data_format!r}")
    if x.shape.ndims != 4:
        raise ValueError(f"conv2d_transpose: inputs must be 4-D, got shape {x.shape}")
    nchw = data_format == "NCHW"
    n, h, w, c = (lambda v: (v[0], v[2], v[3], v[1]) if nchw else v)(x.shape.values)
    if c is None:
        raise ValueError(f"conv2d_transpose: the channel dimension must be known, got "
                         f"shape {x.shape}")
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(stride)
    pad = padding.upper()
    out_c = int(num_outputs)
    with variable_scope(scope, default_name="Conv2d_transpose", reuse=reuse) as sc:
        wts = model_variable("weights", [kh, kw, out_c, c], dtype=x.dtype,
                             initializer=weights_initializer or xavier_initializer(),
                             regularizer=weights_regularizer, trainable=trainable,
                             collections=_var_collections(variables_collections, "weights"))
        oh = conv_extra._out_len(h, kh, sh, pad)
        ow = conv_extra._out_len(w, kw, sw, pad)
        dims = [n, out_c, oh, ow] if nchw else [n, oh, ow, out_c]
        out_shape = dims if None not in dims else conv_extra._dynamic_shape(
            x, dims, (kh, kw), (sh, sw), pad, nchw)
        y = conv_ops.conv2d_transpose(x, wts, out_shape,
                                      [1, 1, sh, sw] if nchw else [1, sh, sw, 1], pad,
                                      data_format=data_format)
        y.set_shape(dims)
        y = _add_biases(y, out_c, x.dtype, normalizer_fn, biases_initializer,
                        biases_regularizer, trainable, variables_collections,
                        data_format=data_format)
        return _finish(y, sc, normalizer_fn, normalizer_params, activation_fn,
                       outputs_collections)


convolution2d_transpose = conv2d_transpose


@add_arg_scope
def fully_connected(inputs, num_outputs, activation_fn=nn_ops.relu, normalizer_fn=None,
                    normalizer_params=None, weights_initializer=None, weights_regularizer=None,
                    biases_initializer=init_ops.zeros_initializer(), biases_regularizer=None,
                    reuse=None, variables_collections=None, outputs_collections=None,
                    trainable=True, scope=None):
    """``inputs @ weights + biases`` over the last dim (``<scope>/weights [in, out]``)."""
    x = convert_to_tensor(inputs)
    if x.shape.ndims is None or x.shape.ndims < 2 or x.shape.values[-1] is None:
        raise ValueError(f"fully_connected: inputs must have rank >= 2 and a known last "
                         f"dimension, got shape {x.shape}")
    n_in = x.shape.values[-1]
    with variable_scope(scope, default_name="fully_connected", reuse=reuse) as sc:
        w = model_variable("weights", [n_in, int(num_outputs)], dtype=x.dtype,
                           initializer=weights_initializer or xavier_initializer(),
                           regularizer=weights_regularizer, trainable=trainable,
                           collections=_var_collections(variables_collections, "weights"))
        flat = x if x.shape.ndims == 2 else array_ops.reshape(x, [-1, n_in])
        y = math_ops.matmul(flat, w)
        y = _add_biases(y, int(num_outputs), x.dtype, normalizer_fn, biases_initializer,
                        biases_regularizer, trainable, variables_collections)
        if x.shape.ndims > 2:
            inner = x.shape.values[1:-1]
            y = array_ops.reshape(y, [-1, *inner, int(num_outputs)]) if None not in inner \
                else array_ops.reshape(y, array_ops.concat(
                    [array_ops.shape(x)[:-1], convert_to_tensor([int(num_outputs)])], 0))
        return _finish(y, sc, normalizer_fn, normalizer_params, activation_fn,
                       outputs_collections)


@add_arg_scope
def bias_add(inputs, activation_fn=None, initializer=init_ops.zeros_initializer(),
             regularizer=None, reuse=None, variables_collections=None,
             outputs_collections=None, trainable=True, data_format="NHWC", scope=None):
    """``inputs + <scope>/biases`` over the channels (the last axis, axis 1 for
    ``NCHW``); default scope ``BiasAdd``."""
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"bias_add: data_format has to be either NCHW or NHWC, got "
                         f"{data_format!r}")
    x = convert_to_tensor(inputs)
    axis = 1 if data_format == "NCHW" else -1
    if x.shape.ndims is None or x.shape.ndims < 2 or x.shape.values[axis] is None:
        raise ValueError(f"bias_add: inputs must have rank >= 2 and a known channel "
                         f"dimension ({data_format}), got shape {x.shape}")
    with variable_scope(scope, default_name="BiasAdd", reuse=reuse) as sc:
        b = model_variable("biases", [x.shape.values[axis]], dtype=x.dtype,
                           initializer=initializer, regularizer=regularizer,
                           trainable=trainable,
                           collections=_var_collections(variables_collections, "biases"))
        y = nn_ops.bias_add(x, b, data_format=data_format)
        return _finish(y, sc, None, None, activation_fn, outputs_collections)


def _pool(fn, default, inputs, kernel_size, stride, padding, data_format,
          outputs_collections, scope):
    x = convert_to_tensor(inputs)
    fmt = data_format or "NHWC"
    k, s = _pair(kernel_size), _pair(stride)
    nc = fmt.startswith("NC")
    with name_scope(scope or default):
        y = fn(x, [1, 1] + k if nc else [1] + k + [1], [1, 1] + s if nc else [1] + s + [1],
               padding.upper(), data_format=fmt)
    _collect(y, outputs_collections)
    return y


@add_arg_scope
def max_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format="NHWC",
               outputs_collections=None, scope=None):
    return _pool(conv_ops.max_pool, "MaxPool2D", inputs, kernel_size, stride, padding,
                 data_format, outputs_collections, scope)


@add_arg_scope
def avg_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format="NHWC",
               outputs_collections=None, scope=None):
    return _pool(conv_ops.avg_pool, "AvgPool2D", inputs, kernel_size, stride, padding,
                 data_format, outputs_collections, scope)


@add_arg_scope
def flatten(inputs, outputs_collections=None, scope=None):
    """``[N, ...] -> [N, prod(...)]``."""
    with name_scope(scope or "Flatten"):
        y = functional.flatten(inputs)
    _collect(y, outputs_collections)
    return y


@add_arg_scope
def dropout(inputs, keep_prob=0.5, noise_shape=None, is_training=True,
            outputs_collections=None, scope=None, seed=None):
    """Keeps each element with probability ``keep_prob`` when ``is_training``."""
    with name_scope(scope or "Dropout"):
        y = functional.dropout(inputs, rate=1.0 - keep_prob, noise_shape=noise_shape,
                               seed=seed, training=is_training)
    _collect(y, outputs_collections)
    return y


@add_arg_scope
def batch_norm(inputs, decay=0.999, center=True, scale=False, epsilon=0.001,
               activation_fn=None, param_initializers=None, param_regularizers=None,
               updates_collections=GraphKeys.UPDATE_OPS, is_training=True, reuse=None,
               variables_collections=None, outputs_collections=None, trainable=True,
               batch_weights=None, fused=None, data_format="NHWC",
               zero_debias_moving_mean=False, scope=None, renorm=False,
               renorm_clipping=None, renorm_decay=0.99, adjustment=None):
    """Slim batch norm: ``<scope>/BatchNorm/{beta, gamma, moving_mean, moving_variance}``;
    moving statistics decay by ``decay``; their updates go to ``updates_collections``
    (``None``: run before the output)."""
    if batch_weights is not None or renorm or zero_debias_moving_mean:
        raise NotImplementedError("batch_norm: batch_weights, renorm and "
                                  "zero_debias_moving_mean are not supported")
    inits = param_initializers or {}
    regs = param_regularizers or {}
    g = get_default_graph()
    before = len(get_collection(GraphKeys.UPDATE_OPS))
    axis = 1 if data_format.startswith("NC") else -1
    with variable_scope(scope, default_name="BatchNorm", reuse=reuse) as sc:
        n_vars = len(get_collection(GraphKeys.GLOBAL_VARIABLES))
        y = functional.batch_normalization(
            inputs, axis=axis, momentum=decay, epsilon=epsilon, center=center, scale=scale,
            beta_initializer=inits.get("beta"), gamma_initializer=inits.get("gamma"),
            moving_mean_initializer=inits.get("moving_mean"),
            moving_variance_initializer=inits.get("moving_variance"),
            beta_regularizer=regs.get("beta"), gamma_regularizer=regs.get("gamma"),
            training=is_training, trainable=trainable, name=sc, reuse=reuse, fused=fused)
        for v in get_collection(GraphKeys.GLOBAL_VARIABLES)[n_vars:]:
            g.add_to_collection(GraphKeys.MODEL_VARIABLES, v)
            _collect(v, _var_collections(variables_collections, v.op.name.rsplit("/")[-1]))
        ups = get_collection_ref(GraphKeys.UPDATE_OPS)
        new = ups[before:]
        if updates_collections != GraphKeys.UPDATE_OPS:
            del ups[before:]
            if updates_collections is None:
                with control_dependencies(new):
                    y = identity(y)
            else:
                for u in new:
                    g.add_to_collection(updates_collections, u)
        if activation_fn is not None:
            y = activation_fn(y)
        _collect(y, outputs_collections)
        return y


@add_arg_scope
def one_hot_encoding(labels, num_classes, on_value=1.0, off_value=0.0,
                     outputs_collections=None, scope=None):
    with name_scope(scope or "OneHotEncoding"):
        y = array_ops.one_hot(convert_to_tensor(labels), int(num_classes), on_value=on_value,
                              off_value=off_value, dtype=dtypes.float32)
    _collect(y, outputs_collections)
    return y


def softmax(logits, scope=None):
    with name_scope(scope or "softmax"):
        return nn_ops.softmax(logits)


def repeat(inputs, repetitions, layer, *args, **kwargs):
    """Applies ``layer`` ``repetitions`` times in scope ``scope`` (default: the layer's
    name), the i-th call in ``<scope>/<scope>_<i>``."""
    scope = kwargs.pop("scope", None)
    with variable_scope(scope, default_name="Repeat"):
        if scope is None:
            scope = getattr(layer, "__name__", "repeat")
        outputs = inputs
        for i in range(repetitions):
            kwargs["scope"] = f"{scope}_{i + 1}"
            outputs = layer(outputs, *args, **kwargs)
        return outputs


def stack(inputs, layer, stack_args, **kwargs):
    """Applies ``layer`` once per entry of ``stack_args`` (its extra positional
    arguments), the i-th call in ``<scope>/<scope>_<i>``."""
    scope = kwargs.pop("scope", None)
    if not isinstance(stack_args, (list, tuple)):
        raise ValueError("stack_args need to be a list or tuple")
    with variable_scope(scope, default_name="Stack"):
        if scope is None:
            scope = getattr(layer, "__name__", "stack")
        outputs = inputs
        for i, args in enumerate(stack_args):
            kwargs["scope"] = f"{scope}_{i + 1}"
            if not isinstance(args, (list, tuple)):
                args = [args]
            outputs = layer(outputs, *args, **kwargs)
        return outputs


# ------------------------------------------------------------------ variable queries
def get_variables(scope=None, suffix=None, collection=GraphKeys.GLOBAL_VARIABLES):
    if scope is not None and not isinstance(scope, str):
        scope = scope.name
    out = get_collection(collection, scope)
    if suffix is not None:
        out = [v for v in out if v.op.name.endswith(suffix)]
    return out


def get_model_variables(scope=None, suffix=None):
    return get_variables(scope, suffix, GraphKeys.MODEL_VARIABLES)


def get_trainable_variables(scope=None, suffix=None):
    return get_variables(scope, suffix, GraphKeys.TRAINABLE_VARIABLES)


def get_variables_by_name(given_name, scope=None):
    return [v for v in get_variables(scope) if v.op.name.split("/")[-1] == given_name]


def get_variables_to_restore(include=None, exclude=None):
    """Global variables under any scope of ``include`` (all when ``None``) and under none
    of ``exclude``."""
    if include is None:
        candidates = get_variables()
    else:
        if not isinstance(include, (list, tuple)):
            raise TypeError("include is provided but is not a list or a tuple.")
        candidates = [v for s in include for v in get_variables(s)]
    if exclude is not None and not isinstance(exclude, (list, tuple)):
        raise TypeError("exclude is provided but is not a list or a tuple.")
    excluded = {id(v) for s in (exclude or []) for v in get_variables(s)}
    seen, out = set(), []
    for v in candidates:
        if id(v) not in excluded and id(v) not in seen:
            seen.add(id(v))
            out.append(v)
    return out
