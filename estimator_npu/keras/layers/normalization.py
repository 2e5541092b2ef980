"""``tf.keras.layers.BatchNormalization`` and ``LayerNormalization``.

BatchNormalization as TF1's Keras has it in graph mode: weights ``gamma``, ``beta``
(trainable), ``moving_mean``, ``moving_variance``; ``training`` defaults to the learning
phase; the moving-average updates go to ``layer.updates`` (``model.updates``), not to
``GraphKeys.UPDATE_OPS``. 4-D inputs normalized over the channel axis (1 or 3) take the
fused path (``tf.nn.fused_batch_norm``), whose variance for the moving average is the
unbiased one (n / (n - 1)); other inputs use ``moments``' (biased) variance.
"""
from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops, nn_ops, state_ops
from estimator_npu.engine.ops.control_ops import cond
from estimator_npu.engine.ops.core import convert_to_tensor, identity, stop_gradient
from estimator_npu.engine.shape import dimension_value
from estimator_npu.keras import backend, constraints, initializers, regularizers
from estimator_npu.keras.engine.base_layer import Layer
from estimator_npu.layers.fused_batch_norm import fused_batch_norm


class BatchNormalization(Layer):
    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, renorm=False, renorm_clipping=None,
                 renorm_momentum=0.99, fused=None, trainable=True, virtual_batch_size=None,
                 adjustment=None, name=None, **kwargs):
        if renorm or virtual_batch_size is not None or adjustment is not None:
            raise ValueError("BatchNormalization: renorm, virtual_batch_size and adjustment "
                             "are not implemented")
        super().__init__(trainable=trainable, name=name, **kwargs)
        self.axis = axis if isinstance(axis, int) else list(axis)
        self.momentum, self.epsilon = float(momentum), float(epsilon)
        self.center, self.scale, self.fused = center, scale, fused
        self._init = {k: initializers.get(v) for k, v in (
            ("beta", beta_initializer), ("gamma", gamma_initializer),
            ("moving_mean", moving_mean_initializer),
            ("moving_variance", moving_variance_initializer))}
        self._reg = {"beta": regularizers.get(beta_regularizer),
                     "gamma": regularizers.get(gamma_regularizer)}
        self._cons = {"beta": constraints.get(beta_constraint),
                      "gamma": constraints.get(gamma_constraint)}
        self.gamma = self.beta = None

    def get_config(self):
        config = dict(super().get_config(), axis=list(getattr(self, "_axes", None) or (
            [self.axis] if isinstance(self.axis, int) else self.axis)) if self.built
            else self.axis, momentum=self.momentum, epsilon=self.epsilon, center=self.center,
            scale=self.scale)
        for k in ("beta", "gamma", "moving_mean", "moving_variance"):
            config[f"{k}_initializer"] = initializers.serialize(self._init[k])
        for k in ("beta", "gamma"):
            config[f"{k}_regularizer"] = regularizers.serialize(self._reg[k])
        for k in ("beta", "gamma"):
            config[f"{k}_constraint"] = constraints.serialize(self._cons[k])
        return config

    def build(self, input_shape):
        nd = len(input_shape)
        axes = [self.axis] if isinstance(self.axis, int) else self.axis
        self._axes = sorted(a % nd for a in axes)
        shape = [dimension_value(input_shape[a]) for a in self._axes]
        if None in shape:
            raise ValueError(f"BatchNormalization {self.name}: the feature axis {self.axis} "
                             f"of the inputs must be known, got shape {input_shape}")
        shape = [int(d) for d in shape]
        self._param_shape = shape
        dt = dtypes.float32 if self.dtype in ("float16", "bfloat16") else self.dtype
        if self.scale:
            self.gamma = self.add_weight("gamma", shape, dt, self._init["gamma"],
                                         self._reg["gamma"], constraint=self._cons["gamma"])
        if self.center:
            self.beta = self.add_weight("beta", shape, dt, self._init["beta"],
                                        self._reg["beta"], constraint=self._cons["beta"])
        self.moving_mean = self.add_weight("moving_mean", shape, dt,
                                           self._init["moving_mean"], trainable=False)
        self.moving_variance = self.add_weight("moving_variance", shape, dt,
                                               self._init["moving_variance"], trainable=False)
        self._fused = nd == 4 and self._axes in ([1], [3]) and self.fused is not False

    def call(self, inputs, training=None):
        x = convert_to_tensor(inputs)
        if training is None:
            training = backend.learning_phase()
        if isinstance(training, int):
            training = bool(training)
        nd = x.shape.ndims
        bshape = [x.shape.values[i] if i in self._axes else 1 for i in range(nd)]

        def bcast(t):
            if t is None or self._axes == [nd - 1]:
                return t
            return array_ops.reshape(t, bshape)

        gamma, beta = self.gamma, self.beta
        if gamma is None:
            gamma = array_ops.ones(self._param_shape)
        if beta is None:
            beta = array_ops.zeros(self._param_shape)
        fmt = "NCHW" if self._axes == [1] else "NHWC"

        def infer():
            if self._fused:
                y = fused_batch_norm(x, gamma, beta, self.moving_mean, self.moving_variance,
                                     self.epsilon, data_format=fmt, is_training=False)[0]
            else:
                y = nn_ops.batch_normalization(x, bcast(self.moving_mean),
                                               bcast(self.moving_variance), bcast(beta),
                                               bcast(gamma), self.epsilon)
            return y, identity(self.moving_mean), identity(self.moving_variance)

        def train():
            if self._fused:
                return fused_batch_norm(x, gamma, beta, epsilon=self.epsilon,
                                        data_format=fmt, is_training=True)
            mean, variance = nn_ops.moments(x, [i for i in range(nd) if i not in self._axes])
            y = nn_ops.batch_normalization(x, bcast(mean), bcast(variance), bcast(beta),
                                           bcast(gamma), self.epsilon)
            return y, mean, variance

        if training is False:
            return infer()[0]
        if training is True:
            out, mean, variance = train()
        else:  # a bool tensor: only the taken branch runs (no NaN from the other one)
            out, mean, variance = cond(training, train, infer)
        decay = 1.0 - self.momentum
        g = x.graph
        for var, value, label in ((self.moving_mean, mean, "AssignMovingAvg"),
                                  (self.moving_variance, variance, "AssignMovingAvg_1")):
            with g.name_scope(label):
                # unchanged when training is false: the infer branch returns var itself
                self.add_update(state_ops.assign_sub(
                    var, (var - stop_gradient(value)) * decay))
        out.set_shape(x.shape)
        return out


