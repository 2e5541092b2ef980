"""``Supervisor``: TF1's minimal training supervisor.

Construction fills in the defaults (``init_op`` = ``global_variables_initializer()``,
``local_init_op``, ``ready_op``, a ``Saver`` when the graph has variables, ``summary_op``
= ``merge_all()``, the global step) and then **finalizes the graph**, so any later graph
change raises ``RuntimeError``::

    sv = tf.train.Supervisor(logdir=model_dir, init_op=init)   # graph is now frozen
    with sv.managed_session() as sess:
        while not sv.should_stop():
            sess.run(train_op)

Minimal by design: no summary or checkpoint threads; the only threads are the graph's
queue runners (``QUEUE_RUNNERS``), which ``prepare_or_wait_for_session`` starts under the
supervisor's coordinator and ``stop`` joins, as TF does. ``prepare_or_wait_for_session`` restores the
latest checkpoint of ``logdir`` or runs ``init_op``; ``managed_session`` saves a final
checkpoint into ``logdir`` (chief only) when it exits normally or on end of input.
"""
import contextlib
import os

from estimator_npu import errors
from estimator_npu.engine.graph import GraphKeys, get_default_graph
from estimator_npu.engine.ops.state_ops import (global_variables, local_variables,
                                                local_variables_initializer,
                                                report_uninitialized_variables,
                                                variables_initializer)
from estimator_npu.train import recovery
from estimator_npu.train.coordinator import Coordinator
from estimator_npu.train.saver import Saver
from estimator_npu.train.summary_ops import merge_all
from estimator_npu.train.training_util import get_global_step
from estimator_npu.train.training_util import global_step as _step_value
from estimator_npu.utils import logging


