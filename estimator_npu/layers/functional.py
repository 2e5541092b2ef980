"""``tf.layers`` functions: TF1's functional layers, on ``variable_scope`` + ``get_variable``.

Each call opens a variable scope named ``name`` (default: the layer kind, made unique in
the enclosing scope: ``dense``, ``dense_1``, ...) and creates its variables there, so the
names match TF1 checkpoints::

    h = tf.layers.dense(x, 128, activation=tf.nn.relu)    # dense/kernel, dense/bias
    h = tf.layers.batch_normalization(h, training=True)   # batch_normalization/gamma|beta|
                                                          #   moving_mean|moving_variance
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train_op = optimizer.minimize(loss)

Pass ``name=`` and ``reuse=True`` (or ``tf.AUTO_REUSE``) to share a layer's variables.
``training`` arguments accept a Python bool (one graph branch is built) or a scalar bool
tensor (both are built and selected with ``where``).
"""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine import init_ops
from estimator_npu.engine.graph import GraphKeys, Tensor, get_default_graph
from estimator_npu.engine.ops import array_ops, conv_ops, math_ops, nn_ops, state_ops
from estimator_npu.engine.ops.core import convert_to_tensor, identity, stop_gradient
from estimator_npu.engine.variable_scope import get_variable, get_variable_scope, variable_scope


# ------------------------------------------------------------------ helpers
def _float_inputs(inputs, layer):
    x = convert_to_tensor(inputs)
    if not x.dtype.is_floating:  # TF's layers are built for floating-point inputs only
        raise TypeError(f"{layer}: a layer can only be built with a floating-point dtype; "
                        f"got inputs {x.name} of {x.dtype.name} (tf.cast them first)")
    if x.shape.ndims is None:
        raise ValueError(f"{layer}: the rank of the inputs must be known, got {x}")
    return x


def _param_dtype(x):
    # float16/bfloat16 layers keep float32 parameters (mixed precision), as TF does.
    return x.dtype if x.dtype in (dtypes.float32, dtypes.float64) else dtypes.float32


def _apply_extras(y, activation, activity_regularizer):
    if activation is not None:
        y = activation(y)
    if activity_regularizer is not None:
        loss = activity_regularizer(y)
        if loss is not None:
            get_default_graph().add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
    return y


def _pair(value, what, layer):
    if isinstance(value, (int, np.integer)):
        return [int(value)] * 2
    v = [int(i) for i in value]
    if len(v) != 2:
        raise ValueError(f"{layer}: {what} must be an int or a pair of ints, got {value!r}")
    return v


def _padding(padding, layer):
    if not isinstance(padding, str) or padding.lower() not in ("valid", "same"):
        raise ValueError(f"{layer}: padding must be 'valid' or 'same', got {padding!r}")
    return padding.upper()


def _data_format(data_format, layer):
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"{layer}: data_format must be 'channels_last' or 'channels_first', "
                         f"got {data_format!r}")
    return "NCHW" if data_format == "channels_first" else "NHWC"


def _bool_or_tensor(training, layer):
    """A Python bool, or a scalar bool tensor for a graph-time switch."""
    if isinstance(training, Tensor) or hasattr(training, "_as_tensor"):
        t = convert_to_tensor(training)
        if t.dtype != dtypes.bool:
            raise TypeError(f"{layer}: training must be a Python bool or a bool tensor, got "
                            f"a {t.dtype.name} tensor")
        return t
    return bool(training)


