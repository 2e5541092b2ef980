"""``tf.keras.optimizers``: Keras's optimizers (TF 2.x defaults: ``SGD`` lr 0.01,
``Adam``/``RMSprop`` lr 0.001 with epsilon 1e-7, ``Adagrad`` lr 0.001) as thin wrappers
building the matching ``tf.train`` optimizer, with Keras's learning-rate variable
(``optimizer.lr``, set by ``LearningRateScheduler``), ``decay`` (``lr / (1 + decay *
iterations)``), ``clipnorm``/``clipvalue`` and the ``iterations`` counter.

``get`` also takes a ``tf.train`` optimizer instance, used as it is.
"""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import get_default_graph
from estimator_npu.engine.ops import clip_ops, math_ops
from estimator_npu.engine.ops.state_ops import Variable
from estimator_npu.train import optimizers as tf_opt
from estimator_npu.train import optimizers_extra as tf_opt_extra
from estimator_npu.train import update_rules
from estimator_npu.train.optimizer import Optimizer as TFOptimizer

_IMPORTED = set(globals())


class Optimizer:
    _tf_class = None

    def __init__(self, learning_rate=0.01, decay=0.0, clipnorm=None, clipvalue=None,
                 name=None, **kwargs):
        if "lr" in kwargs:
            learning_rate = kwargs.pop("lr")
        bad = set(kwargs) - {"global_clipnorm", "epsilon"}
        if bad:
            raise TypeError(f"{type(self).__name__}: unexpected keyword argument(s) "
                            f"{sorted(bad)}")
        self._initial_lr = learning_rate
        self.initial_decay = float(decay)
        self.clipnorm, self.clipvalue = clipnorm, clipvalue
        self._name = name or type(self).__name__
        self._vars = {}

    def _variable(self, key, value, dtype):
        g = get_default_graph()
        v = self._vars.get((g, key))
        if v is None:
            with g.name_scope(None), g.name_scope(self._name + "/"):
                v = Variable(np.array(value, dtype=dtypes.as_dtype(dtype).np),
                             trainable=False, name=key)
            self._vars[(g, key)] = v
        return v

    @property
    def lr(self):
        if callable(self._initial_lr) and not hasattr(self._initial_lr, "op"):
            raise AttributeError("a learning-rate schedule has no variable")
        if hasattr(self._initial_lr, "op"):
            return self._initial_lr
        return self._variable("learning_rate", float(self._initial_lr), dtypes.float32)

    learning_rate = lr

    @property
    def iterations(self):
        return self._variable("iter", 0, dtypes.int64)

    @property
    def decay(self):
        return self._variable("decay", self.initial_decay, dtypes.float32)

    def _current_lr(self):
        lr = self.lr
        if self.initial_decay:
            lr = lr / (1.0 + self.decay * math_ops.cast(self.iterations, dtypes.float32))
        return lr

    def _make(self, lr):
        raise NotImplementedError

    def _clip(self, grads):
        if self.clipnorm is not None:
            grads = [None if g is None else clip_ops.clip_by_norm(g, self.clipnorm)
                     for g in grads]
        if self.clipvalue is not None:
            grads = [None if g is None else math_ops.clip_by_value(g, -self.clipvalue,
                                                                  self.clipvalue)
                     for g in grads]
        return grads

    def minimize(self, loss, var_list, grad_loss=None, name=None):
        """The train op: gradients of ``loss``, clipped, applied; ``iterations += 1``."""
        opt = self._make(self._current_lr())
        gv = opt.compute_gradients(loss, var_list=var_list)
        grads = self._clip([g for g, _ in gv])
        return opt.apply_gradients(list(zip(grads, [v for _, v in gv])),
                                   global_step=self.iterations)

    def get_updates(self, loss, params):
        return [self.minimize(loss, params)]

    def variables(self):
        return list(self._vars.values())

    def get_config(self):
        return {"name": self._name, "learning_rate": self._initial_lr,
                "decay": self.initial_decay}


class SGD(Optimizer):
    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD",
                 **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        self.momentum, self.nesterov = float(momentum), bool(nesterov)

    def _make(self, lr):
        if self.momentum:
            return tf_opt.MomentumOptimizer(lr, self.momentum, use_nesterov=self.nesterov,
                                            name=self._name)
        return tf_opt.GradientDescentOptimizer(lr, name=self._name)