class LayerNormalization(Layer):
    """Normalizes each example over ``axis`` (epsilon 1e-3), then ``* gamma + beta``."""

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 **kwargs):
        super().__init__(**kwargs)
        self.axis, self.epsilon = axis, float(epsilon)
        self.center, self.scale = center, scale
        self._init = (initializers.get(beta_initializer), initializers.get(gamma_initializer))
        self._reg = (regularizers.get(beta_regularizer), regularizers.get(gamma_regularizer))
        self._cons = (constraints.get(beta_constraint), constraints.get(gamma_constraint))

    def get_config(self):
        axis = list(self._axes) if self.built else self.axis
        return dict(super().get_config(), axis=axis, epsilon=self.epsilon,
                    center=self.center, scale=self.scale,
                    beta_initializer=initializers.serialize(self._init[0]),
                    gamma_initializer=initializers.serialize(self._init[1]),
                    beta_regularizer=regularizers.serialize(self._reg[0]),
                    gamma_regularizer=regularizers.serialize(self._reg[1]),
                    beta_constraint=constraints.serialize(self._cons[0]),
                    gamma_constraint=constraints.serialize(self._cons[1]))

    def build(self, input_shape):
        nd = len(input_shape)
        axes = [self.axis] if isinstance(self.axis, int) else list(self.axis)
        self._axes = sorted(a % nd for a in axes)
        shape = [int(input_shape[a]) for a in self._axes]
        self.beta = self.add_weight("beta", shape, initializer=self._init[0],
                                    regularizer=self._reg[0]) if self.center else None
        self.gamma = self.add_weight("gamma", shape, initializer=self._init[1],
                                     regularizer=self._reg[1]) if self.scale else None

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        nd = x.shape.ndims
        mean, variance = nn_ops.moments(x, self._axes, keep_dims=True)
        bshape = [x.shape.values[i] if i in self._axes else 1 for i in range(nd)]

        def bcast(t):
            return None if t is None else array_ops.reshape(t, bshape)

        return nn_ops.batch_normalization(x, mean, variance, bcast(self.beta),
                                          bcast(self.gamma), self.epsilon)
