"""``tf.contrib.tpu`` / ``tf.estimator.tpu``: ``TPUEstimator`` and its configuration, run on
the host as TF runs them with ``use_tpu=False``.

Scripts written for Cloud TPUs (BERT's ``run_classifier.py``, the TPU model garden) build a
``TPUEstimator`` and fall back to the CPU with ``use_tpu=False``; that fallback is what runs
here::

    config = tpu.RunConfig(model_dir=d, save_checkpoints_steps=100,
                           tpu_config=tpu.TPUConfig(iterations_per_loop=100))
    est = tpu.TPUEstimator(model_fn, config=config, use_tpu=False,
                           train_batch_size=32, eval_batch_size=8, predict_batch_size=8)

As in TF:

* ``input_fn(params)`` gets the estimator's ``params`` plus ``params["batch_size"]``: the
  train, eval or predict batch size of the mode (no key when that size was not given);
  ``model_fn`` gets the same plus ``params["use_tpu"]``. ``params`` may not hold
  ``batch_size`` or ``context`` itself.
* ``model_fn`` returns a ``TPUEstimatorSpec`` (or a plain ``EstimatorSpec``):
  ``eval_metrics=(metric_fn, tensors)`` becomes ``eval_metric_ops = metric_fn(*tensors)``
  (``metric_fn(**tensors)`` for a dict), ``scaffold_fn()`` gives the scaffold, and
  ``host_call=(host_fn, tensors)`` runs the ops ``host_fn`` returns with every step.
* ``iterations_per_loop`` and ``num_shards`` are kept but do not change the run (TF's CPU
  fallback ignores them too: checkpoints follow ``save_checkpoints_steps``).
* ``config`` must be a ``tpu.RunConfig``.

``use_tpu=True`` (there is no TPU here) runs the same way, with a warning.
``CrossShardOptimizer`` wraps an optimizer for one shard: the gradients and the update are
the wrapped optimizer's.
"""
import collections
import functools
import inspect
import re

import attr

from estimator_npu.estimator.estimator import Estimator
from estimator_npu.estimator.inputs import call_input_fn, parse_input_fn_result
from estimator_npu.estimator.model_fn import EstimatorSpec, ModeKeys
from estimator_npu.estimator.model_fn_call import call_model_fn, fn_args
from estimator_npu.estimator.run_config import RunConfig as _BaseRunConfig
from estimator_npu.hooks import SessionRunArgs, SessionRunHook
from estimator_npu.train import training_util
from estimator_npu.train.optimizer import Optimizer
from estimator_npu.utils import logging


class InputPipelineConfig:
    """How a TPU job feeds its shards (TF's values; one host feeds everything here)."""

    PER_SHARD_V1 = 1
    PER_HOST_V1 = 2
    PER_HOST_V2 = 3
    BROADCAST = 4
    SLICED = 5


_TPU_CONFIG_FIELDS = ("iterations_per_loop", "num_shards", "num_cores_per_replica",
                      "per_host_input_for_training", "tpu_job_name",
                      "initial_infeed_sleep_secs", "input_partition_dims",
                      "eval_training_input_configuration",
                      "experimental_host_call_every_n_steps",
                      "experimental_allow_per_host_v2_parallel_get_next",
                      "experimental_feed_hook")
_TIME_BASED = re.compile(r"^[1-9][0-9]*[smh]$")


