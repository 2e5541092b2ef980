"""``tf.keras.activations``: the activation functions layers take (by name too).

``softmax`` and ``sigmoid`` remember their input on the output tensor (``_keras_logits``),
so the cross-entropy losses work from the logits, as Keras does."""
from estimator_npu.engine.ops import math_ops, nn_ops


def _tag(y, logits):
    from estimator_npu.keras.backend import set_logits
    set_logits(y, logits)
    return y


def softmax(x, axis=-1):
    return _tag(nn_ops.softmax(x, axis=axis), x)


def sigmoid(x):
    return _tag(math_ops.sigmoid(x), x)


def relu(x, alpha=0.0, max_value=None, threshold=0):
    y = nn_ops.leaky_relu(x, alpha) if alpha else nn_ops.relu(x)
    return y if max_value is None else math_ops.minimum(y, float(max_value))


def relu6(x):
    return nn_ops.relu6(x)


def tanh(x):
    return math_ops.tanh(x)


def elu(x, alpha=1.0):
    y = nn_ops.elu(x)
    return y if alpha == 1.0 else math_ops.maximum(y * alpha, y)


def selu(x):
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    return scale * math_ops.maximum(x, 0.0) + scale * alpha * math_ops.minimum(
        math_ops.exp(math_ops.minimum(x, 0.0)) - 1.0, 0.0)


def softplus(x):
    return nn_ops.softplus(x)


def softsign(x):
    return x / (math_ops.abs(x) + 1.0)


def exponential(x):
    return math_ops.exp(x)


def hard_sigmoid(x):
    return math_ops.clip_by_value(0.2 * x + 0.5, 0.0, 1.0)


def swish(x):
    return x * math_ops.sigmoid(x)


def gelu(x, approximate=False):
    return nn_ops.gelu(x, approximate=approximate)


def linear(x):
    return x


_BY_NAME = {f.__name__: f for f in (softmax, sigmoid, relu, relu6, tanh, elu, selu, softplus,
                                    softsign, exponential, hard_sigmoid, swish, gelu, linear)}


def get(identifier):
    """An activation from a name (``'relu'``), a callable or ``None`` (linear)."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Unknown activation function: {identifier!r}; known: "
                             f"{sorted(_BY_NAME)}")
        return _BY_NAME[identifier]
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret activation function identifier: {identifier!r}")


def serialize(activation):
    return getattr(activation, "__name__", repr(activation))
