"""TF1 functions composed from other ops (whose gradients they use), and the
``multinomial`` / ``random.categorical`` sampler."""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops, conv_ops, math_ops, nn_ops
from estimator_npu.engine.ops.core import convert_to_tensor, make_tensor, stop_gradient
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily

OPS = OpFamily(__name__)  # this family's op definitions (data)


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None,
                     reduction_indices=None, keep_dims=None):
    x = convert_to_tensor(input_tensor)
    keep = bool(keep_dims if keep_dims is not None else keepdims)
    axis = axis if axis is not None else reduction_indices
    m = stop_gradient(math_ops.reduce_max(x, axis=axis, keepdims=True))
    m = array_ops.where(math_ops.is_finite(m), m, array_ops.zeros_like(m))
    out = math_ops.log(math_ops.reduce_sum(math_ops.exp(x - m), axis=axis, keepdims=True))
    if not keep:
        m = math_ops.reduce_sum(m, axis=axis)   # drop the kept dims (each of size 1)
        out = math_ops.reduce_sum(out, axis=axis)
    return math_ops.add(out, m, name=name)


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    x = convert_to_tensor(input_tensor)
    mean = math_ops.reduce_mean(x, axis=axis, keepdims=True)
    return math_ops.reduce_mean(math_ops.square(x - mean), axis=axis, keepdims=keepdims,
                                name=name)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    return math_ops.sqrt(reduce_variance(input_tensor, axis, keepdims), name=name)


def count_nonzero(input_tensor, axis=None, keepdims=None, dtype=dtypes.int64, name=None,
                  reduction_indices=None, keep_dims=None):
    x = convert_to_tensor(input_tensor)
    keep = bool(keep_dims if keep_dims is not None else keepdims)
    nz = math_ops.cast(math_ops.not_equal(x, array_ops.zeros_like(x)), dtypes.int64)
    out = math_ops.reduce_sum(nz, axis=axis if axis is not None else reduction_indices,
                              keepdims=keep)
    return math_ops.cast(out, dtype, name=name)


def log_sigmoid(x, name=None):
    return math_ops.negative(nn_ops.softplus(math_ops.negative(convert_to_tensor(x))),
                             name=name)


def selu(features, name=None):
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    x = convert_to_tensor(features)
    return math_ops.multiply(scale, array_ops.where(
        math_ops.greater(x, 0.0), x, alpha * nn_ops.elu(x)), name=name)


def swish(features, name=None):
    x = convert_to_tensor(features)
    return math_ops.multiply(x, math_ops.sigmoid(x), name=name)


def softsign(features, name=None):
    x = convert_to_tensor(features)
    return math_ops.divide(x, 1.0 + math_ops.abs(x), name=name)


def crelu(features, name=None, axis=-1):
    x = convert_to_tensor(features)
    return nn_ops.relu(array_ops.concat([x, math_ops.negative(x)], axis), name=name)


def relu_layer(x, weights, biases, name=None):
    return nn_ops.relu(nn_ops.bias_add(math_ops.matmul(x, weights), biases), name=name)


def weighted_cross_entropy_with_logits(targets=None, logits=None, pos_weight=None, name=None,
                                       labels=None):
    """``(1 - z) x + (1 + (q - 1) z) * (log(1 + exp(-|x|)) + max(-x, 0))``."""
    z = convert_to_tensor(labels if labels is not None else targets)
    x = convert_to_tensor(logits)
    z = math_ops.cast(z, x.dtype)
    lw = 1.0 + (pos_weight - 1.0) * z
    return math_ops.add((1.0 - z) * x, lw * (nn_ops.softplus(math_ops.negative(
        math_ops.abs(x))) + nn_ops.relu(math_ops.negative(x))), name=name)


from estimator_npu.engine.constant_value import constant_value  # noqa: E402


