"""``tf.estimator.experimental``'s early-stopping hooks.

``make_early_stopping_hook(estimator, should_stop_fn, run_every_secs=60,
run_every_steps=None)`` is a training hook that calls ``should_stop_fn()`` on its timer and
stops training when it returns True. The ``stop_if_*`` helpers build ``should_stop_fn``
from the evaluation summaries in ``eval_dir`` (default ``estimator.eval_dir()``), which
``train_and_evaluate`` writes as it evaluates::

    no_decrease: the metric's best value (over evaluations at step >= min_steps, in step
                 order) was reached at step b, and an evaluation at step s has
                 s - b >= max_steps_without_decrease          -> stop
    higher / lower: some evaluation at step >= min_steps has the metric > / < threshold
"""
import glob
import operator
import os

from estimator_npu.hooks import SecondOrStepTimer, SessionRunHook
from estimator_npu.train.summary_writer import summary_iterator
from estimator_npu.utils import logging


def read_eval_metrics(eval_dir):
    """``{step: {tag: value}}`` of the scalar summaries in ``eval_dir``'s event files,
    sorted by step."""
    out = {}
    for path in sorted(glob.glob(os.path.join(eval_dir, "*.tfevents.*"))):
        for event in summary_iterator(path, partial_tail_ok=True):
            for value in event.summary.value:
                if value.HasField("simple_value"):
                    out.setdefault(event.step, {})[value.tag] = value.simple_value
    return dict(sorted(out.items()))


class _StopOnPredicateHook(SessionRunHook):
    def __init__(self, should_stop_fn, run_every_secs=60, run_every_steps=None):
        if not callable(should_stop_fn):
            raise TypeError(f"`should_stop_fn` must be callable, got {should_stop_fn!r}")
        self._should_stop_fn = should_stop_fn
        self._timer = SecondOrStepTimer(every_secs=None if run_every_steps else run_every_secs,
                                        every_steps=run_every_steps)

    def begin(self):
        from estimator_npu.train.training_util import get_global_step
        self._global_step = get_global_step()

    def before_run(self, run_context):
        from estimator_npu.hooks import SessionRunArgs
        return SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values):
        step = int(run_values.results)
        if self._timer.should_trigger_for_step(step):
            self._timer.update_last_triggered_step(step)
            if self._should_stop_fn():
                logging.info("Requesting early stopping at global step %d", step)
                run_context.request_stop()


def make_early_stopping_hook(estimator, should_stop_fn, run_every_secs=60,
                             run_every_steps=None):
    """A hook that stops training when ``should_stop_fn()`` returns True."""
    return _StopOnPredicateHook(should_stop_fn, run_every_secs, run_every_steps)


def _metric_hook(estimator, metric_name, eval_dir, min_steps, run_every_secs, run_every_steps,
                 should_stop):
    eval_dir = eval_dir or estimator.eval_dir()

    def should_stop_fn():
        metrics = read_eval_metrics(eval_dir)
        return should_stop([(step, values[metric_name]) for step, values in metrics.items()
                            if step >= min_steps and metric_name in values])
    return make_early_stopping_hook(estimator, should_stop_fn, run_every_secs,
                                    run_every_steps)


def _no_improvement(metric_name, max_steps, better):
    def should_stop(history):
        best_value = best_step = None
        for step, value in history:
            if best_value is None or better(value, best_value):
                best_value, best_step = value, step
            if step - best_step >= max_steps:
                logging.info('No improvement in metric "%s" for %s steps, which is greater '
                             "than or equal to max steps (%s) configured for early stopping.",
                             metric_name, step - best_step, max_steps)
                return True
        return False
    return should_stop


def _threshold(metric_name, threshold, beyond):
    def should_stop(history):
        for step, value in history:
            if beyond(value, threshold):
                logging.info('At step %s, metric "%s" has value %s which passes the threshold '
                             "%s configured for early stopping.", step, metric_name, value,
                             threshold)
                return True
        return False
    return should_stop


def stop_if_no_decrease_hook(estimator, metric_name, max_steps_without_decrease,
                             eval_dir=None, min_steps=0, run_every_secs=60,
                             run_every_steps=None):
    """Stops when ``metric_name`` has not decreased for ``max_steps_without_decrease``."""
    return _metric_hook(estimator, metric_name, eval_dir, min_steps, run_every_secs,
                        run_every_steps, _no_improvement(metric_name,
                                                         max_steps_without_decrease,
                                                         operator.lt))


def stop_if_no_increase_hook(estimator, metric_name, max_steps_without_increase,
                             eval_dir=None, min_steps=0, run_every_secs=60,
                             run_every_steps=None):
    """Stops when ``metric_name`` has not increased for ``max_steps_without_increase``."""
    return _metric_hook(estimator, metric_name, eval_dir, min_steps, run_every_secs,
                        run_every_steps, _no_improvement(metric_name,
                                                         max_steps_without_increase,
                                                         operator.gt))


def stop_if_higher_hook(estimator, metric_name, threshold, eval_dir=None, min_steps=0,
                        run_every_secs=60, run_every_steps=None):
    """Stops once an evaluation has ``metric_name > threshold``."""
    return _metric_hook(estimator, metric_name, eval_dir, min_steps, run_every_secs,
                        run_every_steps, _threshold(metric_name, threshold, operator.gt))


def stop_if_lower_hook(estimator, metric_name, threshold, eval_dir=None, min_steps=0,
                       run_every_secs=60, run_every_steps=None):
    """Stops once an evaluation has ``metric_name < threshold``."""
    return _metric_hook(estimator, metric_name, eval_dir, min_steps, run_every_secs,
                        run_every_steps, _threshold(metric_name, threshold, operator.lt))
