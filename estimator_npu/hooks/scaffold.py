"""``Scaffold`` (the ops a training session needs) and the session creators.

``Scaffold.finalize()`` fills in what the user left out — ``init_op``, ``ready_op``,
``local_init_op``, ``summary_op``, ``saver`` — from the graph's collections or defaults,
then finalizes the graph. ``ChiefSessionCreator.create_session()`` then builds the session:

    restore the newest intact checkpoint of checkpoint_dir (``train.recovery.restore_newest``:
      each candidate is checked by restoring it)
      (or exactly checkpoint_filename_with_path)
    or, when there is none:  run init_op (with init_feed_dict), then init_fn(scaffold, sess)
    run local_init_op
    check ready_op: every variable initialized, else RuntimeError naming the rest

``init_fn`` therefore runs only on a fresh start; warm-starting uses it.
"""
import numpy as np

from estimator_npu.train import recovery
from estimator_npu.train.saver import Saver
from estimator_npu.train.summary_ops import merge_all
from estimator_npu.engine.graph import GraphKeys, get_default_graph
from estimator_npu.engine.ops import state_ops
from estimator_npu.engine.ops.core import group
from estimator_npu.engine.session import Session
from estimator_npu.utils import logging

SUMMARY_OP = "summary_op"


def _get_or_default(key, default_fn):
    graph = get_default_graph()
    found = graph.get_collection(key)
    if found:
        if len(found) > 1:
            raise RuntimeError(f"More than one item in the collection {key!r}; give the "
                               f"Scaffold the one to use.")
        return found[0]
    value = default_fn()
    if value is not None:
        graph.add_to_collection(key, value)
    return value


class Scaffold:
    """The ops that create, initialize and save a training session.

    Args:
        init_op: initializes the global variables (default: all of them).
        init_feed_dict: feeds for ``init_op``.
        init_fn: ``init_fn(scaffold, session)`` run after ``init_op`` on a fresh start.
        ready_op: a string tensor naming uninitialized variables (empty when ready).
        ready_for_local_init_op: accepted for TF1 compatibility.
        local_init_op: initializes local variables (metrics, loop counters).
        summary_op: the merged summaries (default: ``summary.merge_all()``).
        saver: the ``Saver`` (default: the ``SAVERS`` collection's, else a new one).
        copy_from_scaffold: a scaffold whose fields fill the ones not given here.
    """

    def __init__(self, init_op=None, init_feed_dict=None, init_fn=None, ready_op=None,
                 ready_for_local_init_op=None, local_init_op=None, summary_op=None,
                 saver=None, copy_from_scaffold=None):
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold must be a Scaffold, got "
                                f"{type(copy_from_scaffold).__name__}")
            src = copy_from_scaffold
            init_op = init_op or src.init_op
            init_feed_dict = init_feed_dict or src.init_feed_dict
            init_fn = init_fn or src._user_init_fn
            ready_op = ready_op or src.ready_op
            ready_for_local_init_op = ready_for_local_init_op or src.ready_for_local_init_op
            local_init_op = local_init_op or src.local_init_op
            summary_op = summary_op or src.summary_op
            saver = saver or src.saver
        if init_fn is not None and not callable(init_fn):
            raise TypeError(f"init_fn must be callable, got {type(init_fn).__name__}")
        self._user_init_fn = init_fn
        self.init_fn = None if init_fn is None else (lambda sess: init_fn(self, sess))
        self.init_op = init_op
        self.init_feed_dict = init_feed_dict
        self.ready_op = ready_op
        self.ready_for_local_init_op = ready_for_local_init_op
        self.local_init_op = local_init_op
        self.summary_op = summary_op
        self.saver = saver
        self._finalized = False

    @property
    def finalized(self):
        return self._finalized

    @staticmethod
    def default_local_init_op():
        """TF1's ``Scaffold.default_local_init_op()``: local variables and tables."""
        return default_local_init_op()

    def finalize(self):
        """Creates the missing ops and finalizes the default graph (idempotent)."""
        if self._finalized:
            return self
        graph = get_default_graph()
        if self.init_op is None:
            self.init_op = _get_or_default(GraphKeys.INIT_OP,
                                           state_ops.global_variables_initializer)
        if self.ready_op is None:
            self.ready_op = _get_or_default(GraphKeys.READY_OP,
                                            state_ops.report_uninitialized_variables)
        if self.local_init_op is None:
            self.local_init_op = _get_or_default(GraphKeys.LOCAL_INIT_OP,
                                                 default_local_init_op)
        if self.summary_op is None:
            self.summary_op = _get_or_default(SUMMARY_OP, merge_all)
        if self.saver is None:
            self.saver = _get_or_default(GraphKeys.SAVERS, lambda: Saver(allow_empty=True))
        graph.finalize()
        logging.info("Graph was finalized.")
        self._finalized = True
        return self


