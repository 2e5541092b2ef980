"""The op table: one entry per primitive op type, forward kernel next to its gradient.

Each primitive is registered once, in the module of its family::

    register("Exp", kernel=simple(np.exp), grad=lambda op, dy: [dy * op.outputs[0]])

* ``kernel(op, ctx)`` is called once when a session compiles an execution plan and
  returns the callable that the plan replays: ``fn(*input_arrays) -> array`` (a tuple for
  multi-output ops, ``None`` for ops with no outputs). ``ctx`` is the session's runtime
  (variable stores, per-op random generators, resources, sub-plan compilation).
* ``grad(op, *output_grads) -> [input_grad or None, ...]`` builds the vector-Jacobian
  product as graph ops (``output_grads`` holds ``None`` for outputs that got no gradient).
  ``grad=NOT_DIFFERENTIABLE`` marks ops without a gradient (comparisons, argmax, ...).
* ``may_alias`` marks kernels that may return (a view of) an input or of variable storage,
  so a session copies their values before handing them to the user.
* ``inline(op, ctx, bind)`` optionally returns a Python expression to splice into the plan
  instead of a call (used for cheap reads such as variable values).
"""
import functools

NOT_DIFFERENTIABLE = "not differentiable"


class OpDef:
    """A registered primitive op type."""

    __slots__ = ("type", "kernel", "grad", "may_alias", "inline", "stateful")

    def __init__(self, op_type, kernel, grad, may_alias, inline, stateful):
        self.type = op_type
        self.kernel = kernel
        self.grad = grad
        self.may_alias = may_alias
        self.inline = inline
        self.stateful = stateful

    @property
    def differentiable(self):
        return self.grad is not NOT_DIFFERENTIABLE


_TABLE = {}


def register(op_type, kernel, grad, may_alias=False, inline=None, stateful=False):
    """Registers primitive ``op_type``; ``grad`` is required (or ``NOT_DIFFERENTIABLE``)."""
    if op_type in _TABLE:
        raise ValueError(f"Op type {op_type!r} is already registered.")
    if grad is None:
        raise ValueError(f"Op type {op_type!r} needs a gradient function or "
                         "NOT_DIFFERENTIABLE.")
    _TABLE[op_type] = OpDef(op_type, kernel, grad, may_alias, inline, stateful)
    return _TABLE[op_type]


def get(op_type):
    try:
        return _TABLE[op_type]
    except KeyError:
        raise LookupError(f"No op registered for type {op_type!r}.") from None


def registered_types():
    """All registered op types (imports every op family first)."""
    import estimator_npu.engine.ops  # noqa: F401 - populates the table
    return sorted(_TABLE)


def simple(fn):
    """Kernel factory for an attribute-free op: the plan calls ``fn(*inputs)`` directly."""
    return lambda op, ctx: fn


def with_attrs(fn, *names):
    """Kernel factory binding the op attributes ``names`` as keyword arguments of ``fn``."""
    def factory(op, ctx):
        kw = {n: op.attrs[n] for n in names}
        return functools.partial(fn, **kw) if kw else fn
    return factory
