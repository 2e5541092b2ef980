"""TF1's ``AdadeltaOptimizer``, ``ProximalAdagradOptimizer``,
``ProximalGradientDescentOptimizer`` and ``FtrlOptimizer``
(defaults, slot names and math of TF 1.15; the rules are in ``update_rules_extra``)."""
from estimator_npu.train import update_rules_extra
from estimator_npu.train.optimizer import Optimizer, check_hyper


def _positive_init(value, what):
    init = check_hyper(what, value)
    if not isinstance(init, float) or init <= 0.0:
        raise ValueError(f"{what} must be a positive number, got {value!r}")
    return init


class AdadeltaOptimizer(Optimizer):
    """Adadelta; slots ``<var>/Adadelta`` (accum) and ``<var>/Adadelta_1`` (accum_update)."""

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking=False,
                 name="Adadelta"):
        super().__init__(use_locking, name)
        self._learning_rate = check_hyper("learning_rate", learning_rate)
        self._rho = check_hyper("rho", rho, minimum=0.0)
        self._epsilon = check_hyper("epsilon", epsilon, minimum=0.0)

    def _make_rule(self):
        return update_rules_extra.Adadelta()

    def _hyper(self):
        return {"learning_rate": self._learning_rate, "rho": self._rho,
                "epsilon": self._epsilon}


class ProximalAdagradOptimizer(Optimizer):
    """Adagrad with an L1/L2 proximal step; slot ``<var>/ProximalAdagrad``."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="ProximalAdagrad"):
        super().__init__(use_locking, name)
        self._learning_rate = check_hyper("learning_rate", learning_rate)
        self._init = _positive_init(initial_accumulator_value, "initial_accumulator_value")
        self._l1 = check_hyper("l1_regularization_strength", l1_regularization_strength,
                               minimum=0.0)
        self._l2 = check_hyper("l2_regularization_strength", l2_regularization_strength,
                               minimum=0.0)

    def _make_rule(self):
        return update_rules_extra.ProximalAdagrad(self._init)

    def _hyper(self):
        return {"learning_rate": self._learning_rate, "l1": self._l1, "l2": self._l2}


class ProximalGradientDescentOptimizer(Optimizer):
    """Gradient descent with an L1/L2 proximal step (no slots)."""

    def __init__(self, learning_rate, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, use_locking=False,
                 name="ProximalGradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = check_hyper("learning_rate", learning_rate)
        self._l1 = check_hyper("l1_regularization_strength", l1_regularization_strength,
                               minimum=0.0)
        self._l2 = check_hyper("l2_regularization_strength", l2_regularization_strength,
                               minimum=0.0)

    def _make_rule(self):
        return update_rules_extra.ProximalGradientDescent()

    def _hyper(self):
        return {"learning_rate": self._learning_rate, "l1": self._l1, "l2": self._l2}


class FtrlOptimizer(Optimizer):
    """FTRL-Proximal; slots ``<var>/Ftrl`` (accum) and ``<var>/Ftrl_1`` (linear)."""

    def __init__(self, learning_rate, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="Ftrl", accum_name=None, linear_name=None,
                 l2_shrinkage_regularization_strength=0.0):
        super().__init__(use_locking, name)
        self._learning_rate = check_hyper("learning_rate", learning_rate)
        power = check_hyper("learning_rate_power", learning_rate_power)
        if not isinstance(power, float) or power > 0:
            raise ValueError(f"learning_rate_power must be <= 0, got {learning_rate_power!r}")
        self._power = power
        if not isinstance(initial_accumulator_value, (int, float)) or \
                initial_accumulator_value < 0:
            raise ValueError("initial_accumulator_value must be >= 0, got "
                             f"{initial_accumulator_value!r}")
        self._init = float(initial_accumulator_value)
        self._l1 = check_hyper("l1_regularization_strength", l1_regularization_strength,
                               minimum=0.0)
        self._l2 = check_hyper("l2_regularization_strength", l2_regularization_strength,
                               minimum=0.0)
        self._shrink = check_hyper("l2_shrinkage_regularization_strength",
                                   l2_shrinkage_regularization_strength, minimum=0.0)

    def _make_rule(self):
        return update_rules_extra.Ftrl(self._init)

    def _hyper(self):
        return {"learning_rate": self._learning_rate, "l1": self._l1, "l2": self._l2,
                "lr_power": self._power, "l2_shrinkage": self._shrink}