# ------------------------------------------------------------------ dense and conv
def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=None, kernel_regularizer=None, bias_regularizer=None,
          activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
          trainable=True, name=None, reuse=None):
    """A fully connected layer ``activation(inputs @ kernel + bias)`` over the last dim.

    Args:
        inputs: a tensor of rank >= 2 with a known last dimension; higher ranks are
            transformed over the last dim (``[..., in] -> [..., units]``).
        units: the output size.
        activation: optional callable applied to the output.
        kernel_initializer: default glorot uniform (the variable scope's default);
            ``bias_initializer`` default zeros.
        kernel_regularizer, bias_regularizer, activity_regularizer: callables whose
            results go to ``GraphKeys.REGULARIZATION_LOSSES``.
        kernel_constraint, bias_constraint: projections the optimizers apply after each
            update (the variables' ``constraint``).
        trainable: add the variables to ``TRAINABLE_VARIABLES``.
        name, reuse: the variable scope and whether to reuse its variables.

    Returns:
        The output tensor.

    Raises:
        ValueError: unknown last dimension, rank < 2 or ``units < 1``.
    """
    x = _float_inputs(inputs, "dense")
    nd = x.shape.ndims
    if nd < 2 or x.shape.values[-1] is None:
        raise ValueError(f"dense: inputs must have rank >= 2 and a known last dimension, "
                         f"got shape {x.shape}")
    units = int(units)
    if units < 1:
        raise ValueError(f"dense: units must be a positive integer, got {units}")
    in_dim = x.shape.values[-1]
    dt = _param_dtype(x)
    with variable_scope(name, default_name="dense", reuse=reuse):
        kernel = get_variable("kernel", [in_dim, units], dtype=dt,
                              initializer=kernel_initializer, regularizer=kernel_regularizer,
                              constraint=kernel_constraint, trainable=trainable)
        bias = get_variable("bias", [units], dtype=dt,
                            initializer=bias_initializer or init_ops.zeros_initializer(),
                            regularizer=bias_regularizer, constraint=bias_constraint,
                            trainable=trainable) \
            if use_bias else None
        kernel_t, bias_t = (math_ops.cast(v, x.dtype) if v is not None else None
                            for v in (kernel, bias))
        if nd == 2:
            y = math_ops.matmul(x, kernel_t)
        else:
            y = math_ops.matmul(array_ops.reshape(x, [-1, in_dim]), kernel_t)
            inner = x.shape.values[1:-1]
            if None not in inner:
                y = array_ops.reshape(y, [-1, *inner, units])
            else:
                lead = array_ops.shape(x)[:-1]
                y = array_ops.reshape(y, array_ops.concat(
                    [lead, convert_to_tensor([units], dtype=dtypes.int32)], 0))
        if bias_t is not None:
            y = nn_ops.bias_add(y, bias_t)
        return _apply_extras(y, activation, activity_regularizer)


def conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
           data_format="channels_last", dilation_rate=(1, 1), activation=None, use_bias=True,
           kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
           bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None):
    """A 2-D convolution layer: variables ``conv2d/kernel [kh, kw, in, filters]`` and
    ``conv2d/bias [filters]``.

    Args:
        inputs: 4-D tensor, ``channels_last`` (NHWC) or ``channels_first`` (NCHW).
        filters: number of output channels.
        kernel_size, strides, dilation_rate: an int or a pair of ints.
        padding: ``"valid"`` or ``"same"`` (case-insensitive).
        Other arguments as for ``dense``.

    Raises:
        ValueError: bad padding/data_format, non-4-D inputs or unknown input channels.
    """
    x = _float_inputs(inputs, "conv2d")
    fmt = _data_format(data_format, "conv2d")
    if x.shape.ndims != 4:
        raise ValueError(f"conv2d: inputs must be 4-D, got shape {x.shape}")
    in_c = x.shape.values[1] if fmt == "NCHW" else x.shape.values[3]
    if in_c is None:
        raise ValueError(f"conv2d: the channel dimension of the inputs must be known, got "
                         f"shape {x.shape} ({data_format})")
    kh, kw = _pair(kernel_size, "kernel_size", "conv2d")
    pad = _padding(padding, "conv2d")
    stride = _pair(strides, "strides", "conv2d")
    dil = _pair(dilation_rate, "dilation_rate", "conv2d")
    if isinstance(filters, bool) or int(filters) < 1:
        raise ValueError(f"conv2d: filters must be a positive integer, got {filters!r}")
    dt = _param_dtype(x)
    with variable_scope(name, default_name="conv2d", reuse=reuse):
        kernel = get_variable("kernel", [kh, kw, in_c, int(filters)], dtype=dt,
                              initializer=kernel_initializer, regularizer=kernel_regularizer,
                              constraint=kernel_constraint, trainable=trainable)
        y = conv_ops.conv2d(x, math_ops.cast(kernel, x.dtype), stride, pad, data_format=fmt,
                            dilations=dil)
        if use_bias:
            bias = get_variable("bias", [int(filters)], dtype=dt,
                                initializer=bias_initializer or init_ops.zeros_initializer(),
                                regularizer=bias_regularizer, constraint=bias_constraint,
                            trainable=trainable)
            y = nn_ops.bias_add(y, math_ops.cast(bias, x.dtype), data_format=fmt)
        return _apply_extras(y, activation, activity_regularizer)


