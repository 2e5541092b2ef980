"""Update rules of TF1's Adadelta, ProximalAdagrad, ProximalGradientDescent and FTRL
optimizers (the protocol of ``update_rules``; each step is a few whole-buffer numpy
expressions).

Adadelta::

    acc = rho acc + (1 - rho) g^2
    u   = sqrt(acc_update + eps) / sqrt(acc + eps) * g
    acc_update = rho acc_update + (1 - rho) u^2;   p -= lr u

ProximalAdagrad::

    acc += g^2;  a = lr / sqrt(acc);  v = p - a g
    p = sign(v) max(|v| - a l1, 0) / (1 + a l2)         (p = v / (1 + a l2) when l1 = 0)

ProximalGradientDescent (TF's ``ApplyProximalGradientDescent``)::

    v = p - lr g;   p = sign(v) max(|v| - lr l1, 0) / (1 + lr l2)   (v / (1 + lr l2): l1 = 0)

FTRL (TF's ``ApplyFtrlV2``; ``n^-lr_power`` with ``lr_power <= 0``)::

    gs  = g + 2 l2_shrinkage p
    n'  = n + g^2
    z  += gs - (n'^-lr_power - n^-lr_power) / lr * p
    p   = (sign(z) l1 - z) / (n'^-lr_power / lr + 2 l2)  if |z| > l1 else 0;   n = n'
"""
import numpy as np

from estimator_npu.train.update_rules import UpdateRule


class Adadelta(UpdateRule):
    slots = (("accum", 0.0), ("accum_update", 0.0))
    n_ops = 14

    def update(self, param, grad, state, hyper, work=None):
        lr, rho, eps = hyper["learning_rate"], hyper["rho"], hyper["epsilon"]
        acc, acc_up = state["accum"], state["accum_update"]
        acc *= rho
        acc += (1.0 - rho) * grad * grad
        u = np.sqrt(acc_up + eps) / np.sqrt(acc + eps) * grad
        acc_up *= rho
        acc_up += (1.0 - rho) * u * u
        param -= (lr * u).astype(param.dtype, copy=False)


class ProximalAdagrad(UpdateRule):
    n_ops = 14

    def __init__(self, initial_accumulator_value=0.1):
        self.slots = (("accumulator", float(initial_accumulator_value)),)

    def update(self, param, grad, state, hyper, work=None):
        lr, l1, l2 = hyper["learning_rate"], hyper["l1"], hyper["l2"]
        acc = state["accumulator"]
        acc += grad * grad
        a = lr / np.sqrt(acc)
        v = param - a * grad
        if l1 > 0:
            v = np.sign(v) * np.maximum(np.abs(v) - a * l1, 0.0)
        param[...] = v / (1.0 + a * l2)


class ProximalGradientDescent(UpdateRule):
    n_ops = 8

    def update(self, param, grad, state, hyper, work=None):
        dt = param.dtype.type
        lr, l1, l2 = (dt(hyper[k]) for k in ("learning_rate", "l1", "l2"))
        v = param - grad * lr
        if l1 > 0:
            v = np.sign(v) * np.maximum(np.abs(v) - lr * l1, dt(0))
        param[...] = v / (dt(1) + l2 * lr)


class Ftrl(UpdateRule):
    n_ops = 20

    def __init__(self, initial_accumulator_value=0.1):
        self.slots = (("accum", float(initial_accumulator_value)), ("linear", 0.0))

    def update(self, param, grad, state, hyper, work=None):
        lr, l1, l2 = hyper["learning_rate"], hyper["l1"], hyper["l2"]
        power, shrink = hyper["lr_power"], hyper["l2_shrinkage"]
        n, z = state["accum"], state["linear"]
        gs = grad + 2.0 * shrink * param if shrink > 0 else grad
        n_new = n + grad * grad
        if power == -0.5:
            new_pow, old_pow = np.sqrt(n_new), np.sqrt(n)
        else:
            new_pow, old_pow = n_new ** -power, n ** -power
        z += gs - (new_pow - old_pow) / lr * param
        quadratic = new_pow / lr + 2.0 * l2
        param[...] = np.where(np.abs(z) > l1, (np.sign(z) * l1 - z) / quadratic, 0.0)
        n[...] = n_new
