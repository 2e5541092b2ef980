"""Loss scaling as its own tiny object: a manager holds the scale and the rule that adjusts it.

fp16 gradients below 2**-24 flush to zero. Multiplying the loss by a scale ``S`` before
the backward pass multiplies every gradient by ``S`` (moving them into fp16's range);
dividing the gradients by ``S`` before the update gives the true fp32 gradients back.
Too large an ``S`` makes some gradient overflow to inf: that step is skipped and the
manager lowers the scale. One training step::

    scaled_loss = scale_loss(loss, manager.get_loss_scale())        # loss * S
    grads = gradients(scaled_loss, variables)
    grads, finite = unscale_gradients(grads, manager.get_loss_scale())
                                          # one fused op: grads * (1 / S), all finite?
    apply the update only if finite        # Optimizer.apply_gradients(condition=finite)
    manager.update_loss_scale(finite)      # one fused op, runs either way

``LossScaleOptimizer`` (``train.loss_scale_optimizer``) does exactly this around any
optimizer. The dynamic rule of ``ExponentialUpdateLossScaleManager``, per step::

    if finite:
        if good_steps + 1 >= incr_every_n_steps:
            if isfinite(scale * incr_ratio): scale = scale * incr_ratio
            good_steps = bad_steps = 0
        else:
            good_steps += 1
    else:
        if bad_steps + 1 >= decr_every_n_nan_or_inf:
            scale = max(1, scale * decr_ratio)
            good_steps = bad_steps = 0
        else:
            bad_steps += 1
            good_steps = 0

(float32 arithmetic, as TF1's ``tf.contrib.mixed_precision``). ``loss_scale`` (float32),
``good_steps`` and ``bad_steps`` (int32) are non-trainable global variables, so ``Saver``
checkpoints them and a restored run continues the rule where it stopped; the scale is also
a ``loss_scale`` scalar summary in the ``SUMMARIES`` collection. A manager creates its
variables in a graph on first use there (``get_loss_scale``), at the root name scope.
"""
import math
import numbers
import weakref

import numpy as np

from estimator_npu import errors
from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import GraphKeys, get_default_graph
from estimator_npu.engine.ops import math_ops
from estimator_npu.engine.ops.core import constant, convert_to_tensor, make_op, no_op
from estimator_npu.engine.ops.state_ops import Variable
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.utils import validation

OPS = OpFamily(__name__)  # this family's op definitions (data)

_FLOAT_NAMES = ("float16", "bfloat16", "float32", "float64")
_TRUE = np.array(True)
_TRUE.setflags(write=False)
_FALSE = np.array(False)
_FALSE.setflags(write=False)


def _check_real(name, value, minimum=None, maximum=None, open_min=False, what=None):
    if (isinstance(value, (bool, np.bool_))
            or not isinstance(value, (numbers.Real, np.integer, np.floating))):
        raise TypeError(f"{name} must be a number (int or float), got "
                        f"{type(value).__name__}: {value!r}")
    v = float(value)
    bad = not math.isfinite(v)
    if minimum is not None:
        bad = bad or (v <= minimum if open_min else v < minimum)
    if maximum is not None:
        bad = bad or v > maximum
    if bad:
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return v


# ------------------------------------------------------------------ graph functions
def scale_loss(loss, loss_scale):
    """``loss * loss_scale`` (the scale cast to the loss's dtype)."""
    loss = convert_to_tensor(loss)
    return loss * math_ops.cast(convert_to_tensor(loss_scale), loss.dtype)


