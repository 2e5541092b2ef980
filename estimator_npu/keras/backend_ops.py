"""The tensor helpers of ``tf.keras.backend`` (``K.mean``, ``K.dot``, ``K.function``,
``K.in_train_phase``, the backend cross-entropies, ...), re-exported by ``backend``;
import them from there (this module imports ``backend``)."""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops, control_ops, math_ops, nn_ops
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.keras.backend import (epsilon, floatx, get_session, int_shape,
                                         learning_phase)

_IMPORTED = set(globals())


def _axis(axis):
    return list(axis) if isinstance(axis, (list, tuple)) else axis


def mean(x, axis=None, keepdims=False):
    x = convert_to_tensor(x)
    if x.dtype == dtypes.bool:
        x = math_ops.cast(x, floatx())
    return math_ops.reduce_mean(x, _axis(axis), keepdims=keepdims)


def sum(x, axis=None, keepdims=False):  # noqa: A001
    return math_ops.reduce_sum(x, _axis(axis), keepdims=keepdims)


def max(x, axis=None, keepdims=False):  # noqa: A001
    return math_ops.reduce_max(x, _axis(axis), keepdims=keepdims)


def min(x, axis=None, keepdims=False):  # noqa: A001
    return math_ops.reduce_min(x, _axis(axis), keepdims=keepdims)


def prod(x, axis=None, keepdims=False):
    return math_ops.reduce_prod(x, _axis(axis), keepdims=keepdims)


def argmax(x, axis=-1):
    return math_ops.argmax(x, axis)


def argmin(x, axis=-1):
    return math_ops.argmin(x, axis)


def dot(x, y):
    return math_ops.matmul(x, y)


def batch_dot(x, y, axes=None):
    return math_ops.matmul(x, y)


def concatenate(tensors, axis=-1):
    return array_ops.concat(list(tensors), axis)


def clip(x, min_value, max_value):
    return math_ops.clip_by_value(x, min_value, max_value)


def softmax(x, axis=-1):
    return nn_ops.softmax(x, axis=axis)


def relu(x, alpha=0.0, max_value=None, threshold=0):
    y = nn_ops.leaky_relu(x, alpha) if alpha else nn_ops.relu(x)
    return y if max_value is None else math_ops.minimum(y, max_value)


def stop_gradient(x):
    from estimator_npu.engine.ops.core import stop_gradient as _sg
    return _sg(x)


def _simple(fn):
    return lambda x, *a, **k: fn(x, *a, **k)


square, sqrt, exp, log, abs = (_simple(math_ops.square), _simple(math_ops.sqrt),  # noqa: A001
                               _simple(math_ops.exp), _simple(math_ops.log),
                               _simple(math_ops.abs))
sigmoid, tanh = _simple(math_ops.sigmoid), _simple(math_ops.tanh)
reshape, transpose = _simple(array_ops.reshape), _simple(array_ops.transpose)
expand_dims, squeeze = _simple(array_ops.expand_dims), _simple(array_ops.squeeze)
stack, tile, gather = (_simple(array_ops.stack), _simple(array_ops.tile),
                       _simple(array_ops.gather))
zeros_like, ones_like = _simple(array_ops.zeros_like), _simple(array_ops.ones_like)
maximum, minimum, pow = (_simple(math_ops.maximum), _simple(math_ops.minimum),  # noqa: A001
                         _simple(math_ops.pow))
equal, cast = _simple(math_ops.equal), _simple(math_ops.cast)



class Function:
    """``backend.function(inputs, outputs, updates)``: ``f([values]) -> [outputs]`` run in
    the Keras session (the updates run too)."""

    def __init__(self, inputs, outputs, updates=None, name=None):
        self.inputs = list(inputs)
        self.outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        self._single = not isinstance(outputs, (list, tuple))
        self.updates = list(updates or [])

    def __call__(self, inputs):
        values = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        if len(values) != len(self.inputs):
            raise ValueError(f"function expects {len(self.inputs)} input value(s), got "
                             f"{len(values)}")
        feed = {}
        for t, v in zip(self.inputs, values):
            if isinstance(t, int):  # set_learning_phase-style constant
                continue
            feed[t] = v
        out = get_session().run(self.outputs + self.updates, feed)
        out = out[:len(self.outputs)]
        return out[0] if self._single else out


def function(inputs, outputs, updates=None, name=None, **kwargs):
    return Function(inputs, outputs, updates, name)


def in_train_phase(x, alt, training=None):
    if training is None:
        training = learning_phase()
    if training is True or training == 1 and not hasattr(training, "op"):
        return x() if callable(x) else x
    if training is False or training == 0 and not hasattr(training, "op"):
        return alt() if callable(alt) else alt
    return switch(training, x, alt)


def in_test_phase(x, alt, training=None):
    return in_train_phase(alt, x, training)


def switch(condition, then_expression, else_expression):
    """As TF's ``K.switch``: a scalar condition is a ``tf.cond`` (only the taken branch's
    functions run), any other an element-wise ``where`` of both."""
    condition = convert_to_tensor(condition)
    if condition.dtype != dtypes.bool:
        condition = math_ops.cast(condition, dtypes.bool)
    if condition.shape.ndims == 0:
        return control_ops.cond(condition, _as_fn(then_expression), _as_fn(else_expression))
    t = then_expression() if callable(then_expression) else then_expression
    e = else_expression() if callable(else_expression) else else_expression
    return array_ops.where(condition, t, e)


def _as_fn(value):
    return value if callable(value) else (lambda: value)


def zeros(shape, dtype=None, name=None):
    return array_ops.zeros(shape, dtype or floatx(), name=name)


def ones(shape, dtype=None, name=None):
    return array_ops.ones(shape, dtype or floatx(), name=name)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    from estimator_npu.engine.ops import random_ops
    return random_ops.random_normal(shape, mean, stddev, dtype or floatx(), seed=seed)


def random_uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    from estimator_npu.engine.ops import random_ops
    return random_ops.random_uniform(shape, minval, maxval, dtype or floatx(), seed=seed)


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    from estimator_npu.keras import losses
    return losses.categorical_crossentropy(target, output, from_logits=from_logits)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    from estimator_npu.keras import losses
    return losses.sparse_categorical_crossentropy(target, output, from_logits=from_logits)


def binary_crossentropy(target, output, from_logits=False):
    from estimator_npu.keras import losses
    eps = epsilon()
    if from_logits:
        return nn_ops.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    del losses
    p = math_ops.clip_by_value(output, eps, 1.0 - eps)
    return -(target * math_ops.log(p + eps) + (1.0 - target) * math_ops.log(1.0 - p + eps))


def l2_normalize(x, axis=None):
    return nn_ops.l2_normalize(x, axis)


def count_params(x):
    return int(np.prod(int_shape(x)))


def update(x, new_x):
    from estimator_npu.engine.ops import state_ops
    return state_ops.assign(x, new_x)


def update_add(x, increment):
    from estimator_npu.engine.ops import state_ops
    return state_ops.assign_add(x, increment)


__all__ = sorted(n for n in set(globals()) - _IMPORTED if not n.startswith("_"))
