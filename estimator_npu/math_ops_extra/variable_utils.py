"""TF1 variable utilities: ``make_template`` (a function whose variables are created on the
first call and reused after), ``init_scope``, ``no_regularizer``, the orthogonal and
uniform-unit-scaling initializers, ``moving_average_variables``, ``is_variable_initialized``,
``assert_variables_initialized``, ``count_up_to`` and ``hessians``."""
import contextlib
import functools
import math

import numpy as np

from estimator_npu import errors
from estimator_npu.engine import dtypes, init_ops
from estimator_npu.engine.gradients import gradients
from estimator_npu.engine.graph import GraphKeys, get_collection, get_default_graph
from estimator_npu.engine.ops import array_ops, random_ops, state_ops
from estimator_npu.engine.ops.core import convert_to_tensor, make_op, make_tensor
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily, with_attrs
from estimator_npu.engine.variable_scope import variable_scope

OPS = OpFamily(__name__)  # this family's op definitions (data)


# ------------------------------------------------------------------ make_template
class Template:
    """``func_`` wrapped so that every call shares the variables of the first one (each call
    runs in the template's variable scope, with ``reuse=True`` after the first)."""

    def __init__(self, name, func, create_scope_now=False, unique_name=None,
                 custom_getter=None, create_graph_function=False):
        if create_graph_function:
            raise NotImplementedError("make_template: create_graph_function_=True (a TF2 "
                                      "graph function) is not supported")
        self._func = func
        self._name = name
        self._unique_name = unique_name
        self._custom_getter = custom_getter
        self._variable_scope = None
        self._variables_created = False
        if create_scope_now:
            self._open_scope()

    def _open_scope(self):
        with variable_scope(self._unique_name, default_name=self._name,
                            custom_getter=self._custom_getter) as vs:
            self._variable_scope = vs

    def __call__(self, *args, **kwargs):
        if self._variable_scope is None:
            with variable_scope(self._unique_name, default_name=self._name,
                                custom_getter=self._custom_getter) as vs:
                self._variable_scope = vs
                return self._call_first(*args, **kwargs)
        if not self._variables_created:
            with variable_scope(self._variable_scope):
                return self._call_first(*args, **kwargs)
        with variable_scope(self._variable_scope, reuse=True):
            return self._call_reuse(*args, **kwargs)

    def _call_first(self, *args, **kwargs):
        out = self._func(*args, **kwargs)
        self._variables_created = True
        return out

    def _call_reuse(self, *args, **kwargs):
        before = len(get_collection(GraphKeys.TRAINABLE_VARIABLES))
        out = self._func(*args, **kwargs)
        if len(get_collection(GraphKeys.TRAINABLE_VARIABLES)) != before:
            raise ValueError(f"Trainable variable created when calling a template after the "
                             f"first time (template {self.name!r}); functions used in "
                             "templates must create their variables with get_variable")
        return out

    @property
    def name(self):
        return self._name

    @property
    def func(self):
        return self._func

    @property
    def variable_scope(self):
        return self._variable_scope

    var_scope = variable_scope

    @property
    def variable_scope_name(self):
        if self._variable_scope is None:
            return None
        name = self._variable_scope.name
        return name if not name or name.endswith("/") else name + "/"

    def _collection(self, key):
        if self._variable_scope is None:
            return []
        return get_collection(key, scope=self._variable_scope.name + "/")

    @property
    def variables(self):
        return self.global_variables + self.local_variables

    @property
    def trainable_variables(self):
        return self._collection(GraphKeys.TRAINABLE_VARIABLES)

    trainable_weights = trainable_variables

    @property
    def global_variables(self):
        return self._collection(GraphKeys.GLOBAL_VARIABLES)

    @property
    def local_variables(self):
        return self._collection(GraphKeys.LOCAL_VARIABLES)

    @property
    def non_trainable_variables(self):
        train = set(map(id, self.trainable_variables))
        return [v for v in self.global_variables if id(v) not in train]

    non_trainable_weights = non_trainable_variables
    weights = variables


def make_template(name_, func_, create_scope_now_=False, unique_name_=None,
                  custom_getter_=None, **kwargs):
    """Wraps ``func_`` (with ``kwargs`` bound) so all its calls share variables."""
    if kwargs:
        func_ = functools.partial(func_, **kwargs)
    return Template(name_, func_, create_scope_now=create_scope_now_,
                    unique_name=unique_name_, custom_getter=custom_getter_)


@contextlib.contextmanager
def init_scope():
    """Builds ops outside any control dependencies (TF1 graph mode: what ``init_scope``
    lifts out of; there is no eager context to enter)."""
    with get_default_graph().control_dependencies(None):
        yield


def no_regularizer(_):
    """A regularizer that adds nothing (``None``)."""
    return None


