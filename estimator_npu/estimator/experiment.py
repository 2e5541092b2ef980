"""``tf.contrib.learn.Experiment`` and ``learn_runner.run``: TF 1.x's older driver of an
``Estimator``, for a single process, as TF 1.x's contrib.learn ran a ``tf.estimator``
Estimator::

    def experiment_fn(run_config, hparams):
        est = tf.estimator.Estimator(model_fn, config=run_config, params=hparams)
        return tf.contrib.learn.Experiment(est, train_input_fn, eval_input_fn,
                                           train_steps=1000, eval_steps=10)

    learn_runner.run(experiment_fn, run_config=tf.contrib.learn.RunConfig(model_dir=d),
                     hparams=tf.contrib.training.HParams(lr=0.1))
        # schedule: default 'train_and_evaluate' (no cluster); else the name of an
        # Experiment method ('train', 'evaluate', 'local_run', 'continuous_eval',
        # 'continuous_train_and_eval', 'test', ...), called with no arguments

The schedules (TF's semantics; times are wall-clock seconds):

* ``train(delay_secs=None)``: ``estimator.train(max_steps=train_steps)`` (a worker with
  ``task_id`` k would first wait ``min(60, 5 k)`` seconds).
* ``evaluate(delay_secs=None)``: waits ``eval_delay_secs`` (default 120), then evaluates
  ``eval_steps`` batches under the name ``one_pass`` (``model_dir/eval_one_pass``).
* ``train_and_evaluate()``: trains with a validation hook that, every
  ``min_eval_frequency`` steps (default 1; 0: never) and at most once per
  ``check_interval_secs`` (default 5), evaluates the latest checkpoint if it is new
  (logging ``Validation (step N): ...``); then evaluates once more at the end and returns
  ``(metrics, export results)``. Evaluations go to ``model_dir/eval``.
* ``local_run()``: ``train_and_evaluate`` with ``min_eval_frequency = local_eval_frequency``.
* ``continuous_train_and_eval()``: ``train(steps=train_steps_per_iteration)`` (default:
  a tenth of ``train_steps``, else 1000) then evaluate, until ``train_steps`` is reached.
* ``continuous_eval()``: evaluates each new checkpoint, at most once per
  ``continuous_eval_throttle_secs``, until a checkpoint at ``train_steps`` was evaluated.
* ``test()``: one training step and one evaluation batch.

Export strategies and parameter servers (``run_std_server``) are not implemented.
"""
import inspect
import time

from estimator_npu.compat.missing import NotImplementedName
from estimator_npu.estimator.estimator import Estimator
from estimator_npu.estimator.learn_run_config import LearnRunConfig
from estimator_npu.hooks import SessionRunHook
from estimator_npu.train import checkpoint_io
from estimator_npu.utils import logging
from estimator_npu.utils.hparams import HParams


class ValidationHook(SessionRunHook):
    """Evaluates the latest checkpoint while training (contrib.learn's
    ``ValidationMonitor``): after a step at least ``every_n_steps`` past the last check
    and ``check_interval_secs`` after it, if the latest checkpoint is one it has not
    evaluated yet."""

    def __init__(self, estimator, input_fn, eval_steps, hooks=None, every_n_steps=1,
                 check_interval_secs=5, name=None):
        self._estimator = estimator
        self._input_fn = input_fn
        self._eval_steps = eval_steps
        self._hooks = hooks
        self._every_n_steps = every_n_steps
        self._check_interval_secs = check_interval_secs
        self._name = name
        self._last_step = None
        self._last_check_time = None
        self._latest_path = None
        self.metrics = None

    def after_run(self, run_context, run_values):
        step = run_values.global_step
        if step is None or (self._last_step is not None
                            and step < self._last_step + self._every_n_steps):
            return
        self._last_step = step
        now = time.time()
        if (self._check_interval_secs is not None and self._last_check_time is not None
                and now - self._last_check_time <= self._check_interval_secs):
            return
        self._last_check_time = now
        latest = checkpoint_io.latest_checkpoint(self._estimator.model_dir)
        if latest is None or latest == self._latest_path:
            return
        self._latest_path = latest
        self.metrics = self._estimator.evaluate(self._input_fn, steps=self._eval_steps,
                                                hooks=self._hooks, name=self._name,
                                                checkpoint_path=latest)
        logging.info("Validation (step %d): %s", step,
                     ", ".join(f"{k} = {v!s}" for k, v in self.metrics.items()))


