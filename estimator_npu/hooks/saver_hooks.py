"""Hooks that write to disk: ``CheckpointSaverHook`` (+ listeners) and ``SummarySaverHook``.

As TF's, the checkpoint hook saves when the session is created (step 0 of a fresh run;
a resumed run saves its restored step again), then whenever its timer fires (the first
step at least ``save_steps`` after the previous save), and at the end when the last step
is not saved yet — but not when the session closes on an error (the session calls no
``end`` then, as TF), so a failing step never leaves a checkpoint of a broken model. Each save is logged with TF's wording and
recorded as a ``CHECKPOINT`` session log in the events of the checkpoint directory::

    hook = CheckpointSaverHook(model_dir, save_steps=100, listeners=[MyListener()])
"""
import os

from estimator_npu.train import checkpoint_io
from estimator_npu.engine.graph import GraphKeys, get_default_graph
from estimator_npu.hooks import summary_io
from estimator_npu.hooks.basic_hooks import _make_timer, _read_step, step_after_run
from estimator_npu.hooks.session_run_hook import SessionRunArgs, SessionRunHook, as_step_tensor
from estimator_npu.utils import logging, validation


class CheckpointSaverListener:
    """Called around every save of a ``CheckpointSaverHook``.

    ``after_save`` may return True to ask training to stop.
    """

    def begin(self):
        pass

    def before_save(self, session, global_step_value):
        pass

    def after_save(self, session, global_step_value):
        pass

    def end(self, session, global_step_value):
        pass


def _write_graph_files(checkpoint_dir):
    """As TF's saver hook: ``graph.pbtxt`` in the checkpoint directory, and the graph and
    meta graph events in its summary writer."""
    from estimator_npu.train import meta_graph
    graph = get_default_graph()
    meta = meta_graph.meta_graph_def(graph)
    meta_graph.write_graph(graph.as_graph_def(add_shapes=True), checkpoint_dir, "graph.pbtxt")
    writer = summary_io.writer_for(checkpoint_dir)
    writer.add_graph(None, graph_def=meta.graph_def)
    writer.add_meta_graph(meta)


class CheckpointSaverHook(SessionRunHook):
    """Saves checkpoints every ``save_steps`` steps or ``save_secs`` seconds.

    Args:
        checkpoint_dir: where to save (``<dir>/<checkpoint_basename>-<step>``).
        save_secs, save_steps: exactly one of them (unless ``timer`` is given).
        saver: the ``Saver`` to use; default: the scaffold's, else the one ``Saver`` of
            the ``SAVERS`` collection.
        checkpoint_basename: the file prefix.
        scaffold: a ``Scaffold`` whose saver to use (not with ``saver``).
        listeners: ``CheckpointSaverListener``s.
        timer: a timer to use instead of ``save_secs``/``save_steps`` (a
            ``NeverTriggerTimer`` saves only at the start and the end).

    Raises:
        ValueError: both ``saver`` and ``scaffold``, or not exactly one interval.
    """

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None,
                 checkpoint_basename="model.ckpt", scaffold=None, listeners=None, *,
                 timer=None):
        validation.check_type("checkpoint_dir", checkpoint_dir, (str, os.PathLike))
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._checkpoint_dir = os.fspath(checkpoint_dir)
        self._basename = checkpoint_basename
        self._save_path = os.path.join(self._checkpoint_dir, checkpoint_basename)
        self._saver = saver
        self._scaffold = scaffold
        self._timer = _make_timer(timer, save_secs, save_steps, "save_secs and save_steps")
        self._listeners = list(listeners or [])

    @property
    def timer(self):
        return self._timer

    def begin(self):
        os.makedirs(self._checkpoint_dir, exist_ok=True)
        self._summary_writer = summary_io.writer_for(self._checkpoint_dir)
        self._step_tensor = as_step_tensor(get_default_graph(), "CheckpointSaverHook")
        self._timer.reset()
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session, coord):
        # TF saves here whatever the step: also a step just restored from model_dir.
        step = _read_step(session, self._step_tensor)
        _write_graph_files(self._checkpoint_dir)
        self._save(session, step)
        self._timer.update_last_triggered_step(step)

    def after_run(self, run_context, run_values):
        step = step_after_run(run_context, run_values, self._step_tensor)
        if self._timer.should_trigger_for_step(step):
            self._timer.update_last_triggered_step(step)
            if self._save(run_context.session, step):
                run_context.request_stop()

    def end(self, session):
        if session is None:
            return
        step = _read_step(session, self._step_tensor)
        if step != self._timer.last_triggered_step():
            self._save(session, step)
        for listener in self._listeners:
            listener.end(session, step)
        self._summary_writer.flush()

    def _save(self, session, step):
        """Saves; returns True when a listener asks to stop."""
        logging.info("Calling checkpoint listeners before saving checkpoint %d...", step)
        for listener in self._listeners:
            listener.before_save(session, step)
        logging.info("Saving checkpoints for %d into %s.", step, self._save_path)
        self._get_saver().save(session, self._save_path, global_step=step)
        summary_io.write_session_log(self._summary_writer, "CHECKPOINT", step,
                                     checkpoint_path=self._save_path)
        logging.info("Calling checkpoint listeners after saving checkpoint %d...", step)
        should_stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                logging.info("A CheckpointSaverListener requested that training be stopped. "
                             "listener: %s", listener)
                should_stop = True
        return should_stop

    def _get_saver(self):
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None and self._scaffold.saver is not None:
            return self._scaffold.saver
        savers = get_default_graph().get_collection(GraphKeys.SAVERS)
        if not savers:
            raise RuntimeError(f"No items in collection {GraphKeys.SAVERS}. Please add a saver "
                               "to the collection or provide a saver or scaffold.")
        if len(savers) > 1:
            raise RuntimeError(f"More than one item in collection {GraphKeys.SAVERS}. Please "
                               "indicate which one to use by passing it to the constructor.")
        self._saver = savers[0]
        return self._saver


