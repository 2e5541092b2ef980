"""The evaluation loop of ``Estimator.evaluate`` and its summaries.

    restore checkpoint_path (or initialize when there is none)
    zero the metric variables (local_init_op)
    run every metric's update_op per batch, until `steps` batches or the end of input
    read every metric's value (FinalOpsHook), with the global step of the checkpoint
    write them as scalar summaries to model_dir/eval (or model_dir/eval_<name>)
"""
import os
import time

import numpy as np

from estimator_npu.engine.ops.core import group
from estimator_npu.estimator import metrics
from estimator_npu.estimator.model_fn import LOSS_METRIC_KEY
from estimator_npu.hooks import summary_io
from estimator_npu.hooks.basic_hooks import FinalOpsHook
from estimator_npu.hooks.evaluation_loop import log_eval_progress
from estimator_npu.hooks.monitored_session import MonitoredSession
from estimator_npu.hooks.progress import ProgressHook
from estimator_npu.hooks.scaffold import ChiefSessionCreator
from estimator_npu.hooks.session_run_hook import PRIORITY_EDITOR, SessionRunHook
from estimator_npu.utils import logging

GLOBAL_STEP_KEY = "global_step"


class StopAfterNEvalsHook(SessionRunHook):
    """Requests a stop after ``num_evals`` evaluation batches, logging TF's
    ``Evaluation [i/n]`` lines."""

    priority = PRIORITY_EDITOR

    def __init__(self, num_evals):
        self._num_evals = num_evals
        self._evals = 0

    def after_run(self, run_context, run_values):
        before = self._evals
        self._evals += run_values.steps_run
        log_eval_progress(self._evals, self._num_evals, before)
        if self._evals >= self._num_evals:
            run_context.request_stop()


def eval_ops(spec, global_step):
    """``(update_op, {key: value tensor})`` of the spec's metrics plus ``loss`` (the mean
    batch loss) and ``global_step``.

    Raises:
        ValueError: a metric named ``loss`` or ``global_step``.
    """
    for key in (LOSS_METRIC_KEY, GLOBAL_STEP_KEY):
        if key in spec.eval_metric_ops:
            raise ValueError(f"Metric with name {key!r} is not allowed, because Estimator "
                             "already defines a default metric with the same name.")
    ops = dict(spec.eval_metric_ops)
    ops[LOSS_METRIC_KEY] = metrics.mean(spec.loss, name="mean_loss")
    update_op = group(*[update for _, update in ops.values()])
    values = {key: value for key, (value, _) in ops.items()}
    values[GLOBAL_STEP_KEY] = global_step
    return update_op, values


def run_evaluation(spec, update_op, values, hooks, checkpoint_path, config, steps,
                   fallback_dir=None):
    """Runs the loop of the module docstring; returns the metric values (numpy) and the
    checkpoint restored (``checkpoint_path``, or with ``fallback_dir`` the newest intact
    checkpoint of that directory when the restore of ``checkpoint_path`` finds damage)."""
    final = FinalOpsHook(values)
    all_hooks = list(hooks) + [ProgressHook(steps, desc="Evaluation", use_global_step=False,
                                            log_every_n=None if steps else 100,
                                            log_lines=steps is None)]
    if steps is not None:
        all_hooks.append(StopAfterNEvalsHook(steps))
    all_hooks += list(spec.evaluation_hooks) + [final]
    logging.info("Starting evaluation at %s", time.strftime("%Y-%m-%dT%H:%M:%S"))
    start = time.time()
    creator = ChiefSessionCreator(scaffold=spec.scaffold, config=config.session_config,
                                  checkpoint_filename_with_path=checkpoint_path)
    creator.fallback_dir = fallback_dir
    with MonitoredSession(creator, all_hooks) as session:
        checkpoint_path = creator.restored_path
        while not session.should_stop():
            session.run(update_op)
    logging.info("Inference Time : %.5fs", time.time() - start)   # TF's two lines
    logging.info("Finished evaluation at %s", time.strftime("%Y-%m-%d-%H:%M:%S"))
    # as TF's session.run: numpy scalars (np.float32 metrics), the step an np.int64
    results = {k: (v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v)
               for k, v in final.final_ops_values.items()}
    results[GLOBAL_STEP_KEY] = np.int64(results[GLOBAL_STEP_KEY])
    return results, checkpoint_path


def _is_scalar(value):
    return isinstance(value, (int, float, np.number)) or (
        isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "biuf")


def write_eval_summaries(eval_dir, results, checkpoint_path=None):
    """Writes every scalar of ``results`` (but the global step) at its global step, and,
    as TF, the evaluated ``checkpoint_path`` as a string tensor summary."""
    scalars = {}
    for key, value in sorted(results.items()):   # TF writes them in key order
        if key == GLOBAL_STEP_KEY:
            continue
        if _is_scalar(value):
            scalars[key] = float(np.asarray(value).reshape(()))
        else:
            logging.warning("Skipping summary for %s, must be a scalar, got %r.", key, value)
    os.makedirs(eval_dir, exist_ok=True)
    writer = summary_io.writer_for(eval_dir)
    summary_io.write_scalars(writer, scalars, results[GLOBAL_STEP_KEY])
    if checkpoint_path:
        logging.info("Saving 'checkpoint_path' summary for global step %d: %s",
                     results[GLOBAL_STEP_KEY], checkpoint_path)
        summary_io.write_string_tensor(writer, "checkpoint_path", checkpoint_path,
                                       results[GLOBAL_STEP_KEY])
    # Flushed as TF does: early-stopping hooks read these files while training goes on.
    writer.flush()


def dict_to_str(results):
    """``"accuracy = 0.9, global_step = 100, loss = 0.3"`` (sorted keys)."""
    return ", ".join(f"{k} = {v!s}" for k, v in sorted(results.items()))  # str(np.float32)