def _check_positive_or_none(name, value):
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                              or value < 0):
        raise ValueError(f"`{name}` must be a non-negative integer or None, got {value!r}")


class Experiment:
    """Trains and evaluates an ``Estimator`` by a named schedule (module docstring).

    Raises:
        ValueError: ``estimator`` is not an ``Estimator``; ``eval_metrics`` given (a
            ``tf.estimator`` Estimator takes its metrics from ``eval_metric_ops``);
            ``export_strategies`` given; a bad step count.
    """

    def __init__(self, estimator, train_input_fn, eval_input_fn, eval_metrics=None,
                 train_steps=None, eval_steps=100, train_monitors=None, eval_hooks=None,
                 local_eval_frequency=None, eval_delay_secs=120,
                 continuous_eval_throttle_secs=60, min_eval_frequency=None,
                 delay_workers_by_global_step=False, export_strategies=None,
                 train_steps_per_iteration=None, checkpoint_and_export=False,
                 saving_listeners=None, check_interval_secs=5):
        if not isinstance(estimator, Estimator):
            raise ValueError("`estimator` must be a `tf.estimator.Estimator`, got "
                             f"{type(estimator).__name__}")
        if eval_metrics is not None:
            raise ValueError("`eval_metrics` must be `None` with `tf.estimator.Estimator`. "
                             "Use `eval_metric_ops` in `tf.estimator.EstimatorSpec` instead.")
        if export_strategies:
            raise NotImplementedName("tf.contrib.learn.Experiment(export_strategies=...)")
        for name, value in (("train_steps", train_steps), ("eval_steps", eval_steps),
                            ("min_eval_frequency", min_eval_frequency),
                            ("local_eval_frequency", local_eval_frequency)):
            _check_positive_or_none(name, value)
        if train_steps_per_iteration is not None and not isinstance(
                train_steps_per_iteration, int):
            raise ValueError("`train_steps_per_iteration` must be an integer.")
        self._estimator = estimator
        self._train_input_fn = train_input_fn
        self._eval_input_fn = eval_input_fn
        self._train_steps = train_steps
        self._eval_steps = eval_steps
        self._train_monitors = list(train_monitors or [])
        self._eval_hooks = list(eval_hooks or [])
        self._local_eval_frequency = local_eval_frequency
        self._eval_delay_secs = eval_delay_secs
        self._continuous_eval_throttle_secs = continuous_eval_throttle_secs
        self._min_eval_frequency = 1 if min_eval_frequency is None else min_eval_frequency
        self._train_steps_per_iteration = train_steps_per_iteration
        self._checkpoint_and_export = checkpoint_and_export
        self._saving_listeners = saving_listeners
        self._check_interval_secs = check_interval_secs

    @property
    def estimator(self):
        return self._estimator

    @property
    def eval_metrics(self):
        return None

    @property
    def train_steps(self):
        return self._train_steps

    @property
    def eval_steps(self):
        return self._eval_steps

    def extend_train_hooks(self, additional_hooks):
        """Adds hooks to every later training call."""
        self._train_monitors.extend(additional_hooks)

    def train(self, delay_secs=None):
        """Trains to ``train_steps`` (forever if ``None``); returns the estimator."""
        return self._train(delay_secs, self._train_monitors)

    def _train(self, delay_secs, hooks, steps=None):
        if delay_secs is None:
            delay_secs = min(60, (self._estimator.config.task_id or 0) * 5)
        if delay_secs > 0:
            logging.info("Waiting %d secs before starting training.", delay_secs)
            time.sleep(delay_secs)
        return self._estimator.train(
            self._train_input_fn, steps=steps,
            max_steps=None if steps is not None else self._train_steps, hooks=list(hooks),
            saving_listeners=self._saving_listeners)

    def evaluate(self, delay_secs=None, name=None):
        """Waits ``delay_secs`` (default ``eval_delay_secs``), then evaluates."""
        if delay_secs is None:
            delay_secs = self._eval_delay_secs
        if delay_secs:
            logging.info("Waiting %d secs before starting eval.", delay_secs)
            time.sleep(delay_secs)
        return self._evaluate(name or "one_pass")

    def _evaluate(self, name, checkpoint_path=None, steps=None):
        return self._estimator.evaluate(self._eval_input_fn,
                                        steps=self._eval_steps if steps is None else steps,
                                        hooks=list(self._eval_hooks), name=name,
                                        checkpoint_path=checkpoint_path)

    def train_and_evaluate(self):
        """Trains with validation every ``min_eval_frequency`` steps, then evaluates;
        returns ``(metrics, export results)``."""
        hooks = list(self._train_monitors)
        if self._checkpoint_and_export:
            raise NotImplementedName(
                "tf.contrib.learn.Experiment(checkpoint_and_export=True)")
        if self._min_eval_frequency:
            hooks.append(ValidationHook(
                self._estimator, self._eval_input_fn, self._eval_steps, self._eval_hooks,
                every_n_steps=self._min_eval_frequency,
                check_interval_secs=self._check_interval_secs))
        self._train(0, hooks)
        return self._evaluate(None), []

    def local_run(self):
        """``train_and_evaluate`` evaluating every ``local_eval_frequency`` steps."""
        saved = self._min_eval_frequency
        self._min_eval_frequency = self._local_eval_frequency
        try:
            return self.train_and_evaluate()
        finally:
            self._min_eval_frequency = saved

    def _has_training_stopped(self, metrics):
        step = (metrics or {}).get("global_step")
        return bool(step and self._train_steps and step >= self._train_steps)

    def continuous_train_and_eval(self, continuous_eval_predicate_fn=None):
        """Alternates ``train(train_steps_per_iteration)`` and an evaluation until
        ``train_steps`` (or until ``continuous_eval_predicate_fn(metrics)`` is false)."""
        predicate = _predicate(continuous_eval_predicate_fn)
        per_iteration = self._train_steps_per_iteration
        if per_iteration is None:
            per_iteration = 1000 if self._train_steps is None else int(self._train_steps / 10)
        metrics, latest = None, None
        while predicate is None or predicate(metrics, latest if metrics else None):
            if self._has_training_stopped(metrics):
                logging.info("Stop training model as max steps reached")
                break
            logging.info("Training model for %s steps", per_iteration)
            self._train(0, self._train_monitors, steps=per_iteration)
            logging.info("Evaluating model now.")
            latest = checkpoint_io.latest_checkpoint(self._estimator.model_dir)
            metrics = self._evaluate("one_pass", checkpoint_path=latest)
        return metrics, []

    def continuous_eval(self, delay_secs=None, throttle_delay_secs=None,
                        evaluate_checkpoint_only_once=True,
                        continuous_eval_predicate_fn=None, name="continuous"):
        """Evaluates each new checkpoint until one at ``train_steps`` was evaluated."""
        predicate = _predicate(continuous_eval_predicate_fn)
        delay = self._eval_delay_secs if delay_secs is None else delay_secs
        throttle = (self._continuous_eval_throttle_secs if throttle_delay_secs is None
                    else throttle_delay_secs)
        if delay:
            logging.info("Waiting %f secs before starting eval.", delay)
            time.sleep(delay)
        previous, metrics, last_warning = None, None, 0
        while predicate is None or predicate(metrics, previous if metrics else None):
            if self._has_training_stopped(metrics):
                logging.info("Exiting continuous eval, global_step=%s >= train_step=%s",
                             metrics["global_step"], self._train_steps)
                return
            start = time.time()
            latest = checkpoint_io.latest_checkpoint(self._estimator.model_dir)
            if latest is None or (evaluate_checkpoint_only_once and latest == previous):
                metrics = {}
                if time.time() - last_warning > 600:
                    logging.warning("Estimator is not fitted yet. Will start an evaluation "
                                    "when a checkpoint is ready." if latest is None else
                                    "No new checkpoint ready for evaluation.")
                    last_warning = time.time()
            else:
                metrics = self._evaluate(name, checkpoint_path=latest) or {}
                previous, last_warning = latest, 0
            wait = throttle - (time.time() - start)
            if wait > 0:
                logging.info("Waiting %f secs before starting next eval run.", wait)
                time.sleep(wait)

    def test(self):
        """One training step and a one-batch evaluation; returns its metrics."""
        self._train(0, self._train_monitors, steps=1)
        return self._evaluate("one_pass", steps=1)

    def run_std_server(self):
        raise NotImplementedName("tf.contrib.learn.Experiment.run_std_server")


