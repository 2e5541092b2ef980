"""The op table: one entry per primitive op type, forward kernel next to its gradient.

Each op family (a module of ``engine/ops``, or of a layer above) exports its definitions
as data, an ``OpFamily`` named ``OPS``; defining an op registers nothing::

    OPS = OpFamily(__name__)
    OPS.define("Exp", kernel=simple(np.exp), grad=lambda op, dy: [dy * op.outputs[0]])

The table is built by explicit calls, in known places: ``engine/ops/__init__.py`` lists
the engine's families (``FAMILIES``) and registers them once; each layer above that has
ops of its own (``data``, ``train``, ``rnn``, ``device``, ``distribute``) lists its
families in its package ``__init__`` and calls ``register_families`` there. Importing a
family module never changes the table. ``register(op_type, ...)`` adds one op directly
(for user or third-party extensions).

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

Properties the plan compiler needs are flags on the definition, never op-type strings
(all optional keyword arguments of ``define``/``register``, ``False`` by default):

* ``runs_first``: the op and its ancestors run before every other op of a plan (the
  device loop, so that fetches next to it see the state after the loop).
* ``input_source``: the op pulls the next input batch (``get_next``); it runs right after
  the ``runs_first`` ops, so the end of input stops a step before it changes anything.
* ``reads_variable``: the op reads a variable's stored value (checked for initialization
  when a plan is compiled; used directly, never captured, inside branches and bodies).
* ``initializes_variable``: an op of this type whose ``is_initializer`` attribute is set
  initializes ``attrs["var"]``: reads of that variable in the same plan wait for it.
* ``constant``: the op has no inputs and a fixed value (used directly inside bodies).
* ``subgraphs``: the op runs traced subgraphs (``attrs["subgraphs"]``: cond branches,
  loop bodies); inspection and ``explain`` look into them.
"""
import functools
import sys

NOT_DIFFERENTIABLE = "not differentiable"
FLAGS = ("runs_first", "input_source", "reads_variable", "initializes_variable", "constant",
         "subgraphs")


class OpDef:
    """A registered primitive op type."""

    __slots__ = ("type", "kernel", "grad", "may_alias", "inline", "stateful", "family") + FLAGS

    def __init__(self, op_type, kernel, grad, may_alias, inline, stateful, family=None,
                 **flags):
        self.type = op_type
        self.family = family  # the module that defined the op (its op family)
        self.kernel = kernel
        self.grad = grad
        self.may_alias = may_alias
        self.inline = inline
        self.stateful = stateful
        for f in FLAGS:
            setattr(self, f, bool(flags.pop(f, False)))
        if flags:
            raise TypeError(f"register({op_type!r}): unknown flags {sorted(flags)}; "
                            f"known flags are {list(FLAGS)}")

    @property
    def differentiable(self):
        return self.grad is not NOT_DIFFERENTIABLE


class OpFamily:
    """One op family's definitions, as data: an ordered, named collection of ``OpDef``.

    ``define`` builds and records a definition; nothing enters the op table until the
    family is passed to ``register_families``."""

    def __init__(self, name):
        self.name = name  # the defining module, ``OpDef.family`` of every member
        self._defs = {}

    def define(self, op_type, kernel, grad, may_alias=False, inline=None, stateful=False,
               **flags):
        """Records the definition of primitive ``op_type`` (arguments as ``register``)."""
        if op_type in self._defs:
            raise ValueError(f"Op type {op_type!r} is defined twice in {self.name}.")
        d = _make_def(op_type, kernel, grad, may_alias, inline, stateful, self.name, flags)
        self._defs[op_type] = d
        return d

    def types(self):
        return list(self._defs)

    def __iter__(self):
        return iter(self._defs.values())

    def __len__(self):
        return len(self._defs)

    def __repr__(self):
        return f"<OpFamily {self.name}: {len(self)} ops>"


def _make_def(op_type, kernel, grad, may_alias, inline, stateful, family, flags):
    if grad is None:
        raise ValueError(f"Op type {op_type!r} needs a gradient function or "
                         "NOT_DIFFERENTIABLE.")
    return OpDef(op_type, kernel, grad, may_alias, inline, stateful, family, **flags)