def unscale_gradients(grads, loss_scale, name="UnscaleGradients"):
    """Divides every gradient by ``loss_scale`` and checks them all, in one fused op.

    Args:
        grads: a list of gradient tensors or ``None`` (``None`` passes through).
        loss_scale: a scalar float tensor (or number).
        name: the op's name.

    Returns:
        ``(unscaled_grads, finite)``: the gradients times ``1 / loss_scale`` (computed in
        float32, then cast to each gradient's dtype, as TF1), ``None`` where the input was
        ``None``, and a scalar bool tensor, true when every gradient is finite (no inf, no
        NaN).
    """
    grads = list(grads)
    present = [convert_to_tensor(g) for g in grads if g is not None]
    if not present:
        return grads, constant(True)
    for g in present:
        if g.dtype.name not in _FLOAT_NAMES:
            raise TypeError(f"unscale_gradients: gradient {g.name} has dtype {g.dtype.name}; "
                            "expected a floating dtype")
    scale = convert_to_tensor(loss_scale)
    if scale.dtype != dtypes.float32:
        scale = math_ops.cast(scale, dtypes.float32)
    specs = [(g.dtype, g.shape) for g in present] + [(dtypes.bool, [])]
    op = make_op("UnscaleGradients", [scale] + present, specs, name=name)
    it = iter(op.outputs[:-1])
    return [None if g is None else next(it) for g in grads], op.outputs[-1]


def all_finite(tensors, name="AllFinite"):
    """A scalar bool tensor: every element of every tensor in ``tensors`` is finite."""
    ts = [convert_to_tensor(t) for t in tensors if t is not None]
    if not ts:
        return constant(True)
    return make_op("AllFinite", ts, [(dtypes.bool, [])], name=name).outputs[0]


def _finite(buf):
    # A sum is finite only if every term is (inf and NaN propagate); when it is not, the
    # exact per-element check decides (finite values may overflow the sum).
    if math.isfinite(np.add.reduce(buf, axis=None)):
        return True
    return bool(np.isfinite(buf).all())


def _unscale_kernel(op, ctx):
    n = len(op.inputs) - 1
    bufs = [None] * n
    one = np.float32(1)
    status = getattr(ctx, "float_status", None)

    def unscale(scale, *grads):
        inv = one / np.float32(scale)
        # Saturation mode: an fp16 op that overflowed clamped its values (finite) and set
        # the session's overflow register; read and clear it (npu_get_float_status).
        finite = not (status is not None and status.read_and_clear())
        out = []
        for i, g in enumerate(grads):   # (plans run with floating-point errors ignored)
            b = bufs[i]
            if b is None or b.shape != g.shape or b.dtype != g.dtype:
                b = bufs[i] = np.empty(g.shape, g.dtype)
            np.multiply(g, inv.astype(g.dtype), out=b)
            if finite:
                finite = _finite(b)
            out.append(b)
        out.append(_TRUE if finite else _FALSE)
        return tuple(out)
    return unscale


def _all_finite_kernel(op, ctx):
    status = getattr(ctx, "float_status", None)

    def check(*tensors):
        if status is not None and status.read_and_clear():
            return _FALSE
        for t in tensors:
            if not _finite(np.asarray(t)):
                return _FALSE
        return _TRUE
    return check


# The outputs are per-kernel buffers reused by the next run: ``may_alias`` makes a session
# copy them when they are fetched.
OPS.define("UnscaleGradients", kernel=_unscale_kernel, grad=NOT_DIFFERENTIABLE, may_alias=True)
OPS.define("AllFinite", kernel=_all_finite_kernel, grad=NOT_DIFFERENTIABLE)


# ------------------------------------------------------------------ dynamic rule
def next_loss_scale(scale, good_steps, bad_steps, finite, incr_every_n_steps,
                    decr_every_n_nan_or_inf, incr_ratio, decr_ratio):
    """One step of the dynamic rule (see the module docstring), in float32 arithmetic.

    Returns:
        ``(scale, good_steps, bad_steps)`` after the step.
    """
    scale = np.float32(scale)
    if finite:
        if good_steps + 1 >= incr_every_n_steps:
            with np.errstate(over="ignore"):
                grown = scale * np.float32(incr_ratio)
            if np.isfinite(grown):
                scale = grown
            return scale, 0, 0
        return scale, good_steps + 1, bad_steps
    if bad_steps + 1 >= decr_every_n_nan_or_inf:
        return max(np.float32(1), scale * np.float32(decr_ratio)), 0, 0
    return scale, 0, bad_steps + 1