def confusion_matrix(labels, predictions, num_classes=None, weights=None,
                     dtype=dtypes.int32, name=None):
    """``cm[i, j]`` = (weighted) count of label ``i`` predicted as ``j``."""
    from estimator_npu.engine.ops.scatter_ops import unsorted_segment_sum
    lab = array_ops.reshape(math_ops.cast(convert_to_tensor(labels), dtypes.int32), [-1])
    pred = array_ops.reshape(math_ops.cast(convert_to_tensor(predictions), dtypes.int32), [-1])
    if num_classes is None:
        num_classes = math_ops.maximum(math_ops.reduce_max(lab), math_ops.reduce_max(pred)) + 1
    folded = constant_value(convert_to_tensor(num_classes))  # constant: a static shape, as TF
    num_classes = math_ops.cast(num_classes, dtypes.int32) if folded is None else int(folded)
    n = convert_to_tensor(num_classes, dtype=dtypes.int32)
    w = array_ops.ones_like(lab, dtype=dtypes.float64) if weights is None else \
        array_ops.reshape(math_ops.cast(convert_to_tensor(weights), dtypes.float64), [-1])
    counts = unsorted_segment_sum(w, lab * n + pred, n * n)
    shape = array_ops.stack([n, n]) if not isinstance(num_classes, int) else \
        [num_classes, num_classes]
    return math_ops.cast(array_ops.reshape(counts, shape), dtype, name=name)


def conv1d(value=None, filters=None, stride=1, padding="VALID", use_cudnn_on_gpu=None,
           data_format="NWC", name=None, input=None, dilations=None):  # noqa: A002
    """1-D convolution of ``[N, W, C]`` with ``[K, C, O]`` filters (as a 2-D one)."""
    x = convert_to_tensor(value if value is not None else input)
    w = convert_to_tensor(filters, dtype=x.dtype)
    if data_format not in ("NWC", "NHWC"):
        raise ValueError(f"conv1d: data_format must be 'NWC', got {data_format!r}")
    y = conv_ops.conv2d(array_ops.expand_dims(x, 1), array_ops.expand_dims(w, 0),
                        [1, 1, int(stride), 1], padding,
                        dilations=None if dilations is None else [1, 1, int(dilations), 1])
    return array_ops.squeeze(y, [1], name=name)


def atrous_conv2d(value, filters, rate, padding, name=None):
    return conv_ops.conv2d(value, filters, [1, 1, 1, 1], padding, dilations=[1, rate, rate, 1],
                           name=name)


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=dtypes.int64):
    """``num_samples`` class indices per row of ``logits`` ``[batch, classes]``."""
    from estimator_npu.engine.ops.random_ops import get_seed
    x = convert_to_tensor(logits)
    s1, s2 = get_seed(seed)
    odt = dtypes.as_dtype(output_dtype)
    shape = [x.shape.values[0] if x.shape.ndims else None, int(num_samples)]
    return make_tensor("Multinomial", [x], odt, shape,
                       {"n": int(num_samples), "dtype": odt,
                        "seed2": None if s1 is None else [s1 & 0xFFFFFFFF, s2 & 0xFFFFFFFF]},
                       name=name)


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    return multinomial(logits, num_samples, seed, name, dtype or dtypes.int64)


def _multinomial_kernel(op, ctx):
    """TF's CPU sampler: per row, a double in [0, 1) from two words of the op's generator
    times the row's unnormalized CDF (finite logits only), found by upper bound; the rows
    draw one after another (TF's values while its kernel runs in one shard: small batches)."""
    from estimator_npu.utils import philox
    n, npd = op.attrs["n"], op.attrs["dtype"].np

    def sample(x):
        z = np.asarray(x, np.float64)
        b = z.shape[0]
        stream = ctx.philox(op)
        counter = stream.reserve_outputs(b * ((n + 3) // 4 * 4 * 2))
        words = philox.blocks(stream.key, counter, np.arange(-(-(b * n * 2) // 4),
                                                             dtype=np.uint64)).reshape(-1)
        u = philox.uint64_to_double(words[0:2 * b * n:2], words[1:2 * b * n:2]).reshape(b, n)
        fin = np.isfinite(z)
        top = np.where(fin, z, -np.inf).max(axis=1, keepdims=True) if z.size else z
        cdf = np.cumsum(np.where(fin, np.exp(z - top), 0.0), axis=1)
        return np.stack([np.searchsorted(cdf[i], u[i] * cdf[i, -1], side="right")
                         for i in range(b)]).astype(npd) if b and z.shape[1] else \
            np.zeros((b, n), npd)
    return sample


OPS.define("Multinomial", kernel=_multinomial_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)