def _pooling2d(fn, default_name, inputs, pool_size, strides, padding, data_format, name):
    x = _float_inputs(inputs, default_name)
    fmt = _data_format(data_format, default_name)
    ksize = _pair(pool_size, "pool_size", default_name)
    stride = _pair(strides, "strides", default_name)
    pad = _padding(padding, default_name)
    with get_default_graph().name_scope(name or default_name):
        return fn(x, ksize, stride, pad, data_format=fmt)


def max_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None):
    """2-D max pooling; ``pool_size``/``strides`` an int or a pair of ints."""
    return _pooling2d(conv_ops.max_pool, "max_pooling2d", inputs, pool_size, strides,
                      padding, data_format, name)


def average_pooling2d(inputs, pool_size, strides, padding="valid",
                      data_format="channels_last", name=None):
    """2-D average pooling (``same`` divides each window by its non-padded count)."""
    return _pooling2d(conv_ops.avg_pool, "average_pooling2d", inputs, pool_size, strides,
                      padding, data_format, name)


def flatten(inputs, name=None, data_format="channels_last"):
    """Flattens all but the first dimension: ``[N, ...] -> [N, prod(...)]`` (a
    ``channels_first`` input is first made channels-last, as TF does)."""
    x = convert_to_tensor(inputs)
    if x.shape.ndims is None or x.shape.ndims < 1:
        raise ValueError(f"flatten: inputs must have a known rank >= 1, got shape {x.shape}")
    _data_format(data_format, "flatten")
    with get_default_graph().name_scope(name or "flatten"):
        nd = x.shape.ndims
        if data_format == "channels_first" and nd > 2:
            x = array_ops.transpose(x, [0, *range(2, nd), 1])
        rest = x.shape.values[1:]
        if None not in rest:
            return array_ops.reshape(x, [-1, int(np.prod(rest, dtype=np.int64))])
        lead = array_ops.shape(x)[:1]
        return array_ops.reshape(x, array_ops.concat(
            [lead, convert_to_tensor([-1], dtype=dtypes.int32)], 0))


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """Drops elements with probability ``rate`` (scaling the rest by ``1/(1-rate)``) when
    ``training``; the identity otherwise."""
    x = convert_to_tensor(inputs)
    training = _bool_or_tensor(training, "dropout")
    with get_default_graph().name_scope(name or "dropout"):
        if training is False:
            return identity(x)
        dropped = nn_ops.dropout(x, rate=rate, noise_shape=noise_shape, seed=seed)
        if training is True:
            return dropped
        return array_ops.where(training, dropped, x)