# ------------------------------------------------------------------ initializers
class Orthogonal(init_ops.Initializer):
    """An orthogonal matrix (rows or columns orthonormal, times ``gain``) from the QR of a
    normal sample; a shape of rank > 2 is treated as ``[prod(shape[:-1]), shape[-1]]``."""

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        self.gain, self.seed = float(gain), seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dt = self._dtype(dtype)
        shape = [int(d) for d in shape]
        if len(shape) < 2:
            raise ValueError(f"The tensor to initialize must be at least two-dimensional, "
                             f"got shape {shape}")
        rows, cols = int(np.prod(shape[:-1])), shape[-1]
        a = random_ops.random_normal([max(rows, cols), min(rows, cols)], dtype=dt,
                                     seed=self.seed)
        return make_tensor("OrthogonalFromNormal", [a], dt, shape,
                           {"shape": tuple(shape), "gain": self.gain, "wide": rows < cols})


def _orthogonalize(a, shape, gain, wide):
    q, r = np.linalg.qr(np.asarray(a, np.float64))
    q = q * np.sign(np.diag(r))
    if wide:
        q = q.T
    return (gain * q).reshape(shape).astype(np.asarray(a).dtype)


OPS.define("OrthogonalFromNormal", kernel=with_attrs(_orthogonalize, "shape", "gain", "wide"),
           grad=NOT_DIFFERENTIABLE)


class UniformUnitScaling(init_ops.Initializer):
    """Uniform in ``[-m, m]`` with ``m = factor * sqrt(3 / prod(shape[:-1]))`` (the scale
    that keeps a linear layer's input variance)."""

    def __init__(self, factor=1.0, seed=None, dtype=dtypes.float32):
        self.factor, self.seed = float(factor), seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        shape = [int(d) for d in shape]
        fan_in = max(float(np.prod(shape[:-1])) if len(shape) > 1 else 1.0, 1.0)
        m = math.sqrt(3.0 / fan_in) * self.factor
        return random_ops.random_uniform(shape, -m, m, self._dtype(dtype), seed=self.seed)


orthogonal_initializer = Orthogonal
uniform_unit_scaling_initializer = UniformUnitScaling


# ------------------------------------------------------------------ variable checks
def moving_average_variables(scope=None):
    """The variables ``ExponentialMovingAverage.apply`` averages
    (``GraphKeys.MOVING_AVERAGE_VARIABLES``)."""
    return get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def is_variable_initialized(variable):
    """A bool scalar tensor: whether ``variable`` holds a value in this session."""
    vop = state_ops.variable_op(variable)
    return make_tensor("IsVariableInitialized", [], dtypes.bool, [], {"var": vop},
                       name="IsVariableInitialized")


def _is_initialized_kernel(op, ctx):
    store = ctx.store(op.attrs["var"])
    return lambda: np.array(store.value is not None)


def assert_variables_initialized(var_list=None):
    """An op that raises ``FailedPreconditionError`` naming the first uninitialized variable
    of ``var_list`` (default: all global and local variables); ``None`` if there are none."""
    if var_list is None:
        var_list = state_ops.global_variables() + state_ops.local_variables()
    if not var_list:
        return None
    ops = [state_ops.variable_op(v) for v in var_list]
    return make_op("AssertVariablesInitialized", [], [], {"vars": ops},
                   name="assert_variables_initialized")


def _assert_initialized_kernel(op, ctx):
    stores = [(v, ctx.store(v)) for v in op.attrs["vars"]]

    def check():
        for v, s in stores:
            if s.value is None:
                raise errors.FailedPreconditionError(
                    None, op, f"Attempting to use uninitialized value {v.name}")
    return check


OPS.define("IsVariableInitialized", kernel=_is_initialized_kernel, grad=NOT_DIFFERENTIABLE,
           stateful=True)
OPS.define("AssertVariablesInitialized", kernel=_assert_initialized_kernel,
           grad=NOT_DIFFERENTIABLE, stateful=True)


# ------------------------------------------------------------------ hessians
def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False,
             gate_gradients=False, aggregation_method=None):
    """For each ``x`` of ``xs``, the Hessian of ``sum(ys)`` with respect to it, shaped
    ``x.shape + x.shape`` (``x``'s size must be known when the graph is built)."""
    xs = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    out = []
    for x in xs:
        x = convert_to_tensor(x)
        n = x.shape.num_elements()
        if n is None:
            raise ValueError(f"hessians: the shape of {x.name} ({x.shape}) must be fully "
                             "defined")
        (g,) = gradients(ys, [x])
        if g is None:
            out.append(None)
            continue
        flat = array_ops.reshape(g, [n])
        rows = []
        for j in range(n):
            (h,) = gradients(flat[j], [x])
            rows.append(array_ops.zeros_like(x) if h is None else h)
        shape = list(x.shape.values) * 2
        out.append(array_ops.reshape(array_ops.stack(rows), shape, name=name))
    return out