def default_local_init_op():
    """Initializes the local variables and the lookup tables (``TABLE_INITIALIZERS``), as
    TF's default ``local_init_op``."""
    tables = get_default_graph().get_collection(GraphKeys.TABLE_INITIALIZERS)
    return group(state_ops.local_variables_initializer(), *tables, name="local_init_op")


class ChiefSessionCreator:
    """Creates a session that restores the latest checkpoint or initializes the model.

    Args:
        scaffold: a ``Scaffold`` (default: a new one).
        master: accepted for TF1 compatibility (sessions are in process).
        config: a ``ConfigProto`` for the ``Session``.
        checkpoint_dir: restore its latest checkpoint when there is one.
        checkpoint_filename_with_path: restore exactly this checkpoint.
    """

    def __init__(self, scaffold=None, master="", config=None, checkpoint_dir=None,
                 checkpoint_filename_with_path=None):
        if scaffold is not None and not isinstance(scaffold, Scaffold):
            raise TypeError(f"scaffold must be a Scaffold, got {type(scaffold).__name__}")
        self._scaffold = scaffold or Scaffold()
        self._master = master
        self._config = config
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_filename_with_path = checkpoint_filename_with_path
        # evaluate/predict: checkpoint_filename_with_path is the newest checkpoint of this
        # directory, chosen by its index only; if its restore finds damage, the newest
        # intact one of the directory is restored instead (``restored_path`` says which)
        self.fallback_dir = None
        self.restored_path = None

    @property
    def scaffold(self):
        return self._scaffold

    def create_session(self):
        """Returns a ready ``Session`` (see the module docstring for the steps)."""
        scaffold = self._scaffold.finalize()
        sess = Session(self._master, graph=get_default_graph(), config=self._config)
        try:
            ckpt = self._checkpoint_filename_with_path
            if ckpt and self.fallback_dir:
                ckpt = recovery.restore_newest(
                    self.fallback_dir, lambda prefix: scaffold.saver.restore(sess, prefix)).path
            elif ckpt:
                scaffold.saver.restore(sess, ckpt)
            elif ckpt is None and self._checkpoint_dir:
                # the newest intact checkpoint, restored as it is checked (one read); a
                # damaged latest one is skipped with a warning, and damaged files with
                # none intact raise (never a silent restart)
                found = recovery.restore_newest(
                    self._checkpoint_dir, lambda prefix: scaffold.saver.restore(sess, prefix))
                ckpt = found.path
                if ckpt:
                    recovery.remove_orphans(self._checkpoint_dir, ckpt)
                    if hasattr(scaffold.saver, "recover_last_checkpoints"):
                        # max_to_keep also counts the checkpoints of earlier runs
                        scaffold.saver.recover_last_checkpoints(found.kept)
                    if hasattr(scaffold.saver, "restore_iterator_state"):
                        # training resumes: iterators continue where it was saved
                        scaffold.saver.restore_iterator_state(sess, ckpt)
            self.restored_path = ckpt or None
            if not ckpt:
                sess.run(scaffold.init_op, feed_dict=scaffold.init_feed_dict)
                if scaffold.init_fn is not None:
                    scaffold.init_fn(sess)
            if scaffold.local_init_op is not None:
                logging.info("Running local_init_op.")
                sess.run(scaffold.local_init_op)
                logging.info("Done running local_init_op.")
            _check_ready(sess, scaffold, ckpt)
        except BaseException:
            sess.close()
            raise
        return sess


class WorkerSessionCreator(ChiefSessionCreator):
    """A non-chief worker's session creator (in process: the same steps as the chief's)."""


def _check_ready(sess, scaffold, ckpt):
    if scaffold.ready_op is None:
        return
    not_ready = np.asarray(sess.run(scaffold.ready_op))
    if not_ready.size:
        names = ", ".join(n.decode() if isinstance(n, bytes) else str(n)
                          for n in not_ready.ravel())
        source = f"restoring {ckpt}" if ckpt else "running init_op"
        raise RuntimeError(f"Init operations did not make model ready: after {source}, these "
                           f"variables are still uninitialized: {names}")