# ------------------------------------------------------------------ normalization
def _norm_axes(axis, nd, layer):
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    out = []
    for a in axes:
        if not -nd <= int(a) < nd:
            raise ValueError(f"{layer}: axis {a} is out of range for inputs of rank {nd}")
        out.append(int(a) % nd)
    return sorted(set(out))


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True,
                        scale=True, beta_initializer=None, gamma_initializer=None,
                        moving_mean_initializer=None, moving_variance_initializer=None,
                        beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                        gamma_constraint=None, training=False, trainable=True, name=None,
                        reuse=None, renorm=False, renorm_clipping=None, renorm_momentum=0.99,
                        fused=None, virtual_batch_size=None, adjustment=None):
    """Batch normalization over all axes except ``axis`` (the feature axis/axes).

    Training (``training=True``) normalizes with the batch mean and (biased) variance and
    adds to ``GraphKeys.UPDATE_OPS`` the moving-average updates::

        moving_mean     <- moving_mean     * momentum + batch_mean     * (1 - momentum)
        moving_variance <- moving_variance * momentum + batch_variance * (1 - momentum)

    where, as in TF1, ``batch_variance`` is the unbiased one (``n / (n - 1)``, n elements
    per channel) on TF's fused path: 4-D float16/bfloat16/float32 inputs normalized over
    axis 1 or 3, unless ``fused=False``; otherwise the biased one.

    which the caller must run (usually as control dependencies of the train op).
    Inference uses the moving statistics. With a bool tensor ``training`` both paths are
    built and the updates leave the moving statistics unchanged when it is false.

    Raises:
        ValueError: unknown rank or feature dimension, an out-of-range axis, or one of the
            unsupported options (``renorm``, ``virtual_batch_size``, ``adjustment``).
    """
    if renorm or virtual_batch_size is not None or adjustment is not None:
        raise ValueError("batch_normalization: renorm, virtual_batch_size and adjustment "
                         "are not supported")
    x = _float_inputs(inputs, "batch_normalization")
    nd = x.shape.ndims
    axes = _norm_axes(axis, nd, "batch_normalization")
    param_shape = [x.shape.values[a] for a in axes]
    if None in param_shape:
        raise ValueError(f"batch_normalization: the feature dimension(s) {axes} of the inputs "
                         f"must be known, got shape {x.shape}")
    reduce_axes = [i for i in range(nd) if i not in axes]
    fused_path = fused is not False and nd == 4 and axes in ([1], [3]) and \
        x.dtype.name in ("float16", "bfloat16", "float32")
    training = _bool_or_tensor(training, "batch_normalization")
    dt = _param_dtype(x)
    out_dtype = x.dtype
    x = math_ops.cast(x, dt)
    with variable_scope(name, default_name="batch_normalization", reuse=reuse):
        def var(vname, init, default, trainable_, reg=None):
            return get_variable(vname, param_shape, dtype=dt, initializer=init or default(),
                                regularizer=reg, trainable=trainable_)
        gamma = var("gamma", gamma_initializer, init_ops.ones_initializer, trainable,
                    gamma_regularizer) if scale else None
        beta = var("beta", beta_initializer, init_ops.zeros_initializer, trainable,
                   beta_regularizer) if center else None
        # as TF: the moving statistics are never partitioned (updated as whole variables)
        scope = get_variable_scope()
        partitioner, scope.partitioner = scope.partitioner, None
        try:
            moving_mean = var("moving_mean", moving_mean_initializer,
                              init_ops.zeros_initializer, False)
            moving_var = var("moving_variance", moving_variance_initializer,
                             init_ops.ones_initializer, False)
        finally:
            scope.partitioner = partitioner
        bshape = [x.shape.values[i] if i in axes else 1 for i in range(nd)]

        def bcast(t):
            if t is None or axes == [nd - 1]:
                return t
            return array_ops.reshape(t, bshape)

        if training is False:
            mean, variance = moving_mean, moving_var
        else:
            batch_mean, batch_var = nn_ops.moments(x, reduce_axes)
            update_var = batch_var
            if fused_path:  # TF's fused kernel hands the moving average the unbiased variance
                n = math_ops.cast(array_ops.size(x), dt) / float(param_shape[0])
                update_var = batch_var * (n / math_ops.maximum(n - 1.0, 1.0))
            decay = 1.0 - momentum
            if training is True:
                mean, variance = batch_mean, batch_var
            else:
                mean = array_ops.where(training, batch_mean, moving_mean)
                variance = array_ops.where(training, batch_var, moving_var)
                decay = math_ops.cast(training, dt) * decay
            g = get_default_graph()
            for v, batch in ((moving_mean, batch_mean), (moving_var, update_var)):
                # moving -= (moving - batch) * (1 - momentum), TF's assign_moving_average.
                upd = state_ops.assign_sub(v, (v - stop_gradient(batch)) * decay)
                g.add_to_collection(GraphKeys.UPDATE_OPS, upd)
        y = nn_ops.batch_normalization(x, bcast(mean), bcast(variance), bcast(beta),
                                       bcast(gamma), epsilon)
        return math_ops.cast(y, out_dtype)


def instance_norm(inputs, center=True, scale=True, epsilon=1e-6, activation_fn=None,
                  param_initializers=None, reuse=None, variables_collections=None,
                  outputs_collections=None, trainable=True, data_format="NHWC", scope=None):
    """Instance normalization (``tf.contrib.layers.instance_norm``).

    Normalizes each example and channel over the spatial dims (all but the batch and channel
    axes of ``data_format`` ``NHWC``/``NCHW``-style inputs of rank >= 3) and applies
    per-channel ``beta``/``gamma`` in variable scope ``InstanceNorm``; ``param_initializers``
    may map ``beta``/``gamma`` to initializers.
    """
    x = _float_inputs(inputs, "instance_norm")
    nd = x.shape.ndims
    if nd is None or nd < 3:
        raise ValueError(f"instance_norm: inputs must have a known rank >= 3, got {x.shape}")
    if data_format not in ("NHWC", "NCHW", "NDHWC", "NCDHW", "NWC", "NCW"):
        raise ValueError(f"instance_norm: data_format must be NHWC-like or NCHW-like, got "
                         f"{data_format!r}")
    channels_first = data_format.startswith("NC")
    c_axis = 1 if channels_first else nd - 1
    channels = x.shape.values[c_axis]
    if channels is None:
        raise ValueError(f"instance_norm: inputs {x.shape} must have a known channel dim")
    norm_axes = [a for a in range(1, nd) if a != c_axis]
    inits = dict(param_initializers or {})
    dt = _param_dtype(x)
    out_dtype = x.dtype
    x = math_ops.cast(x, dt)
    with variable_scope(scope, default_name="InstanceNorm", reuse=reuse):
        return _normalize(x, norm_axes, [channels], center, scale, epsilon, trainable,
                          variables_collections, outputs_collections, activation_fn,
                          out_dtype, inits,
                          [channels] + [1] * (nd - 2) if channels_first else None)