class TPUConfig(collections.namedtuple("TPUConfig", _TPU_CONFIG_FIELDS)):
    """TF's ``TPUConfig``: validated and kept (see the module docstring).

    Raises:
        ValueError: ``iterations_per_loop`` is not a positive int or ``"<N>s|m|h"``;
            ``num_shards`` / ``num_cores_per_replica`` not positive.
    """

    __slots__ = ()

    def __new__(cls, iterations_per_loop=2, num_shards=None, num_cores_per_replica=None,
                per_host_input_for_training=True, tpu_job_name=None,
                initial_infeed_sleep_secs=None, input_partition_dims=None,
                eval_training_input_configuration=InputPipelineConfig.PER_HOST_V1,
                experimental_host_call_every_n_steps=1,
                experimental_allow_per_host_v2_parallel_get_next=False,
                experimental_feed_hook=None):
        ipl = iterations_per_loop
        if not ((isinstance(ipl, int) and not isinstance(ipl, bool) and ipl > 0)
                or (isinstance(ipl, str) and _TIME_BASED.match(ipl))):
            raise ValueError(f"Invalid TPUConfig `iterations_per_loop` value {ipl!r}: it must "
                             f"be a positive integer or a time-based value `<N><s|m|h>` "
                             f"(`3600s`, `60m`, `1h`)")
        for name, value in (("num_shards", num_shards),
                            ("num_cores_per_replica", num_cores_per_replica)):
            if value is not None and not (isinstance(value, int) and value > 0):
                raise ValueError(f"TPUConfig {name} must be positive, got {value!r}")
        if per_host_input_for_training is True:
            per_host_input_for_training = InputPipelineConfig.PER_HOST_V1
        elif per_host_input_for_training is False:
            per_host_input_for_training = InputPipelineConfig.PER_SHARD_V1
        return super().__new__(
            cls, iterations_per_loop, num_shards, num_cores_per_replica,
            per_host_input_for_training, tpu_job_name, initial_infeed_sleep_secs,
            input_partition_dims, eval_training_input_configuration,
            experimental_host_call_every_n_steps,
            experimental_allow_per_host_v2_parallel_get_next, experimental_feed_hook)


def _tpu_config(instance, attribute, value):
    if not isinstance(value, TPUConfig):
        raise ValueError(f"tpu_config must be a tpu.TPUConfig, got {type(value).__name__}: "
                         f"{value!r}")


@attr.s(frozen=True, slots=True)
class RunConfig(_BaseRunConfig):
    """``tf.contrib.tpu.RunConfig``: a ``RunConfig`` plus ``tpu_config``, ``master``,
    ``evaluation_master`` (default: ``master``) and ``cluster`` (a cluster resolver, whose
    ``master()`` is used when given)."""

    tpu_config = attr.ib(default=attr.Factory(TPUConfig), kw_only=True,
                         converter=lambda v: TPUConfig() if v is None else v,
                         validator=_tpu_config)
    cluster = attr.ib(default=None, kw_only=True)
    _master = attr.ib(default=None, kw_only=True)
    _evaluation_master = attr.ib(default=None, kw_only=True)

    @property
    def master(self):
        if self.cluster is not None:
            return self.cluster.master()
        return self._master or ""

    @property
    def evaluation_master(self):
        return self.master if self._evaluation_master is None else self._evaluation_master


# ---------------------------------------------------------------------- host calls
def validate_host_call(spec_name, name, host_call):
    """TF's rules for a ``(fn, tensors)`` pair (``eval_metrics``, ``host_call``)."""
    if not isinstance(host_call, (tuple, list)):
        raise ValueError(f"{name} should be tuple or list")
    if len(host_call) != 2:
        raise ValueError(f"{name} should have two elements.")
    if not callable(host_call[0]):
        raise TypeError(f"{name}[0] should be callable.")
    if not isinstance(host_call[1], (tuple, list, dict)):
        raise ValueError(f"{name}[1] should be tuple or list, or dict.")
    if isinstance(host_call[1], (tuple, list)):
        params = inspect.signature(host_call[0]).parameters.values()
        if not any(p.kind == p.VAR_POSITIONAL for p in params):
            n_args = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
            if len(host_call[1]) != n_args:
                raise RuntimeError(f"In {spec_name}.{name}, length of tensors "
                                   f"{len(host_call[1])} does not match method args of the "
                                   f"function, which takes {n_args}.")


def call_host_fn(host_call):
    """``fn(*tensors)``, or ``fn(**tensors)`` for a dict."""
    fn, tensors = host_call
    return fn(**tensors) if isinstance(tensors, dict) else fn(*tensors)