class SummarySaverHook(SessionRunHook):
    """Writes the summaries of ``summary_op`` (or the scaffold's) every N steps or secs.

    Args:
        save_steps, save_secs: exactly one of them (unless ``timer`` is given).
        output_dir: where to write events (or give ``summary_writer``).
        summary_writer: a ``FileWriter``.
        scaffold: a ``Scaffold`` whose ``summary_op`` to use; or
        summary_op: a summary tensor or a list of them (exactly one of the two).
    """

    def __init__(self, save_steps=None, save_secs=None, output_dir=None, summary_writer=None,
                 scaffold=None, summary_op=None, *, timer=None):
        if (scaffold is None) == (summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._timer = _make_timer(timer, save_secs, save_steps, "save_secs and save_steps")
        self._output_dir = output_dir
        self._summary_writer = summary_writer
        self._scaffold = scaffold
        self._summary_op = summary_op

    @property
    def timer(self):
        return self._timer

    def begin(self):
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = summary_io.writer_for(self._output_dir)
        self._step_tensor = as_step_tensor(get_default_graph(), "SummarySaverHook")
        self._timer.reset()
        self._args = None

    def after_create_session(self, session, coord):
        self._step = _read_step(session, self._step_tensor)
        self._first = True
        op = self._summary_op if self._summary_op is not None else self._scaffold.summary_op
        if op is not None:
            self._args = SessionRunArgs(op if isinstance(op, list) else [op])

    def before_run(self, run_context):
        # TF asks for the summaries on the first call and whenever the call's expected end
        # step is due, then writes them at the true step after the call.
        step = self._step + run_context.iterations_per_loop
        self._requested = self._first or self._timer.should_trigger_for_step(step)
        return self._args if self._requested else None

    def after_run(self, run_context, run_values):
        self._step = step_after_run(run_context, run_values, self._step_tensor)
        if self._first:
            self._first = False
            if self._summary_writer is not None:
                summary_io.write_session_log(self._summary_writer, "START", self._step)
        if not self._requested:
            return
        self._timer.update_last_triggered_step(self._step)
        if self._summary_writer is not None and run_values.results is not None:
            for summary in run_values.results:
                self._summary_writer.add_summary(summary, self._step)

    def end(self, session):
        if self._summary_writer is not None:
            self._summary_writer.flush()
