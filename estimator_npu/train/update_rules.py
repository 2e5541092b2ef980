"""Pure optimizer update rules on numpy arrays (the math behind the TF1 optimizer classes).

A rule holds only constant configuration (``use_nesterov``, ``centered``, the LAMB
exclusion patterns); all state is explicit arrays::

    rule = Adam()
    state = rule.init(param)                            # {"m": zeros, "v": zeros}
    state.update(rule.init_scalars(hyper))              # {"beta1_power": 0-d array, ...}
    for step in range(n):
        rule.update(param, grad, state, hyper)          # param and state change in place
        rule.finish(state, hyper)                       # once per step: shared scalars

* ``slots``: ``(name, fill)`` of the per-parameter state arrays, in TF1 creation order
  (they become the slot variables ``<var>/Adam``, ``<var>/Adam_1`` ...).
* ``scalars``: names of state shared by all parameters of one optimizer (Adam's
  ``beta1_power``/``beta2_power``); ``init_scalars(hyper)`` gives their initial values and
  ``finish(state, hyper)`` advances them once per step, after every ``update``.
* ``update(param, grad, state, hyper, work=None)`` computes one step in place. ``hyper``
  maps hyper-parameter names to Python floats. Every rule does its arithmetic as TF's
  CPU kernel does: each constant is a scalar of the parameter's dtype (``1 - beta1`` is
  ``float32(1) - float32(beta1)`` for a float32 variable) and the operations run in the
  kernel's order, one rounding each, so float32 trajectories equal TF's. ``work`` is the rule's preallocated
  workspace (``workspace(param, layout, scratch)``: scratch buffers shaped like
  ``param`` and anything precomputed from the layout); without it the rule allocates one.
* ``n_ops``: about how many numpy calls one ``update`` makes (for the optimizer's choice
  between flat and per-tensor application).
* ``elementwise``: whether ``update`` treats every element on its own (true for all rules
  but LAMB, whose trust ratio is per tensor), so that updating any slices ``[a:b]`` of the
  flat buffers equals updating the whole buffers; otherwise only slices on tensor
  boundaries (with the matching sub-``Layout`` in ``work``) do.

The optimizer applies a rule to flat buffers holding every parameter of one dtype back
to back, so each rule is a handful of whole-buffer numpy calls with ``out=`` and no
allocation. A ``Layout`` says where each tensor lives in such a buffer; rules whose math
is per tensor (LAMB's trust ratio) read it from ``work["layout"]``.
"""
import re

import numpy as np


class Layout:
    """Where each named tensor lives in a flat buffer: ``names``, ``shapes``, ``offsets``."""

    __slots__ = ("names", "shapes", "offsets", "sizes", "size")

    def __init__(self, names, shapes):
        self.names = list(names)
        self.shapes = [tuple(s) for s in shapes]
        self.sizes = [int(np.prod(s, dtype=np.int64)) for s in self.shapes]
        self.offsets = []
        total = 0
        for n in self.sizes:
            self.offsets.append(total)
            total += n
        self.size = total

    def views(self, flat):
        """Reshaped views of ``flat``, one per tensor."""
        return [flat[o:o + n].reshape(s)
                for o, n, s in zip(self.offsets, self.sizes, self.shapes)]

    def segment_ids(self):
        """An int array giving, per element of the flat buffer, the index of its tensor."""
        return np.repeat(np.arange(len(self.sizes), dtype=np.intp), self.sizes)


class UpdateRule:
    """Base class: see the module docstring for the protocol."""

    slots = ()
    scalars = ()
    n_scratch = 1
    n_ops = 2
    elementwise = True
    # TF1's optimizers turn Python-number hyper-parameters into float32 tensors before
    # casting them to the variable's dtype; the optimizer rounds static values so.
    # False for rules that need the exact Python values (LAMB's ``1.0 - beta``).
    float32_hyper = True

    def init(self, param):
        """Fresh per-parameter state arrays shaped like ``param``."""
        return {name: np.full_like(param, fill) for name, fill in self.slots}

    def init_scalars(self, hyper):
        """Initial values (Python floats) of the shared scalars."""
        return {}

    def workspace(self, param, layout=None, scratch=None):
        """The ``work`` argument of ``update``: ``n_scratch`` buffers shaped like ``param``
        (``scratch`` if given, else new) and the ``layout`` of ``param``."""
        if layout is None:
            layout = Layout([""], [np.shape(param)])
        if scratch is None:
            scratch = [np.empty_like(param) for _ in range(self.n_scratch)]
        return {"scratch": list(scratch), "layout": layout}

    def update(self, param, grad, state, hyper, work=None):
        raise NotImplementedError

    def finish(self, state, hyper):
        """Advances the shared scalars once per step (after all ``update`` calls)."""

    def _scratch(self, param, work):
        return (work if work is not None else self.workspace(param))["scratch"]


