"""``variable_scope`` and ``get_variable``: named, reusable variables.

``get_variable(name, shape)`` creates ``<scope>/name`` or, inside a scope opened with
``reuse=True`` (or ``tf.AUTO_REUSE``), returns the existing variable of that name::

    with tf.variable_scope("layer1"):
        w = tf.get_variable("w", [784, 10])          # "layer1/w"
    with tf.variable_scope("layer1", reuse=True):
        assert tf.get_variable("w") is w
"""
import contextlib
import functools
import inspect

from estimator_npu.engine import dtypes
from estimator_npu.engine import init_ops, partitioned
from estimator_npu.engine.graph import GraphKeys, get_default_graph
from estimator_npu.engine.ops.state_ops import Variable
from estimator_npu.engine.shape import as_shape

AUTO_REUSE = "auto_reuse"


class VariableScope:
    """The state of one ``variable_scope`` level."""

    def __init__(self, name, reuse=None, initializer=None, regularizer=None, dtype=None,
                 custom_getter=None):
        if custom_getter is not None and not callable(custom_getter):
            raise ValueError(f"Passed a custom_getter which is not callable: {custom_getter!r}")
        self.custom_getter = custom_getter
        self.name = name
        self.reuse = reuse
        self.initializer = initializer
        self.regularizer = regularizer
        self.dtype = dtype
        self.original_name_scope = name + "/" if name else ""

    def reuse_variables(self):
        self.reuse = True

    def set_custom_getter(self, custom_getter):
        self.custom_getter = custom_getter

    # TF1's setters (tf_slim's batch_norm calls set_partitioner(None)); get_variable uses
    # the scope's partitioner when it is given none.
    partitioner = None
    caching_device = None

    def set_partitioner(self, partitioner):
        self.partitioner = partitioner

    def set_initializer(self, initializer):
        self.initializer = initializer

    def set_regularizer(self, regularizer):
        self.regularizer = regularizer

    def set_dtype(self, dtype):
        self.dtype = dtype

    def set_caching_device(self, caching_device):
        self.caching_device = caching_device


def _wrap_custom_getter(custom_getter, old_getter):
    """A scope's custom getter over its parent's: the inner one is called first and its
    ``getter`` argument runs the outer one over the true getter (TF1's composition)."""
    if old_getter is None:
        return custom_getter

    def wrapped(getter, *args, **kwargs):
        return custom_getter(functools.partial(old_getter, getter), *args, **kwargs)
    return wrapped


def get_variable_scope():
    g = get_default_graph()
    return g._var_scope_stack[-1] if g._var_scope_stack else VariableScope("")


@contextlib.contextmanager
def variable_scope(name_or_scope, default_name=None, values=None, initializer=None,
                   regularizer=None, reuse=None, dtype=None, auxiliary_name_scope=True,
                   custom_getter=None, use_resource=None, partitioner=None,
                   caching_device=None, constraint=None):
    """Opens a variable scope (and the name scope of the same name); ``partitioner``
    applies to the variables made in it (and inner scopes) that are given none;
    ``caching_device`` and ``constraint`` are accepted as TF1's."""
    g = get_default_graph()
    parent = get_variable_scope()
    if custom_getter is not None and not callable(custom_getter):
        raise ValueError(f"Passed a custom_getter which is not callable: {custom_getter!r}")
    if isinstance(name_or_scope, VariableScope):
        full = name_or_scope.name
        name = full.rsplit("/", 1)[-1]
        old_getter = name_or_scope.custom_getter
    else:
        if name_or_scope is None:
            if default_name is None:
                raise ValueError("variable_scope: give name_or_scope or default_name")
            name = _unique_scope_name(g, parent, default_name)
        else:
            name = name_or_scope
            _count_scope(g, parent, name)
        full = parent.name + "/" + name if parent.name else name
        old_getter = parent.custom_getter
    if name_or_scope is not None:
        _close_subscopes(g, full)
    if reuse is False:
        reuse = None
    scope = VariableScope(full, reuse=True if reuse is True else (reuse or parent.reuse),
                          initializer=initializer or parent.initializer,
                          regularizer=regularizer or parent.regularizer,
                          dtype=dtype or parent.dtype,
                          custom_getter=old_getter if custom_getter is None
                          else _wrap_custom_getter(custom_getter, old_getter))
    scope.partitioner = partitioner if partitioner is not None else (
        name_or_scope.partitioner if isinstance(name_or_scope, VariableScope)
        else parent.partitioner)
    g._var_scope_stack.append(scope)
    try:
        if auxiliary_name_scope:
            with g.name_scope(name) as ns:
                scope.original_name_scope = ns
                yield scope
        else:
            yield scope
    finally:
        g._var_scope_stack.pop()


