"""``tf.estimator.train_and_evaluate`` with ``TrainSpec`` / ``EvalSpec``, local semantics.

As TF does in a single process (no cluster)::

    estimator.train(train_spec.input_fn, max_steps=train_spec.max_steps,
                    hooks=train_spec.hooks, saving_listeners=[evaluate-after-save])
    evaluate-after-save, after each checkpoint:
        the first checkpoint (the untrained model) is skipped;
        then evaluate when at least throttle_secs passed since the last evaluation,
        else log "Skip the current checkpoint eval due to throttle secs";
    at the end of training: evaluate the last checkpoint if it was not evaluated
    returns (metrics of the last evaluation, export results)

So evaluations follow the checkpoint schedule (``RunConfig.save_checkpoints_steps`` /
``_secs``) thinned by ``throttle_secs``. After each evaluation every exporter of the
EvalSpec runs (``estimator.export``: ``LatestExporter``, ``FinalExporter``, ``BestExporter``)
into ``<model_dir>/export/<exporter name>``; the evaluation of a step at or past the
TrainSpec's ``max_steps`` is the final one, as in TF.
"""
import collections
import math
import numbers
import os

from estimator_npu.estimator.estimator import Estimator
from estimator_npu.hooks import CheckpointSaverListener, SecondOrStepTimer, SessionRunHook
from estimator_npu.train import checkpoint_io
from estimator_npu.utils import logging


def _check_hooks(hooks):
    hooks = tuple(hooks or ())
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError(f"All hooks must be SessionRunHook instances, given: {hook!r}")
    return hooks


def _check_callable(name, fn):
    if not callable(fn):
        raise TypeError(f"`input_fn` must be callable, given: {fn!r} ({name})")
    return fn


class TrainSpec(collections.namedtuple("TrainSpec",
                                       ["input_fn", "max_steps", "hooks", "saving_listeners"])):
    """``TrainSpec(input_fn, max_steps=None, hooks=None, saving_listeners=None)``.

    Raises:
        TypeError: ``input_fn`` not callable, a hook not a ``SessionRunHook``.
        ValueError: ``max_steps`` not a positive number (a float is rounded up, as TF stops
            at the first step >= it).
    """

    __slots__ = ()

    def __new__(cls, input_fn, max_steps=None, hooks=None, saving_listeners=None):
        _check_callable("TrainSpec", input_fn)
        if max_steps is not None:  # TF takes a float (num_examples / batch_size) too
            if isinstance(max_steps, bool) or not isinstance(max_steps, numbers.Real) \
                    or max_steps <= 0:
                raise ValueError(f"Must specify max_steps > 0, given: {max_steps!r}")
            max_steps = int(math.ceil(max_steps))
        listeners = tuple(saving_listeners or ())
        for listener in listeners:
            if not isinstance(listener, CheckpointSaverListener):
                raise TypeError("All saving_listeners must be CheckpointSaverListener "
                                f"instances, given: {listener!r}")
        return super().__new__(cls, input_fn, max_steps, _check_hooks(hooks), listeners)


class EvalSpec(collections.namedtuple("EvalSpec", ["input_fn", "steps", "name", "hooks",
                                                   "exporters", "start_delay_secs",
                                                   "throttle_secs"])):
    """``EvalSpec(input_fn, steps=100, name=None, hooks=None, exporters=None,
    start_delay_secs=120, throttle_secs=600)``.

    Raises:
        TypeError: ``input_fn`` not callable, a hook not a ``SessionRunHook``, ``name``
            not a string.
        ValueError: ``steps`` not positive, negative ``start_delay_secs`` /
            ``throttle_secs``.
    """

    __slots__ = ()

    def __new__(cls, input_fn, steps=100, name=None, hooks=None, exporters=None,
                start_delay_secs=120, throttle_secs=600):
        _check_callable("EvalSpec", input_fn)
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps!r}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"`name` must be string, given: {name!r}")
        if start_delay_secs < 0:
            raise ValueError(f"Must specify start_delay_secs >= 0, given: {start_delay_secs}")
        if throttle_secs < 0:
            raise ValueError(f"Must specify throttle_secs >= 0, given: {throttle_secs}")
        if exporters is None:
            exporters = ()
        elif not isinstance(exporters, (list, tuple)):
            exporters = (exporters,)
        return super().__new__(cls, input_fn, steps, name, _check_hooks(hooks),
                               tuple(exporters), start_delay_secs, throttle_secs)


