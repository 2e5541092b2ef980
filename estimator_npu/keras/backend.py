"""``tf.keras.backend`` in TF1 graph mode: the Keras session, the learning phase, layer-name
counters and the small tensor helpers Keras code (``Lambda`` layers, custom losses) calls.

Everything is per graph, as in TF1's Keras: ``learning_phase()`` is a bool
``placeholder_with_default(False)`` named ``keras_learning_phase`` that ``fit`` feeds with
True, unless ``set_learning_phase(0|1)`` fixed it to a Python value; ``get_session()`` is a
session on the default graph that initializes the variables it has not initialized yet.
"""
import contextlib
import re
import weakref

import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import get_default_graph, reset_default_graph
from estimator_npu.engine.ops import array_ops, math_ops, nn_ops
from estimator_npu.engine.ops.core import constant as _constant
from estimator_npu.engine.ops.core import convert_to_tensor, placeholder_with_default
from estimator_npu.engine.ops.core import placeholder as _placeholder
from estimator_npu.engine.ops.state_ops import Variable, report_uninitialized_variables
from estimator_npu.engine.session import Session, get_default_session

_IMPORTED = set(globals())

_FLOATX = "float32"
_EPSILON = 1e-7
_IMAGE_DATA_FORMAT = "channels_last"
_PER_GRAPH = weakref.WeakKeyDictionary()   # graph -> {"uids", "phase", "phase_value", ...}
_SESSION = {"session": None}


def _state(graph=None):
    g = graph or get_default_graph()
    st = _PER_GRAPH.get(g)
    if st is None:
        st = _PER_GRAPH[g] = {"uids": {}, "phase": None, "phase_value": None,
                              "initialized": set()}
    return st


# ------------------------------------------------------------------ configuration
def floatx():
    return _FLOATX


def set_floatx(value):
    global _FLOATX
    if value not in ("float16", "float32", "float64"):
        raise ValueError(f"set_floatx: unknown floatx type {value!r}")
    _FLOATX = str(value)


def epsilon():
    return _EPSILON


def set_epsilon(value):
    global _EPSILON
    _EPSILON = float(value)


def image_data_format():
    return _IMAGE_DATA_FORMAT


def set_image_data_format(data_format):
    global _IMAGE_DATA_FORMAT
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"set_image_data_format: unknown data_format {data_format!r}")
    _IMAGE_DATA_FORMAT = data_format


def backend():
    return "tensorflow"


# ------------------------------------------------------------------ names
def get_uid(prefix=""):
    """1, 2, ... per ``prefix`` in the default graph (Keras's layer-name counter)."""
    uids = _state()["uids"]
    uids[prefix] = uids.get(prefix, 0) + 1
    return uids[prefix]


def reset_uids():
    _state()["uids"].clear()


def to_snake_case(name):
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    s = re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()
    return "private" + s if s.startswith("_") else s


def unique_object_name(base):
    """``dense``, ``dense_1``, ... as Keras names layers."""
    n = get_uid(base)
    return base if n == 1 else f"{base}_{n - 1}"


@contextlib.contextmanager
def name_scope(name):
    with get_default_graph().name_scope(name) as scope:
        yield scope


# ------------------------------------------------------------------ learning phase
def learning_phase():
    """The learning phase: the Python int set by ``set_learning_phase``, else the graph's
    ``keras_learning_phase`` bool placeholder (default False)."""
    st = _state()
    if st["phase_value"] is not None:
        return st["phase_value"]
    if st["phase"] is None:
        g = get_default_graph()
        with g.name_scope(None):
            st["phase"] = placeholder_with_default(False, shape=(), name="keras_learning_phase")
    return st["phase"]


def symbolic_learning_phase():
    st = _state()
    if st["phase"] is None:
        value, st["phase_value"] = st["phase_value"], None
        learning_phase()
        st["phase_value"] = value
    return st["phase"]


def set_learning_phase(value):
    if value not in (0, 1):
        raise ValueError(f"set_learning_phase: expected 0 or 1, got {value!r}")
    _state()["phase_value"] = int(value)


@contextlib.contextmanager
def learning_phase_scope(value):
    st = _state()
    old = st["phase_value"]
    set_learning_phase(value)
    try:
        yield value
    finally:
        st["phase_value"] = old


def _phase_placeholder(graph=None):
    """The graph's learning-phase placeholder if one was made (what ``fit`` feeds)."""
    st = _PER_GRAPH.get(graph or get_default_graph())
    return None if st is None else st["phase"]


# ------------------------------------------------------------------ session
def get_session():
    """The Keras session for the default graph (the default session if one is open), with
    the variables it has not initialized yet initialized."""
    g = get_default_graph()
    sess = get_default_session()
    if sess is None or sess.graph is not g:
        sess = _SESSION["session"]
        if sess is None or sess.graph is not g or getattr(sess, "_closed", False):
            sess = _SESSION["session"] = Session(graph=g)
    _initialize_variables(sess)
    return sess