def _update_kernel(op, ctx):
    a = op.attrs
    stores = [ctx.store(a[k]) for k in ("scale_op", "good_op", "bad_op")]
    rule = (a["incr_every_n_steps"], a["decr_every_n_nan_or_inf"], a["incr_ratio"],
            a["decr_ratio"])

    def update(finite):
        values = []
        for s in stores:
            if s.value is None:
                raise errors.FailedPreconditionError(
                    None, op, f"Attempting to use uninitialized value {s.op.name}")
            values.append(s.value)
        scale, good, bad = next_loss_scale(values[0], int(values[1]), int(values[2]),
                                           bool(finite), *rule)
        # In place: every reader of the variables' arrays (plans, the Saver) sees it.
        values[0][()] = scale
        values[1][()] = good
        values[2][()] = bad
    return update


OPS.define("UpdateLossScale", kernel=_update_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)


# ------------------------------------------------------------------ managers
class LossScaleManager:
    """The interface of a loss-scale manager (TF1 ``tf.contrib.mixed_precision``).

    Subclasses implement ``get_loss_scale()`` (a scalar float32 tensor) and
    ``update_loss_scale(finite_grads)`` (an op). ``scale`` and ``unscale`` are built on
    ``get_loss_scale``.
    """

    def get_loss_scale(self):
        """The current loss scale: a scalar float32 tensor of the default graph."""
        raise NotImplementedError

    def update_loss_scale(self, finite_grads):
        """The op that adjusts the scale after a step.

        Args:
            finite_grads: a scalar bool tensor, whether every gradient was finite.
        """
        raise NotImplementedError

    def scale(self, loss):
        """``loss * get_loss_scale()``."""
        return scale_loss(loss, self.get_loss_scale())

    def unscale(self, grads):
        """``unscale_gradients(grads, get_loss_scale())``: ``(grads, finite)``."""
        return unscale_gradients(grads, self.get_loss_scale())


def _check_finite_flag(finite_grads):
    t = convert_to_tensor(finite_grads)
    if t.dtype != dtypes.bool or t.shape.ndims not in (None, 0):
        raise ValueError("update_loss_scale: finite_grads must be a scalar bool tensor, got "
                         f"{t.dtype.name} of shape {t.shape}")
    return t


class FixedLossScaleManager(LossScaleManager):
    """A loss scale that never changes.

    Args:
        loss_scale: a finite number >= 1.

    Raises:
        TypeError: ``loss_scale`` is not a number.
        ValueError: ``loss_scale`` is below 1 or not finite.
    """

    def __init__(self, loss_scale):
        self._loss_scale = _check_real("loss_scale", loss_scale, minimum=1.0,
                                       what="a finite number >= 1 (loss scale must be at "
                                            "least 1)")
        self._tensors = weakref.WeakKeyDictionary()   # graph -> its constant

    def get_loss_scale(self):
        g = get_default_graph()
        t = self._tensors.get(g)
        if t is None:
            with g.control_dependencies(None), g.name_scope(None):
                t = self._tensors[g] = constant(self._loss_scale, dtype=dtypes.float32,
                                                name="loss_scale")
        return t

    def update_loss_scale(self, finite_grads):
        _check_finite_flag(finite_grads)
        return no_op(name="update_loss_scale")


class _ScaleVariables:
    __slots__ = ("scale", "good_steps", "bad_steps", "summary")