class _EvaluateAfterSave(CheckpointSaverListener):
    """Evaluates after each checkpoint, at most once per ``throttle_secs``."""

    def __init__(self, estimator, eval_spec, max_steps=None):
        self._estimator = estimator
        self._spec = eval_spec
        self._max_steps = max_steps
        self._last_checkpoint = None
        self.metrics = None
        self.export_results = None      # as TF: None until an evaluation exported

    def begin(self):
        self._timer = SecondOrStepTimer(every_secs=self._spec.throttle_secs or None,
                                        every_steps=None if self._spec.throttle_secs else 1)
        self._is_first_run = True

    def after_save(self, session, global_step_value):
        if self._is_first_run:
            self._is_first_run = False
            return
        if self._timer.should_trigger_for_step(global_step_value):
            self._evaluate(global_step_value)
        else:
            logging.info("Skip the current checkpoint eval due to throttle secs (%s secs).",
                         self._spec.throttle_secs)

    def end(self, session, global_step_value):
        if global_step_value != self._timer.last_triggered_step():
            self._evaluate(global_step_value)

    def _evaluate(self, global_step_value):
        self._timer.update_last_triggered_step(global_step_value)
        latest = checkpoint_io.latest_checkpoint(self._estimator.model_dir)
        if latest is None or latest == self._last_checkpoint:
            raise RuntimeError("There was no new checkpoint after the training. Eval status: "
                               + ("missing checkpoint" if latest is None
                                  else "no new checkpoint"))
        self._last_checkpoint = latest
        self.metrics = self._estimator.evaluate(self._spec.input_fn, steps=self._spec.steps,
                                                hooks=self._spec.hooks, name=self._spec.name,
                                                checkpoint_path=latest)
        final = bool(self._max_steps) and self.metrics.get("global_step", 0) >= self._max_steps
        self.export_results = []
        for exporter in self._spec.exporters:
            path = os.path.join(self._estimator.model_dir, "export", exporter.name)
            self.export_results.append(exporter.export(self._estimator, path, latest,
                                                       self.metrics, final))


def train_and_evaluate(estimator, train_spec, eval_spec):
    """Trains ``estimator`` and evaluates it after its checkpoints (module docstring).

    Returns:
        ``(metrics, export_results)``: the dict of the last evaluation and one entry per
        exporter (both ``None`` if there was no evaluation, as when ``max_steps`` was
        already reached).

    Raises:
        TypeError: ``estimator`` not an ``Estimator``, or the specs of the wrong type.
    """
    if not isinstance(estimator, Estimator):
        raise TypeError("`estimator` must have type `tf.estimator.Estimator`. Got: "
                        f"{type(estimator)}")
    if not isinstance(train_spec, TrainSpec):
        raise TypeError(f"`train_spec` must have type `tf.estimator.TrainSpec`. Got: "
                        f"{type(train_spec)}")
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError(f"`eval_spec` must have type `tf.estimator.EvalSpec`. Got: "
                        f"{type(eval_spec)}")
    config = estimator.config
    logging.info("Running training and evaluation locally (non-distributed).")
    logging.info("Start train and evaluate loop. The evaluate will happen after every "
                 "checkpoint. Checkpoint frequency is determined based on RunConfig "
                 "arguments: save_checkpoints_steps %s or save_checkpoints_secs %s.",
                 config.save_checkpoints_steps, config.save_checkpoints_secs)
    listener = _EvaluateAfterSave(estimator, eval_spec, train_spec.max_steps)
    estimator.train(train_spec.input_fn, max_steps=train_spec.max_steps,
                    hooks=list(train_spec.hooks),
                    saving_listeners=list(train_spec.saving_listeners) + [listener])
    return listener.metrics, listener.export_results