class HostCallHook(SessionRunHook):
    """Runs the ops a ``host_call``'s function returned with every step."""

    def __init__(self, fetches):
        self._fetches = fetches

    def before_run(self, run_context):
        return SessionRunArgs(self._fetches)


def host_call_hooks(host_call):
    """``(HostCallHook,)`` for ``host_call``'s ops, ``()`` when none."""
    if host_call is None:
        return ()
    result = call_host_fn(host_call)
    return () if result is None else (HostCallHook(result),)


# ---------------------------------------------------------------------- spec
_SPEC_FIELDS = ("mode", "predictions", "loss", "train_op", "eval_metrics", "export_outputs",
                "scaffold_fn", "host_call", "training_hooks", "evaluation_hooks",
                "prediction_hooks")


class TPUEstimatorSpec(collections.namedtuple("TPUEstimatorSpec", _SPEC_FIELDS)):
    """What a ``TPUEstimator``'s ``model_fn`` returns (see the module docstring).

    Raises:
        ValueError / TypeError / RuntimeError: ``eval_metrics`` or ``host_call`` is not a
            ``(callable, list-or-dict)`` pair whose list matches the callable's arguments.
    """

    __slots__ = ()

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metrics=None,
                export_outputs=None, scaffold_fn=None, host_call=None, training_hooks=None,
                evaluation_hooks=None, prediction_hooks=None):
        for name, value in (("eval_metrics", eval_metrics), ("host_call", host_call)):
            if value is not None:
                validate_host_call("TPUEstimatorSpec", name, value)
        if scaffold_fn is not None and not callable(scaffold_fn):
            raise TypeError(f"scaffold_fn must be callable, got {scaffold_fn!r}")
        return super().__new__(cls, mode, predictions, loss, train_op, eval_metrics,
                               export_outputs, scaffold_fn, host_call, training_hooks,
                               evaluation_hooks, prediction_hooks)

    def as_estimator_spec(self):
        """The ``EstimatorSpec`` the host runs: metrics, scaffold and host_call resolved."""
        hooks = host_call_hooks(self.host_call)
        training_hooks = tuple(self.training_hooks or ())
        evaluation_hooks = tuple(self.evaluation_hooks or ())
        if self.mode == ModeKeys.TRAIN:
            training_hooks = hooks + training_hooks
        elif self.mode == ModeKeys.EVAL:
            evaluation_hooks = hooks + evaluation_hooks
        return EstimatorSpec(
            self.mode, predictions=self.predictions, loss=self.loss, train_op=self.train_op,
            eval_metric_ops=(call_host_fn(self.eval_metrics)
                             if self.eval_metrics is not None else None),
            export_outputs=self.export_outputs,
            scaffold=self.scaffold_fn() if self.scaffold_fn is not None else None,
            training_hooks=training_hooks, evaluation_hooks=evaluation_hooks,
            prediction_hooks=self.prediction_hooks)


# ---------------------------------------------------------------------- estimator
_RESERVED_PARAMS = ("batch_size", "context")


def _check_batch_size(name, value):
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                              or value <= 0):
        raise ValueError(f"{name} must be a positive int, got {value!r}")


def _host_model_fn(model_fn, mode):
    """``model_fn`` with its own signature, returning an ``EstimatorSpec``."""
    @functools.wraps(model_fn)
    def wrapped(*args, **kwargs):
        logging.info("Running %s on CPU/GPU", mode)
        spec = model_fn(*args, **kwargs)
        return spec.as_estimator_spec() if isinstance(spec, TPUEstimatorSpec) else spec
    return wrapped