def set_session(session):
    _SESSION["session"] = session


def _initialize_variables(sess):
    g = sess.graph
    from estimator_npu.engine.graph import GraphKeys
    variables = g.get_collection(GraphKeys.GLOBAL_VARIABLES) + \
        g.get_collection(GraphKeys.LOCAL_VARIABLES)
    done = _state(g)["initialized"]
    todo = [v for v in variables if id(v) not in done]
    if not todo:
        return
    with g.as_default() if hasattr(g, "as_default") else contextlib.nullcontext():
        names = sess.run(report_uninitialized_variables(todo))
    names = {n.decode() if isinstance(n, bytes) else n for n in names}
    init = [v for v in todo if v.op.name in names]
    if init:
        sess.run([v.initializer for v in init])
    done.update(id(v) for v in todo)


def clear_session():
    """A fresh default graph (and so fresh layer names and learning phase)."""
    _SESSION["session"] = None
    reset_default_graph()


def manual_variable_initialization(value):
    """Accepted for compatibility; variables are always initialized on first use."""


# ------------------------------------------------------------------ tensors
def int_shape(x):
    shape = x.shape if hasattr(x, "shape") else convert_to_tensor(x).shape
    if getattr(shape, "ndims", 0) is None:
        return None
    return tuple(None if d is None else int(d) for d in
                 (shape.as_list() if hasattr(shape, "as_list") else shape))


def ndim(x):
    s = int_shape(x)
    return None if s is None else len(s)


def dtype(x):
    return convert_to_tensor(x).dtype.name


def shape(x):
    return array_ops.shape(x)


def placeholder(shape=None, ndim=None, dtype=None, name=None):  # noqa: A002
    if shape is None and ndim is not None:
        shape = (None,) * ndim
    return _placeholder(dtype or floatx(), shape, name=name)


def variable(value, dtype=None, name=None, constraint=None):
    return Variable(np.asarray(value, dtype=dtypes.as_dtype(dtype or floatx()).np),
                    name=name)


def constant(value, dtype=None, shape=None, name=None):
    return _constant(value, dtype=dtype or floatx(), shape=shape, name=name)


def cast_to_floatx(x):
    return np.asarray(x, dtype=floatx())


def get_value(x):
    return get_session().run(x)


def batch_get_value(tensors):
    return get_session().run(list(tensors)) if tensors else []


def set_value(x, value):
    x.load(np.asarray(value), get_session())


def batch_set_value(tuples):
    for x, value in tuples:
        set_value(x, value)


def eval(x):  # noqa: A001 - Keras's name
    return get_value(x)


def _axis(axis):
    return list(axis) if isinstance(axis, (list, tuple)) else axis


def mean(x, axis=None, keepdims=False):
    x = convert_to_tensor(x)
    if x.dtype == dtypes.bool:
        x = math_ops.cast(x, floatx())
    return math_ops.reduce_mean(x, _axis(axis), keepdims=keepdims)


def sum(x, axis=None, keepdims=False):  # noqa: A001
    return math_ops.reduce_sum(x, _axis(axis), keepdims=keepdims)


def max(x, axis=None, keepdims=False):  # noqa: A001
    return math_ops.reduce_max(x, _axis(axis), keepdims=keepdims)


def min(x, axis=None, keepdims=False):  # noqa: A001
    return math_ops.reduce_min(x, _axis(axis), keepdims=keepdims)


def prod(x, axis=None, keepdims=False):
    return math_ops.reduce_prod(x, _axis(axis), keepdims=keepdims)


def argmax(x, axis=-1):
    return math_ops.argmax(x, axis)


def argmin(x, axis=-1):
    return math_ops.argmin(x, axis)


def dot(x, y):
    return math_ops.matmul(x, y)


def batch_dot(x, y, axes=None):
    return math_ops.matmul(x, y)


def concatenate(tensors, axis=-1):
    return array_ops.concat(list(tensors), axis)


def clip(x, min_value, max_value):
    return math_ops.clip_by_value(x, min_value, max_value)


def softmax(x, axis=-1):
    return nn_ops.softmax(x, axis=axis)


def relu(x, alpha=0.0, max_value=None, threshold=0):
    y = nn_ops.leaky_relu(x, alpha) if alpha else nn_ops.relu(x)
    return y if max_value is None else math_ops.minimum(y, max_value)


def stop_gradient(x):
    from estimator_npu.engine.ops.core import stop_gradient as _sg
    return _sg(x)


def _simple(fn):
    return lambda x, *a, **k: fn(x, *a, **k)


square, sqrt, exp, log, abs = (_simple(math_ops.square), _simple(math_ops.sqrt),  # noqa: A001
                               _simple(math_ops.exp), _simple(math_ops.log),
                               _simple(math_ops.abs))
