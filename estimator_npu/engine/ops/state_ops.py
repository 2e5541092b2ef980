"""Variables and their updates.

A ``Variable`` is a ``VariableV2`` op whose value lives in each session's ``VarStore``.
``Assign``/``AssignAdd``/``AssignSub`` name the variable in an attribute (not as a data
input, so an initializer does not "read" the uninitialized value) and update the stored
array in place when shapes agree.
"""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import GraphKeys, Operation, Tensor, get_default_graph
from estimator_npu.engine.ops.core import convert_to_tensor, group, make_op
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.shape import as_shape

OPS = OpFamily(__name__)  # this family's op definitions (data)

OPS.define("VariableV2", kernel=lambda op, ctx: None, grad=lambda op, dy: [],
           inline=lambda op, ctx, bind: bind(ctx.store(op)) + ".value", may_alias=True,
           reads_variable=True)


def _assign_kernel(mode):
    def factory(op, ctx):
        store = ctx.store(op.attrs["var"])
        np_dtype = op.attrs["var"].outputs[0].dtype.np
        var_name = op.attrs["var"].name
        if mode == "assign":
            def assign(value):
                a = store.value
                if a is not None and a.shape == np.shape(value):
                    np.copyto(a, value, casting="unsafe")
                else:
                    store.value = np.array(value, dtype=np_dtype)
                return store.value
            return assign
        ufunc = np.add if mode == "add" else np.subtract

        def update(delta):
            a = store.value
            if a is None:
                from estimator_npu import errors
                raise errors.FailedPreconditionError(
                    None, op, f"Attempting to use uninitialized value {var_name}")
            ufunc(a, delta, out=a, casting="unsafe")
            return a
        return update
    return factory


OPS.define("Assign", kernel=_assign_kernel("assign"), grad=NOT_DIFFERENTIABLE,
           may_alias=True, stateful=True, initializes_variable=True)
OPS.define("AssignAdd", kernel=_assign_kernel("add"), grad=NOT_DIFFERENTIABLE,
           may_alias=True, stateful=True)
OPS.define("AssignSub", kernel=_assign_kernel("sub"), grad=NOT_DIFFERENTIABLE,
           may_alias=True, stateful=True)


def variable_op(ref):
    """The ``VariableV2`` op of a ``Variable`` (or of its value tensor).

    Raises:
        TypeError: ``ref`` is not a variable.
    """
    if isinstance(ref, Variable):
        return ref.op
    if isinstance(ref, Tensor) and ref.op.type == "VariableV2":
        return ref.op
    raise TypeError(f"Expected a Variable, got {type(ref).__name__}: {ref!r}")


def _state_update(op_type, ref, value, name, validate_shape=True):
    vop = variable_op(ref)
    vt = vop.outputs[0]
    value = convert_to_tensor(value, dtype=vt.dtype)
    if validate_shape and not vt.shape.is_compatible_with(value.shape):
        raise ValueError(f"{op_type} to variable {vop.name}: value shape {value.shape} is not "
                         f"compatible with variable shape {vt.shape}")
    shape = vt.shape if validate_shape else value.shape
    return make_op(op_type, [value], [(vt.dtype, shape)], {"var": vop},
                   name=name or op_type).outputs[0]


def assign(ref, value, validate_shape=True, use_locking=None, name=None):
    return _state_update("Assign", ref, value, name, validate_shape)


def assign_add(ref, value, use_locking=None, name=None):
    return _state_update("AssignAdd", ref, value, name)


def assign_sub(ref, value, use_locking=None, name=None):
    return _state_update("AssignSub", ref, value, name)