def consts(dtype, hyper, *names):
    """``hyper[name]`` for each name as a numpy scalar of ``dtype`` (TF casts every
    hyper-parameter to the variable's dtype before its kernel runs)."""
    t = np.dtype(dtype).type
    return [t(hyper[n]) for n in names]


class GradientDescent(UpdateRule):
    """``p -= g * lr`` (TF's ``ApplyGradientDescent``)."""

    def update(self, param, grad, state, hyper, work=None):
        t = self._scratch(param, work)[0]
        lr, = consts(param.dtype, hyper, "learning_rate")
        np.multiply(grad, lr, out=t)
        np.subtract(param, t, out=param)


class Momentum(UpdateRule):
    """TF's ``ApplyMomentum``: ``a = a * mu + g``; ``p -= a * lr``; Nesterov:
    ``p -= g * lr + a * mu * lr`` (each product rounded in the variable's dtype)."""

    slots = (("momentum", 0.0),)

    def __init__(self, use_nesterov=False):
        self.use_nesterov = bool(use_nesterov)
        self.n_ops = 7 if self.use_nesterov else 4
        self.n_scratch = 2 if self.use_nesterov else 1

    def update(self, param, grad, state, hyper, work=None):
        scratch = self._scratch(param, work)
        t = scratch[0]
        a = state["momentum"]
        lr, mu = consts(param.dtype, hyper, "learning_rate", "momentum")
        np.multiply(a, mu, out=a)
        np.add(a, grad, out=a)
        if self.use_nesterov:
            t2 = scratch[1]
            np.multiply(grad, lr, out=t)
            np.multiply(a, mu, out=t2)
            np.multiply(t2, lr, out=t2)
            np.add(t, t2, out=t)
        else:
            np.multiply(a, lr, out=t)
        np.subtract(param, t, out=param)


class Adam(UpdateRule):
    """TF1 Adam (TF's ``ApplyAdam`` on CPU), every constant in the variable's dtype.

    ``alpha = lr * sqrt(1 - beta2^t) / (1 - beta1^t)``; ``m += (g - m) * (1 - b1)``;
    ``v += (g^2 - v) * (1 - b2)``; ``p -= (m * alpha) / (sqrt(v) + epsilon)``.
    ``beta1^t`` and ``beta2^t`` are the shared scalars ``beta1_power``/``beta2_power``
    (start at beta, multiplied by beta in their own dtype after every step).
    """

    slots = (("m", 0.0), ("v", 0.0))
    scalars = ("beta1_power", "beta2_power")
    n_scratch = 2
    n_ops = 13

    def init_scalars(self, hyper):
        return {"beta1_power": hyper["beta1"], "beta2_power": hyper["beta2"]}

    def update(self, param, grad, state, hyper, work=None):
        t, t2 = self._scratch(param, work)
        m, v = state["m"], state["v"]
        dt = param.dtype.type
        lr, b1, b2, eps = consts(param.dtype, hyper, "learning_rate", "beta1", "beta2",
                                 "epsilon")
        one = dt(1)
        b1p, b2p = dt(state["beta1_power"][()]), dt(state["beta2_power"][()])
        alpha = lr * np.sqrt(one - b2p) / (one - b1p)
        np.subtract(grad, m, out=t)
        np.multiply(t, one - b1, out=t)
        np.add(m, t, out=m)
        np.multiply(grad, grad, out=t)
        np.subtract(t, v, out=t)
        np.multiply(t, one - b2, out=t)
        np.add(v, t, out=v)
        np.multiply(m, alpha, out=t)
        np.sqrt(v, out=t2)
        np.add(t2, eps, out=t2)
        np.divide(t, t2, out=t)
        np.subtract(param, t, out=param)

    def finish(self, state, hyper):
        for name, beta in (("beta1_power", "beta1"), ("beta2_power", "beta2")):
            p = state[name]
            p[()] = p[()] * p.dtype.type(hyper[beta])