class Adam(Optimizer):
    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, name="Adam", **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        if amsgrad:
            raise ValueError("Adam: amsgrad=True is not implemented")
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon

    def _make(self, lr):
        return tf_opt.AdamOptimizer(lr, self.beta_1, self.beta_2, self.epsilon,
                                    name=self._name)


class _ZeroRMSRule(update_rules.RMSProp):
    """Keras's RMSprop: the ``rms`` slot starts at zeros (TF1's starts at ones)."""

    def __init__(self, centered=False):
        super().__init__(centered)
        self.slots = tuple((n, 0.0) for n, _ in self.slots)


class _PlainRMSRule(update_rules.UpdateRule):
    """Keras's RMSprop without momentum or centering: ``rms = rho * rms + (1 - rho) *
    g^2``; ``p -= lr * g / (sqrt(rms) + epsilon)`` (epsilon outside the square root)."""

    slots = (("rms", 0.0),)
    n_scratch = 2
    n_ops = 8

    def update(self, param, grad, state, hyper, work=None):
        t, t2 = self._scratch(param, work)
        ms = state["rms"]
        lr, rho, eps = update_rules.consts(param.dtype, hyper, "learning_rate", "decay",
                                           "epsilon")
        np.multiply(ms, rho, out=ms)
        np.multiply(grad, grad, out=t)
        np.multiply(t, param.dtype.type(1) - rho, out=t)
        np.add(ms, t, out=ms)
        np.sqrt(ms, out=t)
        np.add(t, eps, out=t)
        np.multiply(grad, lr, out=t2)
        np.divide(t2, t, out=t)
        np.subtract(param, t, out=param)


class _KerasRMSProp(tf_opt.RMSPropOptimizer):
    def _make_rule(self):
        if not self._centered and self._momentum == 0:
            return _PlainRMSRule()
        return _ZeroRMSRule(self._centered)


class RMSprop(Optimizer):
    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7,
                 centered=False, name="RMSprop", **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        self.rho, self.momentum, self.epsilon, self.centered = rho, momentum, epsilon, centered

    def _make(self, lr):
        return _KerasRMSProp(lr, self.rho, self.momentum, self.epsilon,
                             centered=self.centered, name=self._name)


class Adagrad(Optimizer):
    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7,
                 name="Adagrad", **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        self.initial_accumulator_value = float(initial_accumulator_value)

    def _make(self, lr):
        return tf_opt.AdagradOptimizer(lr, self.initial_accumulator_value, name=self._name)


class Adadelta(Optimizer):
    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, name="Adadelta",
                 **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        self.rho, self.epsilon = rho, epsilon

    def _make(self, lr):
        return tf_opt_extra.AdadeltaOptimizer(lr, self.rho, self.epsilon, name=self._name)


class TFOptimizerWrapper(Optimizer):
    """A ``tf.train`` optimizer passed to ``compile``, used as it is."""

    def __init__(self, optimizer):
        super().__init__(0.0, name=getattr(optimizer, "_name", "TFOptimizer"))
        self.optimizer = optimizer

    @property
    def lr(self):
        lr = getattr(self.optimizer, "_learning_rate", None)
        if hasattr(lr, "op"):
            return lr
        raise AttributeError(f"{type(self.optimizer).__name__} has no learning-rate "
                             f"variable Keras can set")

    def minimize(self, loss, var_list, grad_loss=None, name=None):
        return self.optimizer.minimize(loss, var_list=var_list, global_step=self.iterations)


sgd, adam, rmsprop, adagrad, adadelta = SGD, Adam, RMSprop, Adagrad, Adadelta
_BY_NAME = {"sgd": SGD, "adam": Adam, "rmsprop": RMSprop, "adagrad": Adagrad,
            "adadelta": Adadelta}


def get(identifier):
    """A Keras optimizer from a name (``'adam'``), an instance, or a ``tf.train``
    optimizer."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, TFOptimizer) or hasattr(identifier, "compute_gradients"):
        return TFOptimizerWrapper(identifier)
    if isinstance(identifier, str):
        key = identifier.lower()
        if key not in _BY_NAME:
            raise ValueError(f"Unknown optimizer: {identifier!r}; known: {sorted(_BY_NAME)}")
        return _BY_NAME[key]()
    raise ValueError(f"Could not interpret optimizer identifier: {identifier!r}")

__all__ = sorted(n for n in set(globals()) - _IMPORTED if not n.startswith("_"))
