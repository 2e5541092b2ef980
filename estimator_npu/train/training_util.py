"""The global step: an int64 scalar, non-trainable variable named ``global_step`` in the
``GLOBAL_VARIABLES`` and ``GLOBAL_STEP`` collections (TF1 ``training_util``)."""
from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import GraphKeys, Tensor, get_default_graph
from estimator_npu.engine.init_ops import zeros_initializer
from estimator_npu.engine.ops.state_ops import Variable
from estimator_npu.engine.variable_scope import VariableScope, get_variable, variable_scope
from estimator_npu.utils import logging

GLOBAL_STEP_NAME = "global_step"


def global_step(sess, global_step_tensor):
    """The value of ``global_step_tensor`` in ``sess`` as a Python int.

    Reads a variable's value directly (no plan is compiled, so it works on a finalized
    graph and costs nothing).
    """
    op = getattr(global_step_tensor, "op", None)
    if op is not None and op.type == "VariableV2" and hasattr(sess, "store"):
        value = sess.store(op).value
        if value is not None:
            return int(value)
    return int(sess.run(global_step_tensor))


def get_global_step(graph=None):
    """The global step variable of ``graph`` (default graph), or ``None``.

    Looks in the ``GLOBAL_STEP`` collection, then for a tensor named ``global_step:0``.

    Raises:
        TypeError: the found tensor is not an integer scalar.
    """
    graph = graph or get_default_graph()
    found = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(found) == 1:
        gs = found[0]
    elif not found:
        try:
            gs = graph.get_tensor_by_name(GLOBAL_STEP_NAME + ":0")
        except KeyError:
            return None
        gs = getattr(gs.op, "_variable_object", gs)
    else:
        logging.error("Multiple tensors in global_step collection.")
        return None
    assert_global_step(gs)
    return gs


def assert_global_step(global_step_tensor):
    """Raises ``TypeError`` unless ``global_step_tensor`` is an integer scalar variable or
    tensor."""
    if not isinstance(global_step_tensor, (Variable, Tensor)):
        raise TypeError(f"Existing \"global_step\" must be a Variable or Tensor: "
                        f"{global_step_tensor!r}.")
    if not global_step_tensor.dtype.is_integer:
        raise TypeError(f"Existing \"global_step\" does not have integer type: "
                        f"{global_step_tensor.dtype.name}")
    shape = global_step_tensor.shape
    if shape.ndims is not None and shape.ndims != 0 and shape.is_fully_defined():
        raise TypeError(f"Existing \"global_step\" is not scalar: {shape}")


def create_global_step(graph=None):
    """Creates the global step variable in ``graph`` (default graph).

    Raises:
        ValueError: the graph already has one.
    """
    graph = graph or get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default(), graph.control_dependencies(None), graph.name_scope(None):
        with variable_scope(VariableScope(""), auxiliary_name_scope=False):
            return get_variable(GLOBAL_STEP_NAME, shape=[], dtype=dtypes.int64,
                                initializer=zeros_initializer(), trainable=False,
                                collections=[GraphKeys.GLOBAL_VARIABLES,
                                             GraphKeys.GLOBAL_STEP])


def get_or_create_global_step(graph=None):
    """The global step variable of ``graph``, created if it does not exist yet."""
    graph = graph or get_default_graph()
    gs = get_global_step(graph)
    if gs is None:
        gs = create_global_step(graph)
    return gs


def global_step_value(sess, graph=None):
    """The current global step in ``sess`` (``None`` if the graph has none)."""
    gs = get_global_step(graph or sess.graph)
    return None if gs is None else global_step(sess, gs)


__all__ = ["global_step", "get_global_step", "create_global_step",
           "get_or_create_global_step", "assert_global_step", "global_step_value"]