class TPUEstimator(Estimator):
    """``Estimator`` with TPU-style batch sizes (see the module docstring).

    Raises:
        ValueError: ``config`` is not a ``tpu.RunConfig``; ``params`` holds ``batch_size``
            or ``context``; a batch size that is not a positive int.
    """

    def __init__(self, model_fn=None, model_dir=None, config=None, params=None, use_tpu=True,
                 train_batch_size=None, eval_batch_size=None, predict_batch_size=None,
                 batch_axis=None, eval_on_tpu=True, export_to_tpu=True, export_to_cpu=True,
                 warm_start_from=None, embedding_config_spec=None,
                 export_saved_model_api_version=None):
        if config is None or not isinstance(config, RunConfig):
            raise ValueError("`config` must be provided with type `tpu_config.RunConfig`, "
                             f"got {type(config).__name__}: {config!r}")
        reserved = [k for k in _RESERVED_PARAMS if k in (params or {})]
        if reserved:
            raise ValueError(f"{list(_RESERVED_PARAMS)} are reserved keys but existed in "
                             f"params {params}.")
        for name, value in (("train_batch_size", train_batch_size),
                            ("eval_batch_size", eval_batch_size),
                            ("predict_batch_size", predict_batch_size)):
            _check_batch_size(name, value)
        if use_tpu:
            logging.warning("TPUEstimator(use_tpu=True): there is no TPU here; running on "
                            "the host as with use_tpu=False.")
        if params is None and "params" in fn_args(model_fn):
            params = {}   # it always gets params (batch_size, use_tpu): no warning
        super().__init__(model_fn, model_dir=model_dir, config=config, params=params,
                         warm_start_from=warm_start_from)
        self._use_tpu = bool(use_tpu)
        self._batch_sizes = {ModeKeys.TRAIN: train_batch_size,
                             ModeKeys.EVAL: eval_batch_size,
                             ModeKeys.PREDICT: predict_batch_size}

    def _build(self, input_fn, mode):
        global_step = training_util.get_or_create_global_step()
        params = self.params
        if self._batch_sizes[mode] is not None:
            params["batch_size"] = self._batch_sizes[mode]
        result = call_input_fn(input_fn, mode, dict(params), self._config)
        features, labels, input_hooks = parse_input_fn_result(result)
        if mode == ModeKeys.PREDICT:
            labels = None
        if "batch_size" in params and "params" not in fn_args(self._model_fn):
            raise ValueError(f"model_fn ({self._model_fn}) does not include params argument, "
                             f"required by TPUEstimator to pass batch size as "
                             f"params['batch_size']")
        params["use_tpu"] = self._use_tpu
        spec = call_model_fn(_host_model_fn(self._model_fn, mode), features, labels, mode,
                             params, self._config)
        return spec, input_hooks, global_step


class CrossShardOptimizer(Optimizer):
    """TF's ``CrossShardOptimizer`` on one shard: the wrapped optimizer's gradients and
    update (the cross-shard sum of one shard is its own gradient).

    Raises:
        ValueError: ``reduction`` is not ``"weighted_sum"`` or ``"weighted_mean"``.
        TypeError: ``opt`` is not an optimizer.
    """

    def __init__(self, opt, reduction="weighted_mean", name="CrossShardOptimizer",
                 group_assignment=None):
        if reduction not in ("weighted_sum", "weighted_mean"):
            raise ValueError(f"Unsupported reduction: {reduction!r} (accepted: "
                             f"'weighted_sum', 'weighted_mean')")
        for method in ("compute_gradients", "apply_gradients"):
            if not callable(getattr(opt, method, None)):
                raise TypeError(f"opt must be an optimizer (with compute_gradients and "
                                f"apply_gradients), got {type(opt).__name__}: {opt!r}")
        super().__init__(use_locking=False, name=name)
        self._opt = opt
        self._reduction = reduction
        self._group_assignment = group_assignment

    @property
    def rule(self):
        return self._opt.rule

    def compute_gradients(self, *args, **kwargs):
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None, **kwargs):
        return self._opt.apply_gradients(grads_and_vars, global_step=global_step, name=name,
                                         **kwargs)

    def get_slot(self, *args, **kwargs):
        return self._opt.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._opt.get_slot_names(*args, **kwargs)

    def variables(self):
        return self._opt.variables()
