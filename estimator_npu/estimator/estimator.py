"""``Estimator``: train, evaluate and predict a ``model_fn`` with checkpoints in model_dir.

    est = Estimator(model_fn, model_dir="/tmp/m", params={"lr": 0.1})
    est.train(train_input_fn, max_steps=1000)      # resumes from the latest checkpoint
    est.evaluate(eval_input_fn)                    # {"loss": ..., "global_step": 1000, ...}
    for p in est.predict(predict_input_fn): ...

Each call builds a fresh graph: the global step, ``input_fn`` (its Dataset behind an
initializable iterator), ``model_fn`` for the mode; then runs it in a monitored session
whose session creator restores the latest checkpoint of ``model_dir`` (or initializes,
warm-starting on a fresh start). No subclassing is needed: behaviour comes from
``model_fn``, ``RunConfig``, ``params`` and hooks.
"""
import contextlib
import copy
import math
import numbers
import os
import tempfile

import numpy as np

from estimator_npu import errors
from estimator_npu.train.npu_optimizer import NPU_OPTIMIZERS
from estimator_npu.distribute import collective
from estimator_npu.distribute.strategy import replica_scope
from estimator_npu.engine.graph import Graph, GraphKeys, get_default_graph
from estimator_npu.engine.ops import array_ops
from estimator_npu.estimator import default_hooks, evaluation, export, train_loop
from estimator_npu.estimator.inputs import call_input_fn, parse_input_fn_result
from estimator_npu.estimator.model_fn import ModeKeys
from estimator_npu.estimator.model_fn_call import call_model_fn, verify_model_fn_args
from estimator_npu.estimator import run_config
from estimator_npu.estimator.run_config import RunConfig
from estimator_npu.estimator.warm_starting import as_warm_start_settings, make_init_fn
from estimator_npu.hooks.basic_hooks import StopAtStepHook
from estimator_npu.hooks.monitored_session import MonitoredSession
from estimator_npu.hooks.progress import ProgressHook
from estimator_npu.hooks.saver_hooks import CheckpointSaverListener
from estimator_npu.hooks.scaffold import ChiefSessionCreator, Scaffold
from estimator_npu.hooks.session_run_hook import SessionRunHook
from estimator_npu.train import (checkpoint_io, model_dir_lock, recovery, summary_ops,
                                 training_util)
from estimator_npu.train.saver import Saver
from estimator_npu.utils import logging


def _check_hooks(hooks):
    hooks = list(hooks or [])
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError(f"Hooks must be a SessionRunHook, given: {hook!r}")
    return hooks


def _check_listeners(listeners):
    listeners = list(listeners or [])
    for listener in listeners:
        if not isinstance(listener, CheckpointSaverListener):
            raise TypeError(f"saving_listeners must be a list of CheckpointSaverListener, "
                            f"given: {listener!r}")
    return listeners


def _with_mpi_workers(config):
    """``config`` with ``num_workers``/``worker_index`` set from MPI when several workers
    run (a config that names other values is an error)."""
    size, rank = collective.size(), collective.rank()
    if size == 1 or (config.num_workers, config.worker_index) == (size, rank):
        return config
    if config.num_workers != 1:
        raise ValueError(f"config.num_workers={config.num_workers} and worker_index="
                         f"{config.worker_index}, but MPI runs {size} workers and this is "
                         f"rank {rank}; leave them unset under MPI")
    return config.replace(num_workers=size, worker_index=rank)


def _chief_value(config, value):
    """The chief's ``value`` on every worker (the chief alone reads ``model_dir``)."""
    if config.num_workers == 1:
        return value
    buf = np.array([value], dtype=np.int64)
    collective.broadcast(buf, 0)
    return int(buf[0])