def _predicate(fn):
    if fn is None:
        return None
    if not callable(fn):
        raise ValueError("`continuous_eval_predicate_fn` must be a callable, or None.")
    try:
        takes_path = "checkpoint_path" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        takes_path = False
    return fn if takes_path else (lambda metrics, checkpoint_path: fn(metrics))


def _schedule_task(experiment, schedule):
    task = getattr(experiment, schedule, None)
    valid = sorted(x for x in dir(experiment)
                   if not x.startswith("_") and callable(getattr(experiment, x)))
    if task is None:
        logging.error("Allowed values for this experiment are: %s", valid)
        raise ValueError(f"Schedule references non-existent task {schedule}")
    if not callable(task):
        logging.error("Allowed values for this experiment are: %s", valid)
        raise TypeError(f"Schedule references non-callable member {schedule}")
    return task


def run(experiment_fn, output_dir=None, schedule=None, run_config=None, hparams=None):
    """Builds the ``Experiment`` (``experiment_fn(run_config, hparams)``, or the older
    ``experiment_fn(output_dir=...)``) and runs its method named ``schedule`` (default
    ``'train_and_evaluate'``: a single process is never a cluster).

    Raises:
        ValueError: both or neither of ``output_dir`` / ``run_config``; ``run_config`` not
            a ``tf.contrib.learn.RunConfig`` or without ``model_dir``; ``hparams`` not an
            ``HParams``; an unknown schedule; the Estimator not given ``run_config``.
        TypeError: ``experiment_fn`` not callable or not returning an ``Experiment``.
    """
    if output_dir is not None and run_config is not None:
        raise ValueError("Cannot provide both `output_dir` and `run_config`")
    if output_dir is None and run_config is None:
        raise ValueError("Must set value for `output_dir` or `run_config`")
    if not callable(experiment_fn):
        raise TypeError(f'Experiment builder "{experiment_fn}" is not callable.')
    if run_config is not None:
        if not isinstance(run_config, LearnRunConfig):
            raise ValueError("`run_config` must be `tf.contrib.learn.RunConfig` instance")
        if not run_config.model_dir:
            raise ValueError("Must specify a model directory `model_dir` in `run_config`.")
        if hparams is not None and not isinstance(hparams, HParams):
            raise ValueError("`hparams` must be `HParams` instance")
        expected = run_config.uid()
        experiment = experiment_fn(run_config, hparams)
        _check_experiment(experiment)
        used = experiment.estimator.config
        if not hasattr(used, "uid"):
            raise RuntimeError("Pass `run_config` argument of the `experiment_fn` to the "
                               "Estimator in Experiment. It is likely a different "
                               "`RunConfig` is passed to `Estimator` or the `config` "
                               "constructor argument in `Estimator` is not set.")
        if used.uid() != expected:
            raise RuntimeError("`RunConfig` instance is expected to be used by the "
                               f"`Estimator` inside the `Experiment`. expected {expected}, "
                               f"but got {used.uid()}")
    else:
        if not output_dir:
            raise ValueError("Must specify an output directory")
        if hparams is not None:
            raise ValueError("Must set `hparams` as None for `experiment_fn` with "
                             "`output_dir`.")
        experiment = experiment_fn(output_dir=output_dir)
        _check_experiment(experiment)
    return _schedule_task(experiment, schedule or "train_and_evaluate")()


def _check_experiment(experiment):
    if not isinstance(experiment, Experiment):
        raise TypeError("Experiment builder did not return an Experiment instance, got "
                        f"{type(experiment)} instead.")


__all__ = ["Experiment", "ValidationHook", "run"]
