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
    # the slots in the order Keras creates them: (Keras's name, the tf.train rule's name)
    _keras_slots = ()
    _hyper_names = ()  # hyperparameters Keras keeps in variables (float32 in configs)

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
        self._tf_opt, self._var_list = None, []

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
        self._tf_opt, self._var_list = opt, [v for _, v in gv]
        return opt.apply_gradients(list(zip(grads, [v for _, v in gv])),
                                   global_step=self.iterations)

    def get_updates(self, loss, params):
        return [self.minimize(loss, params)]

    def variables(self):
        return list(self._vars.values())

    # ------------------------------------------------------------ Keras's state
    def _slots(self):
        return self._keras_slots

    def named_weights(self):
        """``[(TF 2.15's name, variable)]`` in Keras's order: ``iter``, then each slot for
        every variable (``training/Adam/dense/kernel/m:0``, ...); empty before the first
        train op is built."""
        if self._tf_opt is None:
            return []
        prefix = f"training/{self._name}"
        out = [(f"{prefix}/iter:0", self.iterations)]
        for keras_name, ours in self._slots():
            for v in self._var_list:
                slot = self._tf_opt.get_slot(v, ours)
                if slot is not None:
                    out.append((f"{prefix}/{v.op.name}/{keras_name}:0", slot))
        return out

    @property
    def weights(self):
        return [v for _, v in self.named_weights()]

    def get_weights(self):
        """The state as Keras holds it (``iter`` first), for ``set_weights`` and files."""
        from estimator_npu.keras import backend
        named = self.named_weights()
        values = backend.batch_get_value([v for _, v in named])
        return [self._slot_to_keras(n, v) for (n, _), v in zip(named, values)]

    def set_weights(self, weights):
        from estimator_npu.keras import backend
        named = self.named_weights()
        if len(named) != len(weights):
            raise ValueError(f"You called `set_weights(weights)` on optimizer {self._name} "
                             f"with a weight list of length {len(weights)}, but the "
                             f"optimizer was expecting {len(named)} weights.")
        for (n, v), w in zip(named, weights):
            if tuple(v.shape.as_list()) != np.shape(w):
                raise ValueError(f"Optimizer weight shape {tuple(v.shape.as_list())} not "
                                 f"compatible with provided weight shape {np.shape(w)} "
                                 f"({n})")
        backend.batch_set_value([(named[0][1], weights[0])])
        backend.batch_set_value([(v, self._slot_from_keras(n, w))
                                 for (n, v), w in zip(named[1:], weights[1:])])
        self._after_set_weights(int(np.asarray(weights[0])))

    def _slot_to_keras(self, name, value):
        return value

    def _slot_from_keras(self, name, value):
        return value

    def _lr_value(self):
        """The learning rate of the next step (``lr / (1 + decay * iterations)``)."""
        from estimator_npu.keras import backend
        return float(backend.get_value(self._current_lr()))

    def _after_set_weights(self, iterations):
        """Derived state of the tf.train optimizer (Adam's beta powers) from ``iter``."""

    def _hyper_value(self, name, value):
        if self._tf_opt is not None and name in self._hyper_names and \
                isinstance(value, (int, float)):
            return float(np.float32(value))
        return value

    def get_config(self):
        """TF 2.15's config; the hyperparameters Keras keeps in variables read back as
        float32 once the optimizer has built its train op (as TF's do)."""
        config = {"name": self._name}
        if self.clipnorm is not None:
            config["clipnorm"] = self.clipnorm
        if self.clipvalue is not None:
            config["clipvalue"] = self.clipvalue
        lr = self._initial_lr
        if hasattr(lr, "get_config"):
            lr = {"class_name": type(lr).__name__, "config": lr.get_config()}
        config["learning_rate"] = self._hyper_value("learning_rate", lr)
        config["decay"] = self._hyper_value("decay", self.initial_decay)
        for k in self._config_keys:
            config[k] = self._hyper_value(k, getattr(self, k))
        return config

    _config_keys = ()