def _unique_scope_name(g, parent, base):
    """``base``, ``base_1``, ... counting every scope of that name opened so far (TF1)."""
    counts = g.__dict__.setdefault("_var_scope_counts", {})
    i = counts.get((parent.name, base), 0)
    name = base if i == 0 else f"{base}_{i}"
    while (parent.name, name) in counts:
        i += 1
        name = f"{base}_{i}"
    counts[(parent.name, base)] = i + 1
    counts.setdefault((parent.name, name), 1)
    return name


def _close_subscopes(g, full):
    """Entering a named scope restarts the default names under it (TF1), so re-entering
    ``discriminator`` with reuse=True names its layers ``dense``, ``dense_1``, ... again."""
    counts = g.__dict__.setdefault("_var_scope_counts", {})
    for key in [k for k in counts if k[0] == full or k[0].startswith(full + "/")]:
        del counts[key]


def _count_scope(g, parent, name):
    counts = g.__dict__.setdefault("_var_scope_counts", {})
    counts[(parent.name, name)] = counts.get((parent.name, name), 0) + 1


def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                 trainable=None, collections=None, caching_device=None, partitioner=None,
                 validate_shape=True, use_resource=None, custom_getter=None, constraint=None,
                 synchronization=None, aggregation=None):
    """Gets an existing variable ``<scope>/name`` or creates it.

    ``custom_getter`` (or, when None, the scope's, see ``variable_scope``) is called as
    ``custom_getter(getter=<the true getter>, name=<full name>, shape=..., dtype=...,
    initializer=..., regularizer=..., reuse=..., trainable=..., collections=..., ...)``
    and returns what it likes, usually ``getter(name, *args, **kwargs)`` with some arguments
    changed, as in TF1.

    Raises:
        ValueError: creating a variable that exists without ``reuse``; reusing one that
            does not exist; or a shape/dtype that differs from the existing variable's.
    """
    scope = get_variable_scope()
    full = scope.name + "/" + name if scope.name else name
    if custom_getter is None:
        custom_getter = scope.custom_getter
    elif not callable(custom_getter):
        raise ValueError(f"Passed a custom_getter which is not callable: {custom_getter!r}")
    kwargs = dict(shape=shape, dtype=dtype or scope.dtype,
                  initializer=initializer if initializer is not None else scope.initializer,
                  regularizer=regularizer or scope.regularizer, reuse=scope.reuse,
                  trainable=trainable, collections=collections, caching_device=caching_device,
                  partitioner=partitioner if partitioner is not None else scope.partitioner,
                  validate_shape=validate_shape,
                  use_resource=use_resource, synchronization=synchronization,
                  aggregation=aggregation)
    if custom_getter is None:
        return _true_getter(full, constraint=constraint, **kwargs)
    if _takes_constraint(custom_getter):
        kwargs["constraint"] = constraint
    return custom_getter(getter=_true_getter, name=full, **kwargs)


def _takes_constraint(fn):
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "constraint" or p.kind is p.VAR_KEYWORD for p in params)