class Variable:
    """A TF1 variable: ``Variable(initial_value, trainable=True, name=None, dtype=None)``.

    Behaves like a tensor in expressions (``W * 2``, ``tf.matmul(x, W)``); its value lives
    in each session and is set by running ``initializer`` or by ``load``.
    """

    _save_slice_info = None     # a part of a partitioned variable: see engine.partitioned

    def __init__(self, initial_value=None, trainable=True, collections=None,
                 validate_shape=True, caching_device=None, name=None, variable_def=None,
                 dtype=None, expected_shape=None, import_scope=None, constraint=None,
                 use_resource=None, synchronization=None, aggregation=None, shape=None):
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        if constraint is not None and not callable(constraint):
            raise ValueError("The `constraint` argument must be a callable, got "
                             f"{type(constraint).__name__}: {constraint!r}")
        self._constraint = constraint
        g = get_default_graph()
        g._check_not_finalized()
        # A variable created inside a branch or loop body is still initialized once, at
        # the top level (TF1's init_scope); the body reads it.
        with g._outside_subgraphs(), g.name_scope(name or "Variable") as scope:
            base = scope[:-1]
            if callable(initial_value):
                with g.name_scope("Initializer"):
                    initial_value = initial_value()
            init = convert_to_tensor(initial_value, dtype=dtype, name="initial_value")
            dt = dtypes.as_dtype(dtype) if dtype is not None else init.dtype
            if init.dtype != dt:
                from estimator_npu.engine.ops.math_ops import cast
                init = cast(init, dt)
            var_shape = as_shape(shape) if shape is not None else (
                init.shape if validate_shape else as_shape(None))
            op = g.create_op("VariableV2", [], {"dtype": dt, "shape": var_shape},
                             [(dt, var_shape)], name=scope)
            self.op = op
            self._variable = op.outputs[0]
            self._initial_value = init
            self._trainable = trainable
            self._initializer_op = make_op("Assign", [init], [(dt, var_shape)],
                                           {"var": op, "is_initializer": True},
                                           name="Assign")
        if collections is None:
            collections = [GraphKeys.GLOBAL_VARIABLES]
        collections = list(collections)
        if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections.append(GraphKeys.TRAINABLE_VARIABLES)
        for c in set(collections):
            g.add_to_collection(c, self)
        op._variable_object = self
        self._device = g._device_of(op)

    # ----- tensor-like -----
    def _as_tensor(self):
        return self._variable

    def _as_graph_element(self):
        return self._variable

    @property
    def name(self):
        return self._variable.name

    @property
    def dtype(self):
        return self._variable.dtype

    @property
    def shape(self):
        return self._variable.shape

    def get_shape(self):
        return self._variable.shape

    @property
    def graph(self):
        return self.op.graph

    @property
    def device(self):
        return getattr(self, "_device", "")

    @property
    def trainable(self):
        return self._trainable

    @property
    def initializer(self):
        return self._initializer_op

    @property
    def constraint(self):
        """The projection optimizers apply after each update (``constraint=``), or None."""
        return self._constraint

    @property
    def initial_value(self):
        return self._initial_value

    def value(self):
        return self._variable

    def read_value(self):
        from estimator_npu.engine.ops.core import identity
        return identity(self._variable, name=self.op.name + "/read")

    def initialized_value(self):
        """The variable's value, or its initial value while it is not initialized (so
        another variable's initial value may depend on this one)."""
        return make_op("InitializedValue", [self._initial_value],
                       [(self.dtype, self.shape)], {"var": self.op},
                       name=self.op.name + "/initialized_value").outputs[0]

    def assign(self, value, use_locking=False, name=None, read_value=True):
        return assign(self, value, name=name)

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        return assign_add(self, delta, name=name)

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        return assign_sub(self, delta, name=name)

    def eval(self, session=None):
        return self._variable.eval(session=session)

    def load(self, value, session=None):
        """Sets the variable's value in ``session`` without adding ops to the graph.

        Works on an uninitialized variable and on a finalized graph.
        """
        from estimator_npu.engine.session import get_default_session_or_raise
        session = session or get_default_session_or_raise()
        arr = np.array(value, dtype=self.dtype.np)
        if not self.shape.is_compatible_with(arr.shape):
            raise ValueError(f"Cannot load value of shape {arr.shape} into variable "
                             f"{self.op.name} of shape {self.shape}")
        store = session.store(self.op)
        if store.value is not None and store.value.shape == arr.shape:
            np.copyto(store.value, arr)
        else:
            store.value = arr

    def __repr__(self):
        return f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    def __hash__(self):
        return id(self)

    # operator overloads delegate to the tensor
    def __getattr__(self, item):
        if item.startswith("__") or item in ("_variable", "op"):
            raise AttributeError(item)
        raise AttributeError(f"'Variable' object has no attribute '{item}'")


def _forward(name):
    def method(self, *args):
        return getattr(self._variable, name)(*args)
    method.__name__ = name
    return method


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__truediv__", "__rtruediv__", "__pow__", "__rpow__", "__matmul__",
              "__rmatmul__", "__neg__", "__abs__", "__lt__", "__le__", "__gt__", "__ge__",
              "__getitem__", "__floordiv__", "__mod__"):
    setattr(Variable, _name, _forward(_name))
Variable.__array_priority__ = 100

VariableV1 = Variable


def is_variable_op(op):
    return isinstance(op, Operation) and op.type == "VariableV2"


def global_variables(scope=None):
    return get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


def local_variables(scope=None):
    return get_default_graph().get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def trainable_variables(scope=None):
    return get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def model_variables(scope=None):
    return get_default_graph().get_collection(GraphKeys.MODEL_VARIABLES, scope)


def variables_initializer(var_list, name="init"):
    """An op that runs the initializers of ``var_list``."""
    if not var_list:
        from estimator_npu.engine.ops.core import no_op
        return no_op(name=name)
    return group(*[v.initializer for v in var_list], name=name)


def global_variables_initializer():
    return variables_initializer(global_variables(), name="init")


def local_variables_initializer():
    return variables_initializer(local_variables(), name="init_1")


initialize_all_variables = global_variables_initializer
initialize_local_variables = local_variables_initializer


def is_variable_initialized(variable):
    """A host-side check: returns a callable-free bool tensor is not supported; use
    ``report_uninitialized_variables`` instead."""
    return report_uninitialized_variables([variable])


def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    """A string tensor listing the names of uninitialized variables of ``var_list``."""
    if var_list is None:
        var_list = global_variables() + local_variables()
    ops = [v.op for v in var_list]
    return make_op("ReportUninitialized", [], [(dtypes.string, [None])], {"vars": ops},
                   name=name).outputs[0]


def _report_kernel(op, ctx):
    stores = [ctx.store(v) for v in op.attrs["vars"]]

    def report():
        return np.array([s.op.name for s in stores if s.value is None], dtype=object)
    return report


OPS.define("ReportUninitialized", kernel=_report_kernel, grad=NOT_DIFFERENTIABLE)


def _initialized_value_kernel(op, ctx):
    store = ctx.store(op.attrs["var"])
    return lambda initial: initial if store.value is None else store.value


OPS.define("InitializedValue", kernel=_initialized_value_kernel, grad=NOT_DIFFERENTIABLE,
           may_alias=True)
