"""``tf.keras.layers`` activation layers: ReLU, LeakyReLU, PReLU, ELU, ThresholdedReLU,
Softmax."""
import numpy as np

from estimator_npu.engine.ops import math_ops, nn_ops
from estimator_npu.keras import activations, constraints, initializers, regularizers
from estimator_npu.keras.engine.base_layer import Layer


def _f32(x):
    """A float as Keras keeps it (cast to float32): 0.2 -> 0.20000000298023224."""
    return float(np.float32(x))


class ReLU(Layer):
    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        self.max_value, self.negative_slope = max_value, float(negative_slope)
        self.threshold = float(threshold)

    def get_config(self):
        return dict(super().get_config(), max_value=self.max_value,
                    negative_slope=_f32(self.negative_slope), threshold=_f32(self.threshold))

    def call(self, inputs):
        if self.threshold:
            y = inputs * math_ops.cast(math_ops.greater(inputs, self.threshold), inputs.dtype)
            if self.negative_slope:
                y = y + self.negative_slope * math_ops.minimum(inputs - self.threshold, 0.0)
        elif self.negative_slope:
            y = nn_ops.leaky_relu(inputs, self.negative_slope)
        else:
            y = nn_ops.relu(inputs)
        if self.max_value is not None:
            y = math_ops.minimum(y, float(self.max_value))
        return y


class LeakyReLU(Layer):
    def __init__(self, alpha=0.3, **kwargs):
        super().__init__(**kwargs)
        self.alpha = float(alpha)

    def get_config(self):
        return dict(super().get_config(), alpha=_f32(self.alpha))

    def call(self, inputs):
        return nn_ops.leaky_relu(inputs, self.alpha)


class PReLU(Layer):
    """``max(x, 0) + alpha * min(x, 0)`` with a learned ``alpha`` per feature."""

    def __init__(self, alpha_initializer="zeros", alpha_regularizer=None,
                 alpha_constraint=None, shared_axes=None, **kwargs):
        super().__init__(**kwargs)
        self._init = initializers.get(alpha_initializer)
        self._reg, self._cons = alpha_regularizer, alpha_constraint
        self.shared_axes = [shared_axes] if isinstance(shared_axes, int) else shared_axes

    def get_config(self):
        return dict(super().get_config(), **self._weight_config(
            "alpha", self._init, regularizers.get(self._reg), constraints.get(self._cons)),
            shared_axes=self.shared_axes)

    def build(self, input_shape):
        shape = [int(d) for d in input_shape[1:]]
        for a in self.shared_axes or []:
            shape[a - 1] = 1
        self.alpha = self.add_weight("alpha", shape, initializer=self._init,
                                     regularizer=self._reg, constraint=self._cons)

    def call(self, inputs):
        return nn_ops.relu(inputs) - self.alpha * nn_ops.relu(-inputs)


class ELU(Layer):
    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = float(alpha)

    def get_config(self):
        return dict(super().get_config(), alpha=_f32(self.alpha))

    def call(self, inputs):
        return activations.elu(inputs, self.alpha)


class ThresholdedReLU(Layer):
    def __init__(self, theta=1.0, **kwargs):
        super().__init__(**kwargs)
        self.theta = float(theta)

    def get_config(self):
        return dict(super().get_config(), theta=_f32(self.theta))

    def call(self, inputs):
        return inputs * math_ops.cast(math_ops.greater(inputs, self.theta), inputs.dtype)


class Softmax(Layer):
    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def get_config(self):
        return dict(super().get_config(), axis=self.axis)

    def call(self, inputs):
        return activations.softmax(inputs, axis=self.axis)
