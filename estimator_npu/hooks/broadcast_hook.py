"""``NPUBroadcastGlobalVariablesHook``: start every worker from the root worker's variables.

In data-parallel training each worker initializes its variables on its own (different
random values) and only the chief restores the latest checkpoint. Right after the session
is created — after initialization and any restore — this hook overwrites every global
variable (weights, optimizer slots, the global step) on every worker with the value on
``root_rank``, so rank 0's restored values win::

    begin()                          nothing (the hook adds no ops; it works on a
                                     finalized graph)
    after_create_session(session)    broadcast_global_variables(root_rank, session)

It runs before the other hooks' ``after_create_session`` (``PRIORITY_WRITER``). In a
single process it does nothing. ``broadcast_global_variables`` is the same step for
``sess.run``-style scripts.
"""
import numbers

from estimator_npu.distribute import collective
from estimator_npu.distribute.sync import broadcast_variables
from estimator_npu.engine.graph import GraphKeys
from estimator_npu.engine.session import get_default_session
from estimator_npu.hooks.session_run_hook import PRIORITY_WRITER, SessionRunHook
from estimator_npu.utils import logging


def _check_root(root_rank):
    if isinstance(root_rank, bool) or not isinstance(root_rank, numbers.Integral):
        raise TypeError(f"root_rank must be an int, got {type(root_rank).__name__}: "
                        f"{root_rank!r}")
    if root_rank < 0:
        raise ValueError(f"root_rank must be >= 0, got {root_rank}")
    return int(root_rank)


def broadcast_global_variables(root_rank=0, session=None, var_list=None):
    """Sets every global variable on every worker to its value on ``root_rank``.

    Call it on every worker, after initializing (or restoring) the variables. It adds no
    ops to the graph.

    Args:
        root_rank: the worker whose values win.
        session: the session holding the values (default: the default session).
        var_list: the variables (default: the graph's ``GLOBAL_VARIABLES``).

    Returns:
        The number of bytes broadcast (0 in a single process).

    Raises:
        ValueError: no session, a bad ``root_rank``, or workers with different variables.
    """
    root = _check_root(root_rank)
    if session is None:
        session = get_default_session()
        if session is None:
            raise ValueError("broadcast_global_variables: no session given and no default "
                             "session; pass session=sess")
    if var_list is None:
        var_list = session.graph.get_collection(GraphKeys.GLOBAL_VARIABLES)
    return broadcast_variables(session, var_list, root)


class NPUBroadcastGlobalVariablesHook(SessionRunHook):
    """Broadcasts the global variables from ``root_rank`` once the session exists.

    Args:
        root_rank: the worker whose values win (default 0).
        index: accepted for porting from the adapter (its device index); unused.
    """

    priority = PRIORITY_WRITER

    def __init__(self, root_rank=0, index=None):
        self.root_rank = _check_root(0 if root_rank is None else root_rank)
        self.index = index

    def begin(self):
        n = collective.size()
        if self.root_rank >= n:
            raise ValueError(f"NPUBroadcastGlobalVariablesHook: root_rank must be in "
                             f"[0, {n}) (the number of workers), got {self.root_rank}")

    def after_create_session(self, session, coord):
        sent = broadcast_global_variables(self.root_rank, session)
        if sent:
            logging.info("Broadcast %d bytes of global variables from rank %d.", sent,
                         self.root_rank)

    def __repr__(self):
        return f"NPUBroadcastGlobalVariablesHook(root_rank={self.root_rank})"


__all__ = ["NPUBroadcastGlobalVariablesHook", "broadcast_global_variables"]