_TABLE = {}


def register_families(families):
    """Adds every definition of each ``OpFamily`` in ``families`` to the op table.

    Raises ``ValueError`` if an op type is already registered by another definition (the
    table is left as it was)."""
    families = list(families)
    for fam in families:
        if not isinstance(fam, OpFamily):
            raise TypeError(f"register_families expects OpFamily objects (a family "
                            f"module's OPS), got {type(fam).__name__}")
    new = {}
    for fam in families:
        for d in fam:
            other = new.get(d.type) or _TABLE.get(d.type)
            if other is not None and other is not d:
                raise ValueError(f"Op type {d.type!r} of {fam.name} is already registered "
                                 f"(by {other.family}).")
            new[d.type] = d
    _TABLE.update(new)


def register(op_type, kernel, grad, may_alias=False, inline=None, stateful=False, **flags):
    """Registers primitive ``op_type`` directly (an extension outside the op families);
    ``grad`` is required (or ``NOT_DIFFERENTIABLE``).

    ``flags`` are the compiler properties listed in the module docstring."""
    if op_type in _TABLE:
        raise ValueError(f"Op type {op_type!r} is already registered.")
    family = sys._getframe(1).f_globals.get("__name__")
    d = _make_def(op_type, kernel, grad, may_alias, inline, stateful, family, flags)
    _TABLE[op_type] = d
    return d


def get(op_type):
    try:
        return _TABLE[op_type]
    except KeyError:
        raise LookupError(f"No op registered for type {op_type!r}.") from None


def registered_types():
    """All registered op types."""
    return sorted(_TABLE)


def families():
    """``{family module: [op types]}``: the table grouped by the module defining each op
    (the engine's families, listed in ``engine.ops.FAMILIES``, and those the layers above
    registered)."""
    out = {}
    for t, d in sorted(_TABLE.items()):
        out.setdefault(d.family, []).append(t)
    return out


def simple(fn):
    """Kernel factory for an attribute-free op: the plan calls ``fn(*inputs)`` directly."""
    return lambda op, ctx: fn


def with_attrs(fn, *names):
    """Kernel factory binding the op attributes ``names`` as keyword arguments of ``fn``."""
    def factory(op, ctx):
        kw = {n: op.attrs[n] for n in names}
        return functools.partial(fn, **kw) if kw else fn
    return factory


class Inline:
    """A kernel that the plan splices in as an expression instead of calling a closure:
    ``Inline("{dot}({0}.T, {1})", dot=np.dot)`` makes the line ``t = k_dot(t_a.T, t_b)``,
    which saves the Python frame of a ``lambda a, b: np.dot(a.T, b)`` (~0.1-0.2 us, as
    much as the small product itself costs). ``{i}`` is the i-th input, ``{name}`` a
    ``bound`` object (a global of the plan). ``inputs`` (tensors) replaces the op's own
    inputs, for a rewrite that reads through ops it elides. Calling it evaluates the same
    expression, so code that calls kernels directly (precision wrappers) still works."""

    __slots__ = ("template", "bound", "inputs", "_fn")

    def __init__(self, template, inputs=None, **bound):
        self.template, self.bound, self.inputs, self._fn = template, bound, inputs, None

    def expression(self, args, names):
        """The expression for input expressions ``args``; ``names`` maps bound keys to
        the plan globals holding them."""
        return self.template.format(*args, **names)

    def __call__(self, *args):
        if self._fn is None:
            params = [f"a{i}" for i in range(len(args))]
            ns = {f"b_{k}": v for k, v in self.bound.items()}
            self._fn = eval(  # noqa: S307 - a template of this module's kernels
                f"lambda {', '.join(params)}: "
                + self.expression(params, {k: f"b_{k}" for k in self.bound}), ns)
        return self._fn(*args)

    def __repr__(self):
        return f"Inline({self.template!r})"


def elided(*args):
    """Kernel of an op that a rewrite folded into its one reader (an ``Inline`` reading
    through it): the plan emits no line for it. Called directly it returns its inputs."""
    return args[0] if len(args) == 1 else args