class ExponentialUpdateLossScaleManager(LossScaleManager):
    """A loss scale that grows after a run of finite steps and shrinks after overflows.

    Args:
        init_loss_scale: the initial scale, a finite number >= 1.
        incr_every_n_steps: multiply the scale by ``incr_ratio`` after this many
            consecutive finite steps (a positive int).
        decr_every_n_nan_or_inf: multiply it by ``decr_ratio`` (at least 1) after this
            many non-finite steps without a reset in between (a positive int).
        incr_ratio: a finite number >= 1.
        decr_ratio: a number in ``(0, 1]``.

    Raises:
        TypeError: an argument of the wrong type.
        ValueError: an argument out of range (the message names it).
    """

    def __init__(self, init_loss_scale, incr_every_n_steps, decr_every_n_nan_or_inf=2,
                 incr_ratio=2, decr_ratio=0.8):
        self._init = _check_real("init_loss_scale", init_loss_scale, minimum=1.0,
                                 what="a finite number >= 1 (loss scale must be at least 1)")
        self._incr_every_n_steps = validation.check_positive_int("incr_every_n_steps",
                                                                 incr_every_n_steps)
        self._decr_every_n = validation.check_positive_int("decr_every_n_nan_or_inf",
                                                           decr_every_n_nan_or_inf)
        self._incr_ratio = _check_real("incr_ratio", incr_ratio, minimum=1.0,
                                       what="a finite number >= 1")
        self._decr_ratio = _check_real("decr_ratio", decr_ratio, minimum=0.0, maximum=1.0,
                                       open_min=True, what="a number in (0, 1]")
        self._vars = weakref.WeakKeyDictionary()      # graph -> its _ScaleVariables

    @property
    def incr_every_n_steps(self):
        return self._incr_every_n_steps

    @property
    def decr_every_n_nan_or_inf(self):
        return self._decr_every_n

    @property
    def incr_ratio(self):
        return self._incr_ratio

    @property
    def decr_ratio(self):
        return self._decr_ratio

    def variables(self, graph=None):
        """``(loss_scale, good_steps, bad_steps)`` variables of ``graph`` (created on first
        use; default graph)."""
        g = graph or get_default_graph()
        v = self._vars.get(g)
        if v is None:
            v = self._vars[g] = self._create(g)
        return v.scale, v.good_steps, v.bad_steps

    def _create(self, g):
        v = _ScaleVariables()
        with g.as_default(), g.control_dependencies(None), g.name_scope(None):
            v.scale = Variable(np.float32(self._init), trainable=False, name="loss_scale",
                               dtype=dtypes.float32)
            v.good_steps = Variable(np.int32(0), trainable=False, name="good_steps",
                                    dtype=dtypes.int32)
            v.bad_steps = Variable(np.int32(0), trainable=False, name="bad_steps",
                                   dtype=dtypes.int32)
            # Tagged with the variable's name ("loss_scale"): a summary op named
            # "loss_scale" would get the unique scope "loss_scale_1" next to the variable.
            v.summary = make_op("ScalarSummary", [v.scale.value()], [(dtypes.string, [])],
                                {"tag": v.scale.op.name},
                                name=v.scale.op.name + "/summary").outputs[0]
            g.add_to_collection(GraphKeys.SUMMARIES, v.summary)
        return v

    def get_loss_scale(self):
        return self.variables()[0].value()

    def update_loss_scale(self, finite_grads):
        """The fused ``UpdateLossScale`` op applying the dynamic rule in place."""
        flag = _check_finite_flag(finite_grads)
        scale, good, bad = self.variables(flag.graph)
        attrs = {"scale_op": scale.op, "good_op": good.op, "bad_op": bad.op,
                 "incr_every_n_steps": self._incr_every_n_steps,
                 "decr_every_n_nan_or_inf": self._decr_every_n,
                 "incr_ratio": self._incr_ratio, "decr_ratio": self._decr_ratio}
        return make_op("UpdateLossScale", [flag], [], attrs, name="update_loss_scale")


__all__ = ["LossScaleManager", "FixedLossScaleManager", "ExponentialUpdateLossScaleManager",
           "scale_loss", "unscale_gradients", "all_finite", "next_loss_scale"]
