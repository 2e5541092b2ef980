"""The adapter's ``sess.run``-style helpers (``npu_bridge.estimator.npu.util``).

``set_iteration_per_loop(sess, train_op, n)`` changes the graph (creates the loop variables
and the ``IterationOp`` group) and loads ``n``; for graphs that are frozen later (e.g. by
``train.Supervisor``), ``IterationPerLoop`` splits this into a graph-changing
``create_iteration_per_loop_var(train_op)`` and a load-only
``load_iteration_per_loop_var(sess, n)``.
"""
from estimator_npu.device import config as npu_config
from estimator_npu.device import loop as device_loop
from estimator_npu.utils import logging, validation


def _check_count(iterations_per_loop):
    return validation.check_positive_int("iterations_per_loop", iterations_per_loop)


def _load(sess, loop_vars, iterations_per_loop):
    loop_vars.load(sess, iterations_per_loop)
    logging.info("load iterations_per_loop value %d", iterations_per_loop)
    configured = npu_config.settings_from_session_config(getattr(sess, "config", None)).get(
        "iterations_per_loop")
    if configured is not None and configured != iterations_per_loop:
        logging.warning("iterations_per_loop of the session config's NpuOptimizer entry is %d "
                        "but %d was loaded; they must be equal (the loaded value is used).",
                        configured, iterations_per_loop)


def _make(train_op, loop_vars):
    reason = device_loop.host_side_input_reason(train_op)
    if reason is not None:
        logging.warning("iterations_per_loop > 1 does not take effect: %s; each sess.run "
                        "runs one training step.", reason)
    return device_loop.make_iteration_op(train_op, loop_vars, single_step=reason is not None)


def set_iteration_per_loop(sess, train_op, iterations_per_loop=1):
    """Makes each ``sess.run`` of the returned op run ``train_op`` ``iterations_per_loop``
    times.

    Returns:
        ``train_op`` itself when ``iterations_per_loop == 1``; otherwise a group op named
        ``IterationOp``.

    Raises:
        ValueError: ``train_op`` is not an ``Operation``, or the count is not positive.
    """
    device_loop.check_train_op(train_op)
    _check_count(iterations_per_loop)
    if iterations_per_loop == 1:
        return train_op
    loop_vars = device_loop.create_loop_variables(train_op.graph)
    op = _make(train_op, loop_vars)
    _load(sess, loop_vars, iterations_per_loop)
    return op


class IterationPerLoop:
    """Two-step variant of ``set_iteration_per_loop`` for graphs frozen in between."""

    def __init__(self):
        self._loop_vars = None

    def create_iteration_per_loop_var(self, train_op):
        """Creates the loop variables and returns the ``IterationOp`` group (changes the
        graph: call it before the graph is finalized)."""
        device_loop.check_train_op(train_op)
        self._loop_vars = device_loop.create_loop_variables(train_op.graph)
        return _make(train_op, self._loop_vars)

    def load_iteration_per_loop_var(self, sess, iterations_per_loop=1):
        """Loads the loop count into ``sess`` without changing the graph; returns ``None``."""
        _check_count(iterations_per_loop)
        if self._loop_vars is None:
            raise RuntimeError("Call create_iteration_per_loop_var(train_op) before "
                               "load_iteration_per_loop_var.")
        _load(sess, self._loop_vars, iterations_per_loop)
        return None


_EXEC_MODES = ("lazy_recompile", "dynamic_execute")


def set_graph_exec_config(fetch, dynamic_input=False, dynamic_graph_execute_mode="dynamic_execute",
                          dynamic_inputs_shape_range=None, is_train_graph=False,
                          experimental_config=None):
    """Marks ``fetch`` (an op, a tensor, a tensor name, or a list/tuple of them) with the
    adapter's graph compile options, as ``_graph_*`` / ``_is_train_graph`` attributes of its
    op, and returns it. The options steer the Ascend graph compiler; here they change nothing
    about how the graph runs."""
    from estimator_npu.engine.graph import Operation, Tensor, get_default_graph
    if dynamic_graph_execute_mode not in _EXEC_MODES:
        raise ValueError(f"set_graph_exec_config: dynamic_graph_execute_mode should be one of "
                         f"{_EXEC_MODES}, got {dynamic_graph_execute_mode!r}")
    if isinstance(fetch, str):
        fetch = get_default_graph().get_tensor_by_name(fetch)
    if isinstance(fetch, (list, tuple)):
        for f in fetch:
            set_graph_exec_config(f, dynamic_input, dynamic_graph_execute_mode,
                                  dynamic_inputs_shape_range, is_train_graph)
        return fetch
    if not isinstance(fetch, (Operation, Tensor)):
        raise ValueError(f"set_graph_exec_config: fetch is invalid, should be an op, tensor, "
                         f"list, tuple or tensor name, got {type(fetch).__name__}")
    op = fetch if isinstance(fetch, Operation) else fetch.op
    op.attrs.update({"_graph_dynamic_input": bool(dynamic_input),
                     "_graph_dynamic_graph_execute_mode": dynamic_graph_execute_mode,
                     "_graph_dynamic_inputs_shape_range": dynamic_inputs_shape_range or "",
                     "_is_train_graph": bool(is_train_graph)})
    return fetch