class SGD(Optimizer):
    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD",
                 **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        self.momentum, self.nesterov = float(momentum), bool(nesterov)

    _hyper_names = ("learning_rate", "decay", "momentum")
    _config_keys = ("momentum", "nesterov")

    def _slots(self):
        return (("momentum", "momentum"),) if self.momentum else ()

    # Keras's velocity is v = momentum * v - lr * g (var += v); tf.train's accumulator is
    # a = momentum * a + g (var -= lr * a): v = -lr * a at a constant learning rate.
    def _slot_to_keras(self, name, value):
        return value * np.asarray(-self._lr_value(), value.dtype) \
            if name.endswith("/momentum:0") else value

    def _slot_from_keras(self, name, value):
        value = np.asarray(value)
        return value / np.asarray(-self._lr_value(), value.dtype) \
            if name.endswith("/momentum:0") else value

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
        self.amsgrad = False

    _keras_slots = (("m", "m"), ("v", "v"))
    _hyper_names = ("learning_rate", "decay", "beta_1", "beta_2")
    _config_keys = ("beta_1", "beta_2", "epsilon", "amsgrad")

    def _after_set_weights(self, iterations):
        from estimator_npu.keras import backend
        b1, b2 = self._tf_opt._get_beta_accumulators()
        if b1 is not None:  # TF1 Adam keeps beta**(steps + 1); Keras derives it from iter
            backend.batch_set_value([(b1, self.beta_1 ** (iterations + 1)),
                                     (b2, self.beta_2 ** (iterations + 1))])

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

    _hyper_names = ("learning_rate", "decay", "rho", "momentum")
    _config_keys = ("rho", "momentum", "epsilon", "centered")

    def _slots(self):
        return (("rms", "rms"),) + ((("momentum", "momentum"),) if self.momentum else ()) \
            + ((("mg", "mg"),) if self.centered else ())

    def _make(self, lr):
        return _KerasRMSProp(lr, self.rho, self.momentum, self.epsilon,
                             centered=self.centered, name=self._name)


class Adagrad(Optimizer):
    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7,
                 name="Adagrad", **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        self.initial_accumulator_value = float(initial_accumulator_value)
        self.epsilon = epsilon

    _keras_slots = (("accumulator", "accumulator"),)
    _hyper_names = ("learning_rate", "decay")
    _config_keys = ("initial_accumulator_value", "epsilon")

    def _make(self, lr):
        return tf_opt.AdagradOptimizer(lr, self.initial_accumulator_value, name=self._name)


class Adadelta(Optimizer):
    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, name="Adadelta",
                 **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        self.rho, self.epsilon = rho, epsilon

    _keras_slots = (("accum_grad", "accum"), ("accum_var", "accum_update"))
    _hyper_names = ("learning_rate", "decay", "rho")
    _config_keys = ("rho", "epsilon")

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
    if isinstance(identifier, dict):  # {'class_name': 'Adam', 'config': {...}}
        key = str(identifier.get("class_name", "")).lower()
        if key not in _BY_NAME:
            raise ValueError(f"Unknown optimizer: {identifier.get('class_name')!r}; known: "
                             f"{sorted(_BY_NAME)}")
        config = dict(identifier.get("config") or {})
        if not config.get("amsgrad", True):
            config.pop("amsgrad")
        return _BY_NAME[key](**config)
    if isinstance(identifier, str):
        key = identifier.lower()
        if key not in _BY_NAME:
            raise ValueError(f"Unknown optimizer: {identifier!r}; known: {sorted(_BY_NAME)}")
        return _BY_NAME[key]()
    raise ValueError(f"Could not interpret optimizer identifier: {identifier!r}")


def serialize(optimizer):
    """``{'class_name': 'Adam', 'config': {...}}`` as TF 2.15 writes it."""
    return {"class_name": type(optimizer).__name__, "config": optimizer.get_config()}


def deserialize(config, custom_objects=None):
    if custom_objects and config.get("class_name") in custom_objects:
        return custom_objects[config["class_name"]](**config.get("config", {}))
    return get(config)


__all__ = sorted(n for n in set(globals()) - _IMPORTED if not n.startswith("_"))