class RMSProp(UpdateRule):
    """TF1 RMSProp (TF's ``ApplyRMSProp`` / ``ApplyCenteredRMSProp``; ``rms`` starts at
    ones, epsilon inside the sqrt).

    ``ms += (g^2 - ms) * (1 - rho)``; centered: ``mg += (g - mg) * (1 - rho)`` and
    ``denom = (ms - mg^2) + eps``, else ``denom = ms + eps``;
    ``mom = mom * momentum + (g * lr) / sqrt(denom)``; ``p -= mom``.
    """

    n_scratch = 2

    def __init__(self, centered=False):
        self.centered = bool(centered)
        self.n_ops = 17 if self.centered else 12
        self.slots = ((("rms", 1.0), ("mg", 0.0), ("momentum", 0.0)) if self.centered
                      else (("rms", 1.0), ("momentum", 0.0)))

    def update(self, param, grad, state, hyper, work=None):
        t, t2 = self._scratch(param, work)
        ms, mom = state["rms"], state["momentum"]
        lr, rho, mu, eps = consts(param.dtype, hyper, "learning_rate", "decay", "momentum",
                                  "epsilon")
        c = param.dtype.type(1) - rho
        np.multiply(grad, grad, out=t)
        np.subtract(t, ms, out=t)
        np.multiply(t, c, out=t)
        np.add(ms, t, out=ms)
        if self.centered:
            mg = state["mg"]
            np.subtract(grad, mg, out=t)
            np.multiply(t, c, out=t)
            np.add(mg, t, out=mg)
            np.multiply(mg, mg, out=t)
            np.subtract(ms, t, out=t)
            np.add(t, eps, out=t)
        else:
            np.add(ms, eps, out=t)
        np.sqrt(t, out=t)
        np.multiply(grad, lr, out=t2)
        np.divide(t2, t, out=t)
        np.multiply(mom, mu, out=mom)
        np.add(mom, t, out=mom)
        np.subtract(param, mom, out=param)


class Adagrad(UpdateRule):
    """TF's ``ApplyAdagrad``: ``acc += g^2``; ``p -= g * lr * rsqrt(acc)`` (``acc`` starts
    at the initial value). ``rsqrt`` is ``1 / sqrt`` here; TF's vectorised kernel uses an
    approximate reciprocal square root refined by one Newton step, which differs from it
    by at most 2 units in the last place and depends on the CPU."""

    n_scratch = 2
    n_ops = 7

    def __init__(self, initial_accumulator_value=0.1):
        self.slots = (("accumulator", float(initial_accumulator_value)),)

    def update(self, param, grad, state, hyper, work=None):
        t, t2 = self._scratch(param, work)
        acc = state["accumulator"]
        lr, = consts(param.dtype, hyper, "learning_rate")
        np.multiply(grad, grad, out=t)
        np.add(acc, t, out=acc)
        np.sqrt(acc, out=t2)
        np.divide(param.dtype.type(1), t2, out=t2)
        np.multiply(grad, lr, out=t)
        np.multiply(t, t2, out=t)
        np.subtract(param, t, out=param)


_LANES = 8          # float32 lanes of one packet in TF's CPU kernels (AVX)
_EIGEN_EXACT = 4096  # up to this size ``eigen_sum`` reproduces TF's float32 sum exactly


