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
from estimator_npu.engine.ops import array_ops
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

from estimator_npu.keras.backend_ops import *  # noqa: E402,F401,F403

__all__ = sorted(n for n in set(globals()) - _IMPORTED if not n.startswith("_"))
