"""TF1's evaluation loop (``tensorflow.python.training.evaluation``), which Slim-era
evaluation scripts use through ``slim.evaluation.evaluate_once``: restore one checkpoint,
run ``eval_ops`` until a hook stops the session (``StopAfterNEvalsHook``) or the input
ends, then return the final ops' values::

    names_to_values, names_to_updates = slim.metrics.aggregate_metric_map({...})
    values = evaluate_once(ckpt, eval_ops=list(names_to_updates.values()),
                           final_ops=names_to_values,
                           hooks=[StopAfterNEvalsHook(num_batches)])

The eval step is a local int64 variable in the ``EVAL_STEP`` collection, incremented once
per run of ``eval_ops``.
"""
import time

from estimator_npu.engine import dtypes, init_ops
from estimator_npu.engine.graph import GraphKeys, get_default_graph
from estimator_npu.engine.ops import state_ops
from estimator_npu.engine.variable_scope import get_variable
from estimator_npu.hooks.basic_hooks import FinalOpsHook
from estimator_npu.hooks.monitored_session import MonitoredSession
from estimator_npu.hooks.scaffold import ChiefSessionCreator
from estimator_npu.hooks.session_run_hook import SessionRunArgs, SessionRunHook
from estimator_npu.utils import logging


def get_or_create_eval_step():
    """The graph's eval-step counter (created on first use)."""
    steps = get_default_graph().get_collection(GraphKeys.EVAL_STEP)
    if len(steps) > 1:
        raise ValueError("Multiple tensors added to tf.GraphKeys.EVAL_STEP")
    if steps:
        return steps[0]
    return get_variable("eval_step", shape=[], dtype=dtypes.int64,
                        initializer=init_ops.zeros_initializer(), trainable=False,
                        collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.EVAL_STEP])


def log_eval_progress(done, num_evals, before=None):
    """TF's progress lines ``Evaluation [3/20]``: every batch below 20 batches, else every
    ``num_evals // 10`` and at the last one (``Evaluation [3]`` when there is no count).
    ``before``: the count before this run (a device loop runs several batches a call)."""
    if num_evals is None:
        logging.info("Evaluation [%d]", done)
        return
    every = 1 if num_evals < 20 else num_evals // 10
    before = done - 1 if before is None else before
    if done // every > before // every or done == num_evals:
        logging.info("Evaluation [%d/%d]", done, num_evals)


class StopAfterNEvalsHook(SessionRunHook):
    """Requests a stop once ``num_evals`` runs of the eval ops have completed."""

    def __init__(self, num_evals, log_progress=True):
        self._num_evals = num_evals
        self._log_progress = log_progress
        self._evals_completed = None

    def _set_evals_completed_tensor(self, updated_eval_step):
        self._evals_completed = updated_eval_step

    def before_run(self, run_context):
        return SessionRunArgs({"evals_completed": self._evals_completed})

    def after_run(self, run_context, run_values):
        done = run_values.results["evals_completed"]
        if self._log_progress:
            log_eval_progress(int(done), self._num_evals)
        if self._num_evals is not None and done >= self._num_evals:
            run_context.request_stop()


def evaluate_once(checkpoint_path, master="", scaffold=None, eval_ops=None,
                  feed_dict=None, final_ops=None, final_ops_feed_dict=None, hooks=None,
                  config=None):
    """Restores ``checkpoint_path``, runs ``eval_ops`` until stopped, returns the values
    of ``final_ops`` (``None`` when there are none)."""
    eval_step = get_or_create_eval_step()
    hooks = list(hooks or [])
    if eval_ops is not None:
        update_eval_step = state_ops.assign_add(eval_step, 1)
        for hook in hooks:
            if isinstance(hook, StopAfterNEvalsHook):
                hook._set_evals_completed_tensor(update_eval_step)
        if isinstance(eval_ops, dict):
            eval_ops = dict(eval_ops, update_eval_step=update_eval_step)
        elif isinstance(eval_ops, (list, tuple)):
            eval_ops = list(eval_ops) + [update_eval_step]
        else:
            eval_ops = [eval_ops, update_eval_step]
    final_hook = FinalOpsHook(final_ops, final_ops_feed_dict)
    hooks.append(final_hook)
    creator = ChiefSessionCreator(scaffold=scaffold, master=master, config=config,
                                  checkpoint_filename_with_path=checkpoint_path)
    logging.info("Starting evaluation at %s", time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()))
    with MonitoredSession(creator, hooks) as session:
        if eval_ops is not None:
            while not session.should_stop():
                session.run(eval_ops, feed_dict)
    logging.info("Finished evaluation at %s", time.strftime("%Y-%m-%d-%H:%M:%S", time.gmtime()))
    return final_hook.final_ops_values


# TF's private spellings, which tf_slim's evaluation module re-exports.
_StopAfterNEvalsHook = StopAfterNEvalsHook
_evaluate_once = evaluate_once
_get_or_create_eval_step = get_or_create_eval_step