def eigen_sum(x):
    """The float32 sum of a 1-D float32 array in the order TF's CPU ``reduce_sum`` adds
    (checked against TF 2.15 for sizes up to 4096; larger reductions are split further):
    fewer than 8 elements in sequence; otherwise four 8-lane accumulators over blocks of
    32, combined as ``((a0 + a1) + a2) + a3``, then the remaining whole packets, then the
    scalar tail in sequence plus the lanes reduced pairwise."""
    n = x.shape[0]
    if n < _LANES:
        return np.cumsum(x)[-1]
    quad = (n // (4 * _LANES)) * 4 * _LANES
    if quad:
        acc = np.cumsum(x[:quad].reshape(-1, 4, _LANES), axis=0)[-1]
        lanes = ((acc[0] + acc[1]) + acc[2]) + acc[3]
    else:
        lanes = np.zeros(_LANES, x.dtype)
    whole = (n // _LANES) * _LANES
    for j in range(quad, whole, _LANES):
        lanes = lanes + x[j:j + _LANES]
    tail = np.cumsum(x[whole:])[-1] if whole < n else x.dtype.type(0)
    half = lanes[:4] + lanes[4:]
    return tail + ((half[0] + half[2]) + (half[1] + half[3]))


class LAMB(UpdateRule):
    """LAMB as in the BERT reference optimizer (no bias correction).

    ``m = b1 m + (1 - b1) g``; ``v = b2 v + (1 - b2) g^2``;
    ``u = m / (sqrt(v) + eps) + wd * p`` (the decay term only for tensors whose name
    matches none of ``exclude_from_weight_decay``); per tensor ``r = ||p|| / ||u||`` when
    both norms are positive, else 1; ``p -= lr * r * u``.
    """

    slots = (("m", 0.0), ("v", 0.0))
    n_scratch = 2
    n_ops = 24
    elementwise = False  # the trust ratio is per tensor
    float32_hyper = False

    def __init__(self, exclude_from_weight_decay=None):
        self.exclude_from_weight_decay = tuple(exclude_from_weight_decay or ())

    def uses_weight_decay(self, name):
        """False when ``name`` matches one of the exclusion regexes (``re.search``)."""
        return not any(re.search(p, name) for p in self.exclude_from_weight_decay)

    def workspace(self, param, layout=None, scratch=None):
        work = super().workspace(param, layout, scratch)
        layout = work["layout"]
        decay = np.array([self.uses_weight_decay(n) for n in layout.names], dtype=bool)
        work["offsets"] = np.array(layout.offsets, dtype=np.intp)
        work["segment_ids"] = layout.segment_ids() if len(layout.names) > 1 else None
        work["decay_mask"] = (None if decay.all() else
                              np.repeat(decay, layout.sizes).astype(np.asarray(param).dtype))
        work["any_decay"] = bool(decay.any())
        exact = np.asarray(param).dtype == np.float32
        work["short"] = [(i, o, o + n) for i, (o, n) in enumerate(zip(layout.offsets,
                                                                    layout.sizes))
                         if 0 < n <= (_EIGEN_EXACT if exact else 0)]
        return work

    @staticmethod
    def _sums(squares, offsets, short, dt):
        """Per-tensor sums of ``squares`` in ``dt``: for float32 tensors of up to
        ``_EIGEN_EXACT`` elements in the order of TF's CPU reduction (``eigen_sum``);
        longer ones accumulated in float64 and rounded (within 1 ulp of TF's)."""
        sums = np.add.reduceat(squares, offsets, dtype=np.float64).astype(dt)
        for i, a, b in short:
            sums[i] = eigen_sum(squares[a:b])
        return sums

    def update(self, param, grad, state, hyper, work=None):
        if work is None:
            work = self.workspace(param)
        u, t = work["scratch"]
        m, v = state["m"], state["v"]
        dt = param.dtype.type
        b1, b2 = hyper["beta1"], hyper["beta2"]
        # The reference writes ``(1.0 - beta)`` in Python (double) next to float32 tensors.
        c1, c2 = dt(1.0 - b1), dt(1.0 - b2)
        b1, b2, eps, wd, lr = (dt(h) for h in (
            b1, b2, hyper["epsilon"], hyper["weight_decay_rate"], hyper["learning_rate"]))
        np.multiply(m, b1, out=m)
        np.multiply(grad, c1, out=u)
        np.add(m, u, out=m)
        np.multiply(v, b2, out=v)
        np.multiply(grad, grad, out=u)
        np.multiply(u, c2, out=u)
        np.add(v, u, out=v)
        np.sqrt(v, out=u)
        np.add(u, eps, out=u)
        np.divide(m, u, out=u)
        if wd and work["any_decay"]:
            np.multiply(param, wd, out=t)
            if work["decay_mask"] is not None:
                np.multiply(t, work["decay_mask"], out=t)
            np.add(u, t, out=u)
        flat_u, flat_t, flat_p = u.reshape(-1), t.reshape(-1), np.asarray(param).reshape(-1)
        offsets = work["offsets"]
        np.multiply(flat_p, flat_p, out=flat_t)
        w_norm = np.sqrt(self._sums(flat_t, offsets, work["short"], dt))
        np.multiply(flat_u, flat_u, out=flat_t)
        u_norm = np.sqrt(self._sums(flat_t, offsets, work["short"], dt))
        ok = (w_norm > 0) & (u_norm > 0)
        ratio = np.ones_like(w_norm)
        np.divide(w_norm, u_norm, out=ratio, where=ok)
        np.multiply(lr, ratio, out=ratio)
        if work["segment_ids"] is None:
            np.multiply(u, ratio[0], out=u)
        else:
            np.take(ratio, work["segment_ids"], out=flat_t, mode="clip")  # "raise" buffers
            np.multiply(u, t, out=u)
        np.subtract(param, u, out=param)


__all__ = ["Layout", "UpdateRule", "GradientDescent", "Momentum", "Adam", "RMSProp",
           "Adagrad", "LAMB"]