sigmoid, tanh = _simple(math_ops.sigmoid), _simple(math_ops.tanh)
reshape, transpose = _simple(array_ops.reshape), _simple(array_ops.transpose)
expand_dims, squeeze = _simple(array_ops.expand_dims), _simple(array_ops.squeeze)
stack, tile, gather = (_simple(array_ops.stack), _simple(array_ops.tile),
                       _simple(array_ops.gather))
zeros_like, ones_like = _simple(array_ops.zeros_like), _simple(array_ops.ones_like)
maximum, minimum, pow = (_simple(math_ops.maximum), _simple(math_ops.minimum),  # noqa: A001
                         _simple(math_ops.pow))
equal, cast = _simple(math_ops.equal), _simple(math_ops.cast)



class Function:
    """``backend.function(inputs, outputs, updates)``: ``f([values]) -> [outputs]`` run in
    the Keras session (the updates run too)."""

    def __init__(self, inputs, outputs, updates=None, name=None):
        self.inputs = list(inputs)
        self.outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        self._single = not isinstance(outputs, (list, tuple))
        self.updates = list(updates or [])

    def __call__(self, inputs):
        values = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        if len(values) != len(self.inputs):
            raise ValueError(f"function expects {len(self.inputs)} input value(s), got "
                             f"{len(values)}")
        feed = {}
        for t, v in zip(self.inputs, values):
            if isinstance(t, int):  # set_learning_phase-style constant
                continue
            feed[t] = v
        out = get_session().run(self.outputs + self.updates, feed)
        out = out[:len(self.outputs)]
        return out[0] if self._single else out


def function(inputs, outputs, updates=None, name=None, **kwargs):
    return Function(inputs, outputs, updates, name)


def in_train_phase(x, alt, training=None):
    if training is None:
        training = learning_phase()
    if training is True or training == 1 and not hasattr(training, "op"):
        return x() if callable(x) else x
    if training is False or training == 0 and not hasattr(training, "op"):
        return alt() if callable(alt) else alt
    x = x() if callable(x) else x
    alt = alt() if callable(alt) else alt
    return array_ops.where(training, x, alt)


def in_test_phase(x, alt, training=None):
    return in_train_phase(alt, x, training)


def switch(condition, then_expression, else_expression):
    t = then_expression() if callable(then_expression) else then_expression
    e = else_expression() if callable(else_expression) else else_expression
    return array_ops.where(condition, t, e)


def zeros(shape, dtype=None, name=None):
    return array_ops.zeros(shape, dtype or floatx(), name=name)


def ones(shape, dtype=None, name=None):
    return array_ops.ones(shape, dtype or floatx(), name=name)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    from estimator_npu.engine.ops import random_ops
    return random_ops.random_normal(shape, mean, stddev, dtype or floatx(), seed=seed)


def random_uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    from estimator_npu.engine.ops import random_ops
    return random_ops.random_uniform(shape, minval, maxval, dtype or floatx(), seed=seed)


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    from estimator_npu.keras import losses
    return losses.categorical_crossentropy(target, output, from_logits=from_logits)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    from estimator_npu.keras import losses
    return losses.sparse_categorical_crossentropy(target, output, from_logits=from_logits)


def binary_crossentropy(target, output, from_logits=False):
    from estimator_npu.keras import losses
    eps = epsilon()
    if from_logits:
        return nn_ops.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    del losses
    p = math_ops.clip_by_value(output, eps, 1.0 - eps)
    return -(target * math_ops.log(p + eps) + (1.0 - target) * math_ops.log(1.0 - p + eps))


def l2_normalize(x, axis=None):
    return nn_ops.l2_normalize(x, axis)


def count_params(x):
    return int(np.prod(int_shape(x)))


def update(x, new_x):
    from estimator_npu.engine.ops import state_ops
    return state_ops.assign(x, new_x)


def update_add(x, increment):
    from estimator_npu.engine.ops import state_ops
    return state_ops.assign_add(x, increment)

# ------------------------------------------------------------------ Keras tensor history
# Tensors have __slots__: which layer call made a tensor (and the logits behind a softmax /
# sigmoid output) are kept here, keyed weakly by the tensor.
_HISTORY = weakref.WeakKeyDictionary()
_LOGITS = weakref.WeakKeyDictionary()


def set_keras_history(tensor, history):
    try:
        _HISTORY[tensor] = history
    except TypeError:
        pass


def keras_history(tensor):
    return _HISTORY.get(tensor) if _weakrefable(tensor) else None


def is_keras_tensor(x):
    return keras_history(x) is not None


def set_logits(output, logits):
    try:
        _LOGITS[output] = logits
    except TypeError:
        pass


def logits_of(output):
    return _LOGITS.get(output) if _weakrefable(output) else None


def _weakrefable(x):
    try:
        weakref.ref(x)
        return True
    except TypeError:
        return False

__all__ = sorted(n for n in set(globals()) - _IMPORTED if not n.startswith("_"))