def _true_getter(name, shape=None, dtype=None, initializer=None, regularizer=None, reuse=None,
                 trainable=None, collections=None, caching_device=None, partitioner=None,
                 validate_shape=True, use_resource=None, constraint=None,
                 synchronization=None, aggregation=None):
    """Gets or creates the variable named ``name`` (a full scope path), what custom
    getters receive as ``getter``."""
    g = get_default_graph()
    full = name
    store = g._var_store
    if reuse is False:
        reuse = None
    if full in store:
        v = store[full]
        if reuse is None:
            raise ValueError(f"Variable {full} already exists, disallowed. Did you mean to set "
                             "reuse=True or reuse=tf.AUTO_REUSE in VarScope?")
        if shape is not None and not as_shape(shape).is_compatible_with(v.shape):
            raise ValueError(f"Trying to share variable {full}, but specified shape "
                             f"{as_shape(shape)} and found shape {v.shape}.")
        if dtype is not None and dtypes.as_dtype(dtype) != v.dtype:
            raise ValueError(f"Trying to share variable {full}, but specified dtype "
                             f"{dtypes.as_dtype(dtype).name} and found dtype {v.dtype.name}.")
        return v
    if reuse is True:
        raise ValueError(f"Variable {full} does not exist, or was not created with "
                         "tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in "
                         "VarScope?")
    init = initializer  # as TF, a tensor initializer gives its own dtype (dtype is ignored)
    dt = init.dtype.base_dtype if hasattr(init, "op") else dtypes.as_dtype(dtype or dtypes.float32)
    if init is None:
        init = init_ops.glorot_uniform_initializer() if dt.is_floating else \
            init_ops.zeros_initializer()
    if partitioner is not None:
        return _partitioned(g, full, shape, dt, init, partitioner, trainable, collections,
                            regularizer, validate_shape, constraint)
    if callable(init) and not hasattr(init, "op"):
        if shape is None:
            raise ValueError(f"get_variable {full}: shape must be given when the "
                             "initializer is not a tensor")
        shp = as_shape(shape)
        if not shp.is_fully_defined():
            raise ValueError(f"get_variable {full}: shape {shp} must be fully defined")
        if isinstance(init, type):
            init = init()
        initial = lambda: init(shp.as_list(), dtype=dt)  # noqa: E731
    else:
        initial = init
        shape = None
    if trainable is None:
        trainable = True
    return _stored_var(g, full, initial, trainable, collections, dt, validate_shape,
                       constraint, regularizer)


def _stored_var(g, full, initial, trainable, collections, dt, validate_shape, constraint,
                regularizer):
    """A new variable named by its full scope path (independent of name scopes), in the
    graph's variable store, its regularizer's loss collected."""
    with g.name_scope(None):
        v = _make_var(g, full, initial, trainable, collections, dt, validate_shape,
                      constraint)
    g._var_store[full] = v
    if regularizer is not None:
        with g.name_scope(full + "/Regularizer/"):
            loss = regularizer(v)
        if loss is not None:
            g.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
    return v


def _partitioned(g, full, shape, dt, init, partitioner, trainable, collections, regularizer,
                 validate_shape, constraint=None):
    """A ``PartitionedVariable`` of parts ``<full>/part_<i>`` (see ``partitioned``)."""
    if hasattr(init, "op") or not callable(init):    # a value: each part takes its slice
        from estimator_npu.engine.ops import array_ops
        from estimator_npu.engine.ops.core import convert_to_tensor
        value = convert_to_tensor(init, dtype=dt)
        shape = value.shape if shape is None else shape

        def init(part_shape, dtype=None, partition_info=None):
            return array_ops.slice(value, partition_info.var_offset, part_shape)
    shp = as_shape(shape) if shape is not None else None
    if shp is None or not shp.is_fully_defined():
        raise ValueError(f"get_variable {full}: a partitioned variable needs a fully "
                         f"defined shape, got {shp}")
    if isinstance(init, type):
        init = init()

    def make_part(name, initial):
        return _stored_var(g, name, initial, True if trainable is None else trainable,
                           collections, dt, validate_shape, constraint, regularizer)
    partitions = partitioner(shape=shp, dtype=dt)
    pv = partitioned.make_partitioned(full, shp.as_list(), dt, init, partitions, make_part)
    g._var_store[full] = pv
    return pv


def _make_var(g, full, initial, trainable, collections, dt, validate_shape, constraint=None):
    parent, _, base = full.rpartition("/")
    if parent:
        with g.name_scope(parent + "/"):
            return Variable(initial, trainable=trainable, collections=collections, name=base,
                            dtype=dt, validate_shape=validate_shape, constraint=constraint)
    return Variable(initial, trainable=trainable, collections=collections, name=base, dtype=dt,
                    validate_shape=validate_shape, constraint=constraint)


def get_local_variable(name, shape=None, dtype=None, initializer=None, **kwargs):
    kwargs["collections"] = [GraphKeys.LOCAL_VARIABLES]
    kwargs["trainable"] = False
    return get_variable(name, shape, dtype, initializer, **kwargs)