class Supervisor:
    """Initializes or restores a session and coordinates stopping (see module doc)."""

    USE_DEFAULT = 0

    def __init__(self, graph=None, ready_op=USE_DEFAULT, ready_for_local_init_op=USE_DEFAULT,
                 is_chief=True, init_op=USE_DEFAULT, init_feed_dict=None,
                 local_init_op=USE_DEFAULT, logdir=None, summary_op=USE_DEFAULT,
                 saver=USE_DEFAULT, global_step=USE_DEFAULT, save_summaries_secs=120,
                 save_model_secs=600, recovery_wait_secs=30, stop_grace_secs=120,
                 checkpoint_basename="model.ckpt", session_manager=None,
                 summary_writer=USE_DEFAULT, init_fn=None, local_init_run_options=None):
        self._graph = graph if graph is not None else get_default_graph()
        g = self._graph
        d = self.USE_DEFAULT
        with g.as_default():
            if init_op is d:
                init_op = (variables_initializer(global_variables(), name="init")
                           if not g.finalized else None)
            if local_init_op is d:
                local_init_op = (local_variables_initializer()
                                 if local_variables() and not g.finalized else None)
            if ready_op is d:
                ready_op = report_uninitialized_variables() if not g.finalized else None
            if saver is d:
                savers = g.get_collection(GraphKeys.SAVERS)
                saver = savers[0] if savers else None
                if saver is None and global_variables():
                    saver = Saver()
                    if not g.finalized:
                        g.add_to_collection(GraphKeys.SAVERS, saver)
            if summary_op is d:
                summary_op = merge_all() if not g.finalized else None
            if global_step is d:
                global_step = get_global_step(g)
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict
        self._local_init_op = local_init_op
        self._ready_op = ready_op
        self._saver = saver
        self._summary_op = summary_op
        self._global_step = global_step
        self._is_chief = bool(is_chief)
        self._logdir = os.fspath(logdir) if logdir else None
        self._save_path = (os.path.join(self._logdir, checkpoint_basename)
                           if self._logdir else None)
        self._init_fn = init_fn
        self._summary_writer = summary_writer
        self._coord = Coordinator()
        self._stop_grace_secs = stop_grace_secs
        g.finalize()

    # ------------------------------------------------------------------ properties
    @property
    def coord(self):
        return self._coord

    @property
    def init_op(self):
        return self._init_op

    @property
    def init_feed_dict(self):
        return self._init_feed_dict

    @property
    def ready_op(self):
        return self._ready_op

    @property
    def saver(self):
        return self._saver

    @property
    def summary_op(self):
        return self._summary_op

    @property
    def global_step(self):
        return self._global_step

    @property
    def is_chief(self):
        return self._is_chief

    @property
    def save_path(self):
        return self._save_path

    @property
    def summary_writer(self):
        """The ``FileWriter`` of ``logdir`` (created on first use; ``None`` without one)."""
        if self._summary_writer is self.USE_DEFAULT:
            if self._logdir and self._is_chief:
                from estimator_npu.train.summary_writer import FileWriter
                self._summary_writer = FileWriter(self._logdir, graph=self._graph)
            else:
                self._summary_writer = None
        return self._summary_writer

    # ------------------------------------------------------------------ sessions
    def prepare_or_wait_for_session(self, master="", config=None, wait_for_checkpoint=False,
                                    max_wait_secs=7200, start_standard_services=True):
        """A new session: restored from the latest checkpoint of ``logdir`` when there is
        one, else initialized with ``init_op``/``init_fn``; then ``local_init_op``.

        Raises:
            RuntimeError: variables are still uninitialized afterwards (names them).
        """
        from estimator_npu.engine.session import Session
        sess = Session(master, graph=self._graph, config=config)
        ckpt = recovery.latest_intact_checkpoint(self._logdir) if self._logdir else None
        if ckpt is not None and self._saver is not None:
            self._saver.restore(sess, ckpt)
        else:
            if self._init_op is not None:
                sess.run(self._init_op, feed_dict=self._init_feed_dict)
            if self._init_fn is not None:
                self._init_fn(sess)
        if self._local_init_op is not None:
            sess.run(self._local_init_op)
        if self._ready_op is not None:
            missing = sess.run(self._ready_op)
            if len(missing):
                sess.close()
                raise RuntimeError("Model not ready after initialization; uninitialized "
                                   f"variables: {', '.join(str(m) for m in missing)}")
        if start_standard_services and self._is_chief and self._logdir:
            self.summary_writer  # noqa: B018 - creates the writer, which writes the graph
        self.start_queue_runners(sess)
        return sess

    def start_queue_runners(self, sess, queue_runners=None):
        """Starts the threads of ``queue_runners`` (default: the graph's
        ``QUEUE_RUNNERS`` collection) as daemons under this supervisor's coordinator, as
        ``prepare_or_wait_for_session`` does; returns them (``stop`` joins them)."""
        if queue_runners is None:
            queue_runners = self._graph.get_collection(GraphKeys.QUEUE_RUNNERS)
        threads = []
        for qr in queue_runners:
            threads.extend(qr.create_threads(sess, coord=self._coord, daemon=True,
                                             start=True))
        return threads

    @contextlib.contextmanager
    def managed_session(self, master="", config=None, start_standard_services=True,
                        close_summary_writer=True):
        """Context manager yielding a prepared session; stops and closes it on exit.

        ``errors.OutOfRangeError`` raised in the body ends training cleanly; other
        exceptions are re-raised after cleanup.
        """
        sess = self.prepare_or_wait_for_session(master, config,
                                                start_standard_services=start_standard_services)
        failed = False
        try:
            yield sess
        except Exception as e:  # noqa: BLE001 - re-raised by stop() through the coordinator
            failed = not isinstance(e, errors.OutOfRangeError)
            self._coord.request_stop(e)
        finally:
            try:
                if not failed:
                    self._final_save(sess)
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                sess.close()

    def _final_save(self, sess):
        if self._is_chief and self._saver is not None and self._save_path:
            os.makedirs(self._logdir, exist_ok=True)
            step = (_step_value(sess, self._global_step)
                    if self._global_step is not None else None)
            path = self._saver.save(sess, self._save_path, global_step=step)
            logging.info("Saved final checkpoint %s", path)

    def summary_computed(self, sess, summary, global_step=None):
        """Writes ``summary`` at ``global_step`` (default: the current global step)."""
        if self.summary_writer is None:
            raise RuntimeError("Writing a summary requires a summary writer (give logdir).")
        if global_step is None and self._global_step is not None:
            global_step = _step_value(sess, self._global_step)
        self.summary_writer.add_summary(summary, global_step)

    # ------------------------------------------------------------------ stopping
    def should_stop(self):
        return self._coord.should_stop()

    def request_stop(self, ex=None):
        self._coord.request_stop(ex=ex)

    def stop(self, threads=None, close_summary_writer=True, ignore_live_threads=False):
        """Requests a stop, joins ``threads``, closes the summary writer; re-raises an
        exception reported through ``request_stop``."""
        self._coord.request_stop()
        try:
            self._coord.join(threads, stop_grace_period_secs=self._stop_grace_secs,
                             ignore_live_threads=ignore_live_threads)
        finally:
            w = self._summary_writer
            if close_summary_writer and w not in (None, self.USE_DEFAULT):
                w.close()

    def loop(self, timer_interval_secs, target, args=None, kwargs=None):
        """Starts a ``LooperThread`` under the supervisor's coordinator calling ``target``
        every ``timer_interval_secs``; ``stop`` joins it."""
        return self._coord.loop(timer_interval_secs, target, args, kwargs)


__all__ = ["Supervisor"]
