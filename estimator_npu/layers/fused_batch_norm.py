"""``tf.nn.fused_batch_norm`` (TF1) as a composite of ``moments`` and
``batch_normalization``: its gradients are theirs."""
from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops, math_ops, nn_ops
from estimator_npu.engine.ops.core import convert_to_tensor


def fused_batch_norm(x, scale, offset=None, mean=None, variance=None, epsilon=0.001,
                     data_format="NHWC", is_training=True, name=None,
                     exponential_avg_factor=1.0):
    """TF1's ``tf.nn.fused_batch_norm`` on a 4-D ``x`` (NHWC or NCHW), built from
    ``moments`` and ``batch_normalization`` (so its gradients are theirs).

    Returns ``(y, batch_mean, batch_variance)``. Training: ``y`` is normalized with the
    batch's mean and (biased) variance, and the variance returned is the unbiased one
    (``n / (n - 1)``, n the elements per channel), as TF's kernel gives it for moving
    averages; with ``exponential_avg_factor`` f < 1 they are ``(1 - f) * mean + f * batch``.
    Inference: normalized with ``mean`` / ``variance``, which are returned.
    """
    x = convert_to_tensor(x)
    if x.shape.ndims is not None and x.shape.ndims != 4:
        raise ValueError(f"fused_batch_norm: x must be 4-D ({data_format}), got shape "
                         f"{x.shape}")
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"fused_batch_norm: data_format must be 'NHWC' or 'NCHW', got "
                         f"{data_format!r}")
    scale = convert_to_tensor(scale, dtype=dtypes.float32)
    offset = array_ops.zeros_like(scale) if offset is None else \
        convert_to_tensor(offset, dtype=dtypes.float32)
    eps = float(epsilon)  # (TF's CPU kernel keeps small epsilons; only cuDNN raises them)
    nchw = data_format == "NCHW"
    axes = [0, 2, 3] if nchw else [0, 1, 2]

    def per_channel(v):  # [C] -> broadcastable against x
        return array_ops.reshape(v, [1, -1, 1, 1]) if nchw else v

    xf = math_ops.cast(x, dtypes.float32) if x.dtype != dtypes.float32 else x
    if is_training:
        batch_mean, batch_var = nn_ops.moments(xf, axes)
        y = nn_ops.batch_normalization(xf, per_channel(batch_mean), per_channel(batch_var),
                                       per_channel(offset), per_channel(scale), eps)
        n = math_ops.cast(array_ops.size(xf), dtypes.float32) / math_ops.cast(
            array_ops.size(batch_mean), dtypes.float32)
        out_var = batch_var * (n / math_ops.maximum(n - 1.0, 1.0))
        out_mean = batch_mean
        f = float(exponential_avg_factor)
        if f != 1.0 and mean is not None and variance is not None:
            out_mean = (1.0 - f) * convert_to_tensor(mean, dtype=dtypes.float32) + f * out_mean
            out_var = (1.0 - f) * convert_to_tensor(variance, dtype=dtypes.float32) \
                + f * out_var
    else:
        if mean is None or variance is None:
            raise ValueError("fused_batch_norm: mean and variance are required when "
                             "is_training=False")
        out_mean = convert_to_tensor(mean, dtype=dtypes.float32)
        out_var = convert_to_tensor(variance, dtype=dtypes.float32)
        y = nn_ops.batch_normalization(xf, per_channel(out_mean), per_channel(out_var),
                                       per_channel(offset), per_channel(scale), eps)
    if y.dtype != x.dtype:
        y = math_ops.cast(y, x.dtype)
    y = array_ops.identity(y, name=name) if name else y
    y.set_shape(x.shape)
    out_mean.set_shape(scale.shape)
    out_var.set_shape(scale.shape)
    return y, out_mean, out_var


def batch_norm_with_global_normalization(t=None, m=None, v=None, beta=None, gamma=None,
                                         variance_epsilon=None,
                                         scale_after_normalization=None, name=None,
                                         input=None, mean=None, variance=None):  # noqa: A002
    """TF1's deprecated ``tf.nn.batch_norm_with_global_normalization``: ``batch_normalization``
    with ``beta`` as offset and ``gamma`` as scale only when ``scale_after_normalization``
    (TF's positional order; its v2-style ``input`` / ``mean`` / ``variance`` keywords too)."""
    t = input if t is None else t
    m = mean if m is None else m
    v = variance if v is None else v
    for arg, val in (("t", t), ("m", m), ("v", v), ("beta", beta), ("gamma", gamma),
                     ("variance_epsilon", variance_epsilon),
                     ("scale_after_normalization", scale_after_normalization)):
        if val is None:
            raise TypeError(f"batch_norm_with_global_normalization: argument {arg!r} is "
                            "required")
    return nn_ops.batch_normalization(t, m, v, beta,
                                      gamma if scale_after_normalization else None,
                                      variance_epsilon, name=name)
