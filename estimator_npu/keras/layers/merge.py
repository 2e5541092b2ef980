"""``tf.keras.layers`` merge layers (Add, Subtract, Multiply, Average, Maximum, Minimum,
Concatenate, Dot) and their functional forms (``add([a, b])``, ``concatenate``...)."""
import functools

from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.keras.engine.base_layer import Layer


class _Merge(Layer):
    _op = None

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 1:
            raise ValueError(f"{type(self).__name__} {self.name}: a merge layer should be "
                             f"called on a list of inputs, got {inputs!r}")
        xs = [convert_to_tensor(x) for x in inputs]
        return self._merge(xs)

    def _merge(self, xs):
        return functools.reduce(type(self)._op, xs)


class Add(_Merge):
    _op = staticmethod(math_ops.add)

    def _merge(self, xs):
        return xs[0] if len(xs) == 1 else math_ops.add_n(xs) if all(
            x.shape.is_fully_defined() and x.shape == xs[0].shape for x in xs) else \
            functools.reduce(math_ops.add, xs)


class Subtract(_Merge):
    def _merge(self, xs):
        if len(xs) != 2:
            raise ValueError(f"Subtract {self.name}: expects exactly 2 inputs, got {len(xs)}")
        return math_ops.subtract(xs[0], xs[1])


class Multiply(_Merge):
    _op = staticmethod(math_ops.multiply)


class Maximum(_Merge):
    _op = staticmethod(math_ops.maximum)


class Minimum(_Merge):
    _op = staticmethod(math_ops.minimum)


class Average(_Merge):
    def _merge(self, xs):
        return functools.reduce(math_ops.add, xs) / float(len(xs))


class Concatenate(_Merge):
    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def get_config(self):
        return dict(super().get_config(), axis=self.axis)

    def _merge(self, xs):
        return array_ops.concat(xs, self.axis)


class Dot(_Merge):
    """Dot products of two ``[batch, n]`` inputs along ``axes`` (optionally of their
    L2-normalized versions: cosine proximity)."""

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        self.axes, self.normalize = axes, normalize

    def get_config(self):
        return dict(super().get_config(), axes=self.axes, normalize=self.normalize)

    def _merge(self, xs):
        a, b = xs
        if self.normalize:
            from estimator_npu.engine.ops import nn_ops
            a, b = nn_ops.l2_normalize(a, -1), nn_ops.l2_normalize(b, -1)
        if a.shape.ndims == 2:
            return math_ops.reduce_sum(a * b, -1, keepdims=True)
        axes = self.axes if isinstance(self.axes, (list, tuple)) else (self.axes,) * 2
        return math_ops.matmul(a, b, transpose_a=axes[0] == 1, transpose_b=axes[1] == 2)


def _functional(cls):
    def fn(inputs, **kwargs):
        return cls(**kwargs)(inputs)
    fn.__name__ = cls.__name__.lower()
    fn.__doc__ = f"``{cls.__name__}(**kwargs)(inputs)``."
    return fn


add, subtract, multiply = _functional(Add), _functional(Subtract), _functional(Multiply)
maximum, minimum, average = _functional(Maximum), _functional(Minimum), _functional(Average)
dot = _functional(Dot)


def concatenate(inputs, axis=-1, **kwargs):
    """``Concatenate(axis, **kwargs)(inputs)``."""
    return Concatenate(axis=axis, **kwargs)(inputs)