def layer_norm(inputs, center=True, scale=True, activation_fn=None, reuse=None,
               variables_collections=None, outputs_collections=None, trainable=True,
               begin_norm_axis=1, begin_params_axis=-1, scope=None):
    """Layer normalization (``tf.contrib.layers.layer_norm``).

    Normalizes over dims ``begin_norm_axis..rank-1`` (mean and variance per example, with
    variance epsilon 1e-12) and applies ``beta``/``gamma`` of shape
    ``inputs.shape[begin_params_axis:]``, in variable scope ``LayerNorm``.

    Raises:
        ValueError: unknown rank, out-of-range axes or unknown parameter dimensions.
    """
    x = _float_inputs(inputs, "layer_norm")
    nd = x.shape.ndims
    for what, a in (("begin_norm_axis", begin_norm_axis),
                    ("begin_params_axis", begin_params_axis)):
        if not -nd <= a < nd:
            raise ValueError(f"layer_norm: {what} {a} is out of range for inputs of shape "
                             f"{x.shape}")
    norm_axes = list(range(begin_norm_axis % nd, nd))
    params_shape = x.shape.values[begin_params_axis % nd:]
    if None in params_shape:
        raise ValueError(f"layer_norm: inputs {x.shape} must have fully defined dims from "
                         f"begin_params_axis {begin_params_axis}")
    dt = _param_dtype(x)
    out_dtype = x.dtype
    x = math_ops.cast(x, dt)
    with variable_scope(scope, default_name="LayerNorm", reuse=reuse):
        return _normalize(x, norm_axes, params_shape, center, scale, 1e-12, trainable,
                          variables_collections, outputs_collections, activation_fn,
                          out_dtype)


def _normalize(x, norm_axes, params_shape, center, scale, epsilon, trainable,
               variables_collections, outputs_collections, activation_fn, out_dtype,
               initializers=None, params_view=None):
    """``(x - mean) / sqrt(var + epsilon) * gamma + beta`` over ``norm_axes`` (moments per
    example), with variables ``beta`` / ``gamma`` of ``params_shape`` (viewed as
    ``params_view`` when given) made in the current scope; cast to ``out_dtype``, then
    ``activation_fn``; the shared tail of instance_norm and layer_norm."""
    g = get_default_graph()
    params = {}
    for pname, on, init in (("beta", center, init_ops.zeros_initializer),
                            ("gamma", scale, init_ops.ones_initializer)):
        if on:
            v = get_variable(pname, list(params_shape), dtype=x.dtype,
                             initializer=(initializers or {}).get(pname, init()),
                             trainable=trainable)
            for c in _collections(variables_collections, pname):
                g.add_to_collection(c, v)
            params[pname] = v if params_view is None else array_ops.reshape(v, params_view)
    mean, variance = nn_ops.moments(x, norm_axes, keep_dims=True)
    y = nn_ops.batch_normalization(x, mean, variance, params.get("beta"),
                                   params.get("gamma"), epsilon)
    y = math_ops.cast(y, out_dtype)
    if activation_fn is not None:
        y = activation_fn(y)
    for c in outputs_collections or []:
        g.add_to_collection(c, y)
    return y


def _collections(spec, key):
    if spec is None:
        return []
    if isinstance(spec, dict):
        spec = spec.get(key) or []
    return [spec] if isinstance(spec, str) else list(spec)


__all__ = ["dense", "conv2d", "max_pooling2d", "average_pooling2d", "flatten", "dropout",
           "batch_normalization", "layer_norm"]
