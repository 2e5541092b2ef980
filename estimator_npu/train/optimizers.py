"""The TF1 optimizer classes: each names its hyper-parameters and its pure update rule.

Defaults, slot names and math follow TF 1.15 (``LAMBOptimizer`` follows the BERT LAMB
reference optimizer; see ``update_rules``). Every hyper-parameter may be a Python number,
a scalar tensor (e.g. a learning-rate schedule of ``global_step``) or a callable.
"""
from estimator_npu.train import update_rules
from estimator_npu.train.optimizer import Optimizer, check_hyper
from estimator_npu.utils import validation


class GradientDescentOptimizer(Optimizer):
    """``var -= learning_rate * grad``."""

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = check_hyper("learning_rate", learning_rate)

    def _make_rule(self):
        return update_rules.GradientDescent()

    def _hyper(self):
        return {"learning_rate": self._learning_rate}


class MomentumOptimizer(Optimizer):
    """``accum = momentum * accum + grad``; ``var -= lr * accum`` (or Nesterov)."""

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum",
                 use_nesterov=False):
        super().__init__(use_locking, name)
        self._learning_rate = check_hyper("learning_rate", learning_rate)
        self._momentum = check_hyper("momentum", momentum, minimum=0.0)
        self._use_nesterov = validation.check_bool("use_nesterov", use_nesterov)

    def _make_rule(self):
        return update_rules.Momentum(self._use_nesterov)

    def _hyper(self):
        return {"learning_rate": self._learning_rate, "momentum": self._momentum}


class AdamOptimizer(Optimizer):
    """Adam with TF1's bias-corrected step size; slots ``<var>/Adam`` (m), ``<var>/Adam_1``
    (v) and the non-slot variables ``beta1_power``/``beta2_power``."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 use_locking=False, name="Adam"):
        super().__init__(use_locking, name)
        self._learning_rate = check_hyper("learning_rate", learning_rate)
        self._beta1 = check_hyper("beta1", beta1, minimum=0.0, below=1.0)
        self._beta2 = check_hyper("beta2", beta2, minimum=0.0, below=1.0)
        self._epsilon = check_hyper("epsilon", epsilon, minimum=0.0)

    def _make_rule(self):
        return update_rules.Adam()

    def _hyper(self):
        return {"learning_rate": self._learning_rate, "beta1": self._beta1,
                "beta2": self._beta2, "epsilon": self._epsilon}

    def _get_beta_accumulators(self):
        """``(beta1_power, beta2_power)`` of the default graph (``None`` before use)."""
        from estimator_npu.engine.graph import get_default_graph
        g = get_default_graph()
        return self._non_slot_variable("beta1_power", g), \
            self._non_slot_variable("beta2_power", g)


class RMSPropOptimizer(Optimizer):
    """TF1 RMSProp; slots ``rms`` (starts at ones), ``mg`` (centered only), ``momentum``."""

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10,
                 use_locking=False, centered=False, name="RMSProp"):
        super().__init__(use_locking, name)
        self._learning_rate = check_hyper("learning_rate", learning_rate)
        self._decay = check_hyper("decay", decay, minimum=0.0)
        self._momentum = check_hyper("momentum", momentum, minimum=0.0)
        self._epsilon = check_hyper("epsilon", epsilon, minimum=0.0)
        self._centered = validation.check_bool("centered", centered)

    def _make_rule(self):
        return update_rules.RMSProp(self._centered)

    def _hyper(self):
        return {"learning_rate": self._learning_rate, "decay": self._decay,
                "momentum": self._momentum, "epsilon": self._epsilon}


class AdagradOptimizer(Optimizer):
    """``accum += grad^2``; ``var -= lr * grad / sqrt(accum)``; slot ``<var>/Adagrad``."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False,
                 name="Adagrad"):
        super().__init__(use_locking, name)
        self._learning_rate = check_hyper("learning_rate", learning_rate)
        init = check_hyper("initial_accumulator_value", initial_accumulator_value)
        if not isinstance(init, float) or init <= 0.0:
            raise ValueError("initial_accumulator_value must be a positive number, got "
                             f"{initial_accumulator_value!r}")
        self._initial_accumulator_value = init

    def _make_rule(self):
        return update_rules.Adagrad(self._initial_accumulator_value)

    def _hyper(self):
        return {"learning_rate": self._learning_rate}


class LAMBOptimizer(Optimizer):
    """LAMB (layer-wise adaptive moments) as used to train BERT.

    Slots ``<var>/lamb_m`` and ``<var>/lamb_v`` (the reference optimizer's names). Weight
    decay applies to every variable whose name matches none of the regular expressions
    in ``exclude_from_weight_decay`` (``re.search``, e.g. ``["LayerNorm", "bias"]``).
    Unlike the reference (which leaves it to the caller), ``apply_gradients`` increments
    ``global_step`` when one is given, as every TF1 optimizer does.
    """

    def __init__(self, learning_rate, weight_decay_rate=0.0, beta_1=0.9, beta_2=0.999,
                 epsilon=1e-6, exclude_from_weight_decay=None, name="LAMBOptimizer",
                 use_locking=False):
        super().__init__(use_locking, name)
        self._learning_rate = check_hyper("learning_rate", learning_rate)
        self._weight_decay_rate = check_hyper("weight_decay_rate", weight_decay_rate)
        self._beta_1 = check_hyper("beta_1", beta_1, minimum=0.0)
        self._beta_2 = check_hyper("beta_2", beta_2, minimum=0.0)
        self._epsilon = check_hyper("epsilon", epsilon, minimum=0.0)
        if exclude_from_weight_decay is None:
            exclude_from_weight_decay = []
        if isinstance(exclude_from_weight_decay, str) or not all(
                isinstance(p, str) for p in exclude_from_weight_decay):
            raise TypeError("exclude_from_weight_decay must be a list of regular expression "
                            f"strings, got {exclude_from_weight_decay!r}")
        self.exclude_from_weight_decay = list(exclude_from_weight_decay)

    def _make_rule(self):
        return update_rules.LAMB(self.exclude_from_weight_decay)

    def _slot_var_name(self, slot_name):
        return "lamb_" + slot_name

    def _hyper(self):
        return {"learning_rate": self._learning_rate, "beta1": self._beta_1,
                "beta2": self._beta_2, "epsilon": self._epsilon,
                "weight_decay_rate": self._weight_decay_rate}


__all__ = ["GradientDescentOptimizer", "MomentumOptimizer", "AdamOptimizer",
           "RMSPropOptimizer", "AdagradOptimizer", "LAMBOptimizer"]