def _check_steps(name, value):
    """A positive step count as an int. TF takes floats too (``num_examples / batch_size``
    in Python 3) and stops at the first step >= the value: the ceiling."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, given: {type(value).__name__}: {value!r}")
    if value <= 0:
        raise ValueError(f"Must specify {name} > 0, given: {value}")
    return int(math.ceil(value))


class Estimator:
    """Trains, evaluates and predicts with ``model_fn`` (TF1 ``tf.estimator.Estimator``).

    Args:
        model_fn: ``model_fn(features, labels, mode, params, config)`` (any subset of the
            names, ``features`` required) returning an ``EstimatorSpec``.
        model_dir: where checkpoints and summaries go (default: ``config.model_dir``, else a
            new temporary directory, logged).
        config: a ``RunConfig`` (default ``RunConfig()``).
        params: a dict handed to ``model_fn`` (and ``input_fn``) as ``params``.
        warm_start_from: a checkpoint directory/prefix or ``WarmStartSettings``, applied
            when ``model_dir`` has no checkpoint yet.

    Raises:
        ValueError: ``config`` is not a ``RunConfig``; ``model_dir`` differs from
            ``config.model_dir``; ``model_fn``'s signature is not accepted.
    """

    def __init__(self, model_fn, model_dir=None, config=None, params=None,
                 warm_start_from=None):
        if config is None:
            config = RunConfig()
            logging.info("Using default config.")
        elif not isinstance(config, RunConfig):
            raise ValueError("config must be an instance of RunConfig, but provided "
                             f"{type(config).__name__}: {config!r}")
        if model_dir is not None:
            model_dir = os.fspath(model_dir)
            if config.model_dir is not None and config.model_dir != model_dir:
                raise ValueError("model_dir are set both in constructor and RunConfig, but "
                                 f"with different values. In constructor: {model_dir!r}, in "
                                 f"RunConfig: {config.model_dir!r}")
        model_dir = model_dir or config.model_dir
        if model_dir is None:
            model_dir = tempfile.mkdtemp()
            logging.warning("Using temporary folder as model directory: %s", model_dir)
        if config.model_dir != model_dir:
            config = config.replace(model_dir=model_dir)
        config = _with_mpi_workers(config)
        logging.info("Using config: %s", run_config.logged_config(config))
        verify_model_fn_args(model_fn, params)
        self._model_fn = model_fn
        self._model_dir = model_dir
        self._config = config
        self._params = copy.deepcopy(params or {})
        self._warm_start_settings = as_warm_start_settings(warm_start_from)

    @property
    def model_dir(self):
        return self._model_dir

    @property
    def config(self):
        return self._config

    @property
    def params(self):
        return copy.deepcopy(self._params)

    @property
    def model_fn(self):
        return self._model_fn

    def eval_dir(self, name=None):
        """The folder ``evaluate(name=name)`` writes its summaries to."""
        return os.path.join(self._model_dir, "eval" if not name else "eval_" + name)

    # ------------------------------------------------------------------ checkpoints
    def latest_checkpoint(self):
        """The prefix of the newest checkpoint in ``model_dir``, or ``None``."""
        return checkpoint_io.latest_checkpoint(self._model_dir)

    def _require_checkpoint(self):
        path = self.latest_checkpoint()
        if path is None:
            raise ValueError(f"Could not find trained model in model_dir: {self._model_dir}.")
        return path

    def get_variable_names(self):
        """Names of the variables in the latest checkpoint (``ValueError`` if none)."""
        return [name for name, _ in checkpoint_io.list_variables(self._require_checkpoint())]

    def get_variable_value(self, name):
        """The value of variable ``name`` in the latest checkpoint (``ValueError`` if none)."""
        return checkpoint_io.load_variable(self._require_checkpoint(), name)

    # ------------------------------------------------------------------ graph building
    def _new_graph(self):
        graph = Graph()
        graph.seed = self._config.tf_random_seed
        return graph

    def _build(self, input_fn, mode):
        """Global step, input_fn, model_fn in the default graph: ``(spec, input hooks)``."""
        global_step = training_util.get_or_create_global_step()
        strategy = {ModeKeys.TRAIN: self._config.train_distribute,
                    ModeKeys.EVAL: self._config.eval_distribute}.get(mode)
        result = call_input_fn(input_fn, mode, self.params, self._config, strategy)
        features, labels, input_hooks = parse_input_fn_result(result)
        if mode == ModeKeys.PREDICT:
            labels = None
        with (replica_scope(strategy) if strategy is not None else contextlib.nullcontext()):
            spec = call_model_fn(self._model_fn, features, labels, mode, self.params,
                                 self._config)
        if strategy is not None:
            # TF reads the mirrored global step as an ordinary read, before the update
            # of the same run: its logged and hook-fetched steps start at 0
            global_step = array_ops.identity(global_step)
        if mode == ModeKeys.TRAIN:
            # An NPUOptimizer's is_tailing_optimization must agree with the run config's.
            tailing = getattr(self._config, "is_tailing_optimization", None)
            for opt in get_default_graph().get_collection(NPU_OPTIMIZERS):
                if tailing is not None:
                    opt.check_tailing_matches(tailing)
        return spec, input_hooks, global_step

    def _checkpoint_to_read(self, checkpoint_path, what):
        # the newest checkpoint whose index and file sizes are intact; its restore reads
        # and checks every byte once (and falls back to the newest intact one on damage:
        # the session creator's ``fallback_dir``)
        path = checkpoint_path or recovery.find(self._model_dir, warn=False,
                                                check=recovery.quick_check).path
        if path is None:
            logging.info("Could not find trained model in model_dir: %s, running "
                         "initialization to %s.", self._model_dir, what)
        return path

    # ------------------------------------------------------------------ train
    def train(self, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None):
        """Trains from the latest checkpoint until a stop, ``steps``/``max_steps`` or the end
        of input; saves a final checkpoint; returns ``self``.

        Args:
            input_fn: returns a Dataset or ``(features, labels)``.
            hooks: extra ``SessionRunHook``s.
            steps: train this many more steps (relative).
            max_steps: train until the global step reaches this (absolute); if it already
                has, log it and return.
            saving_listeners: ``CheckpointSaverListener``s for the checkpoint hook.

        Raises:
            ValueError: both ``steps`` and ``max_steps``, or either <= 0.
            ModelDirLockedError: another process trains into ``model_dir``.
            errors.DataLossError: checkpoint files exist in ``model_dir`` but none is
                intact (a damaged latest one is skipped with a warning).
        """
        if steps is not None and max_steps is not None:
            raise ValueError(f"Can not provide both steps and max_steps, given steps={steps} "
                             f"and max_steps={max_steps}.")
        steps = _check_steps("steps", steps)
        max_steps = _check_steps("max_steps", max_steps)
        hooks = _check_hooks(hooks)
        saving_listeners = _check_listeners(saving_listeners)
        # one trainer per model_dir: the chief holds the lock for the whole run
        with model_dir_lock.hold(self._model_dir if self._config.is_chief else None):
            if self._config.is_chief:
                recovery.remove_temp_files(self._model_dir)
            return self._train(input_fn, hooks, steps, max_steps, saving_listeners)

    def _train(self, input_fn, hooks, steps, max_steps, saving_listeners):
        start = _chief_value(self._config, self._checkpoint_global_step(recovery.quick_check))
        if max_steps is not None and max_steps <= start:
            # about to skip training: first make sure that checkpoint is intact
            start = _chief_value(self._config, self._checkpoint_global_step())
        if max_steps is not None and max_steps <= start:
            logging.info("Skipping training since max_steps has already saved.")
            return self
        if steps is not None or max_steps is not None:
            hooks.append(StopAtStepHook(num_steps=steps, last_step=max_steps))
        total = steps if steps is not None else (
            None if max_steps is None else max_steps - start)
        loss = self._train_model(input_fn, hooks, saving_listeners, steps, max_steps, total)
        if self._config.num_workers > 1:
            collective.barrier()   # the chief's final checkpoint exists when train returns
        logging.info("Loss for final step: %s.", loss)
        return self

    def _checkpoint_global_step(self, check=None):
        # the checkpoint training will resume from (the session creator warns about
        # what it skips; damaged files with none intact raise, here or when the session
        # restores). ``recovery.quick_check`` reads only the indexes: the session creator
        # reads the tensors of the checkpoint it restores, once, checking every byte.
        path = recovery.find(self._model_dir, warn=False, check=check).path
        if path is None:
            return 0
        try:
            return int(checkpoint_io.load_variable(path, training_util.GLOBAL_STEP_NAME))
        except (errors.OpError, KeyError, ValueError):
            return 0

    def _train_model(self, input_fn, hooks, saving_listeners, steps, max_steps, total):
        with self._new_graph().as_default():
            spec, input_hooks, global_step = self._build(input_fn, ModeKeys.TRAIN)
            summaries = get_default_graph().get_collection(GraphKeys.SUMMARIES)
            if not any("loss" in (s.op.name, s.op.attrs.get("tag")) for s in summaries):
                summary_ops.scalar("loss", spec.loss)
            scaffold = self._training_scaffold(spec.scaffold)
            spec = spec._replace(scaffold=scaffold)
            all_hooks = input_hooks + default_hooks.training_hooks(
                self._config, self._model_dir, spec, global_step, hooks, saving_listeners,
                total)
            runner, iterations_per_loop = train_loop.make_runner(self._config, spec.train_op)
            return train_loop.run_training(
                spec.train_op, spec.loss, all_hooks, scaffold, self._model_dir, self._config,
                runner=runner, iterations_per_loop=iterations_per_loop, steps=steps,
                max_steps=max_steps)

    def _training_scaffold(self, scaffold):
        """The spec's scaffold with a saver that keeps ``keep_checkpoint_max`` checkpoints
        and the warm start added to its ``init_fn``."""
        graph = get_default_graph()
        if scaffold.saver is None and not graph.get_collection(GraphKeys.SAVERS):
            graph.add_to_collection(GraphKeys.SAVERS, Saver(
                max_to_keep=self._config.keep_checkpoint_max,
                keep_checkpoint_every_n_hours=self._config.keep_checkpoint_every_n_hours,
                allow_empty=True, save_relative_paths=True,   # as TF's Estimator
                save_iterator_state=getattr(self._config, "exact_input_resume", True)))
        return self._warm_started(scaffold)

    def _warm_started(self, scaffold):
        """``scaffold`` with the warm start (if any) added to its ``init_fn``: it runs only
        where the session initializes variables, i.e. when no checkpoint is restored."""
        if self._warm_start_settings is None:
            return scaffold
        logging.info("Warm-starting with WarmStartSettings: %s", self._warm_start_settings)
        warm_start = make_init_fn(self._warm_start_settings)
        user_init_fn = scaffold.init_fn  # init_fn(session), bound to the user's scaffold

        def init_fn(new_scaffold, session):
            warm_start(new_scaffold, session)
            if user_init_fn is not None:
                user_init_fn(session)
        return Scaffold(init_fn=init_fn, copy_from_scaffold=scaffold)

    # ------------------------------------------------------------------ evaluate
    def evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None):
        """Evaluates on ``steps`` batches (or until the end of input).

        Returns:
            A dict with ``loss`` (mean batch loss), ``global_step`` and every metric of
            ``eval_metric_ops``; also written as summaries to ``model_dir/eval[_name]``.

        Raises:
            ValueError: ``steps`` <= 0, or a metric named ``loss``/``global_step``.
        """
        steps = _check_steps("steps", steps)
        hooks = _check_hooks(hooks)
        if name is not None and not isinstance(name, str):
            raise TypeError(f"name must be a str, given: {type(name).__name__}: {name!r}")
        fallback = None if checkpoint_path else self._model_dir
        checkpoint_path = self._checkpoint_to_read(checkpoint_path, "evaluate")
        with self._new_graph().as_default():
            spec, input_hooks, global_step = self._build(input_fn, ModeKeys.EVAL)
            if checkpoint_path is None:  # TF: an untrained model is evaluated warm-started
                spec = spec._replace(scaffold=self._warm_started(spec.scaffold))
            update_op, values = evaluation.eval_ops(spec, global_step)
            results, checkpoint_path = evaluation.run_evaluation(
                spec, update_op, values, input_hooks + hooks, checkpoint_path, self._config,
                steps, fallback_dir=fallback)
        eval_dir = os.path.join(self._model_dir, "eval" if not name else "eval_" + name)
        logging.info("Saving dict for global step %d: %s", results["global_step"],
                     evaluation.dict_to_str(results))
        evaluation.write_eval_summaries(eval_dir, results, checkpoint_path)
        return results

    # ------------------------------------------------------------------ predict
    def predict(self, input_fn, predict_keys=None, hooks=None, checkpoint_path=None,
                yield_single_examples=True):
        """Yields predictions: one per example (a dict, or an array for a single tensor),
        or one per batch with ``yield_single_examples=False``.

        Raises:
            ValueError: ``predict_keys`` with non-dict predictions or matching none of them;
                dict predictions of different batch lengths.
        """
        hooks = _check_hooks(hooks)
        fallback = None if checkpoint_path else self._model_dir
        checkpoint_path = self._checkpoint_to_read(checkpoint_path, "predict")
        with self._new_graph().as_default():
            spec, input_hooks, _ = self._build(input_fn, ModeKeys.PREDICT)
            predictions = _extract_keys(spec.predictions, predict_keys)
            all_hooks = (input_hooks + hooks + list(spec.prediction_hooks) + [ProgressHook(
                None, desc="Prediction", unit="batch", use_global_step=False,
                log_every_n=100)])
            scaffold = spec.scaffold if checkpoint_path else self._warm_started(spec.scaffold)
            creator = ChiefSessionCreator(scaffold=scaffold,
                                          config=self._config.session_config,
                                          checkpoint_filename_with_path=checkpoint_path)
            creator.fallback_dir = fallback
            with MonitoredSession(creator, all_hooks) as session:
                while not session.should_stop():
                    values = session.run(predictions)
                    if not yield_single_examples:
                        yield values
                    elif not isinstance(values, dict):
                        yield from values
                    else:
                        for i in range(_batch_length(values)):
                            yield {key: value[i] for key, value in values.items()}


    # ------------------------------------------------------------------ export
    def export_saved_model(self, export_dir_base, serving_input_receiver_fn,
                           assets_extra=None, as_text=False, checkpoint_path=None,
                           experimental_mode=ModeKeys.PREDICT):
        """Writes a SavedModel (TF's layout) of the latest checkpoint into a new
        ``<export_dir_base>/<timestamp>`` and returns that path as ``bytes``; see
        ``estimator.export``."""
        if experimental_mode != ModeKeys.PREDICT:
            raise ValueError(f"export_saved_model exports the {ModeKeys.PREDICT!r} graph "
                             f"only, got experimental_mode={experimental_mode!r}")
        return export.export_saved_model(self, export_dir_base, serving_input_receiver_fn,
                                         assets_extra, as_text, checkpoint_path)

    def export_savedmodel(self, export_dir_base, serving_input_receiver_fn,
                          assets_extra=None, as_text=False, checkpoint_path=None,
                          strip_default_attrs=False):
        """TF1's name of ``export_saved_model``."""
        return self.export_saved_model(export_dir_base, serving_input_receiver_fn,
                                       assets_extra, as_text, checkpoint_path)


def _extract_keys(predictions, predict_keys):
    if not predict_keys:
        return predictions
    if not isinstance(predictions, dict):
        raise ValueError("predict_keys argument is not valid in case of non-dict "
                         "predictions.")
    if isinstance(predict_keys, str):
        predict_keys = [predict_keys]
    selected = {k: v for k, v in predictions.items() if k in predict_keys}
    if not selected:
        raise ValueError(f"Expected to run at least one output from {sorted(predictions)}, "
                         f"provided {list(predict_keys)}.")
    return selected


def _batch_length(values):
    length = None
    for key, value in values.items():
        n = value.shape[0] if getattr(value, "ndim", 0) else None
        if n is None:
            raise ValueError(f"Prediction {key!r} is a scalar; with yield_single_examples=True "
                             "every prediction needs a batch dimension.")
        if length is None:
            length = n
        elif n != length:
            raise ValueError(f"Batch length of predictions should be same. {key} has "
                             "different batch length than others.")
    return length or 0
