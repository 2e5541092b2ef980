"""``NPUEstimator``: an ``Estimator`` configured by an ``NPURunConfig``; ``NPUEstimatorSpec``
with the adapter's ``host_call``.

A ``host_call`` is ``(host_fn, tensors)``: ``tensors`` a list/tuple (passed positionally;
its length must match ``host_fn``'s arguments unless ``host_fn`` takes ``*args``) or a dict
(passed by keyword). On the NPU the tensors travel to the host every step, where
``host_fn`` runs; here everything is on the host, so ``host_fn(*tensors)`` is called while
the graph is built (TRAIN and EVAL) and the ops it returns run with every training or
evaluation step.
"""
import inspect

from estimator_npu.estimator import Estimator, NPURunConfig
from estimator_npu.estimator.model_fn import EstimatorSpec, ModeKeys
from estimator_npu.hooks import SessionRunArgs, SessionRunHook


def _validate_host_call(name, host_call):
    """The adapter's rules for ``host_call``."""
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
                raise RuntimeError(f"In NPUEstimatorSpec.{name}, length of tensors "
                                   f"{len(host_call[1])} does not match method args of the "
                                   f"function, which takes {n_args}.")


class NPUEstimatorSpec(EstimatorSpec):
    """``EstimatorSpec`` plus ``host_call`` (see the module docstring)."""

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metric_ops=None,
                export_outputs=None, training_chief_hooks=None, training_hooks=None,
                scaffold=None, evaluation_hooks=None, prediction_hooks=None, host_call=None):
        if host_call is not None:
            _validate_host_call("host_call", host_call)
        spec = super().__new__(cls, mode, predictions, loss, train_op, eval_metric_ops,
                               export_outputs, training_chief_hooks, training_hooks, scaffold,
                               evaluation_hooks, prediction_hooks)
        spec._host_call = host_call
        return spec

    @property
    def host_call(self):
        return self._host_call


class _HostCallHook(SessionRunHook):
    """Runs the ops ``host_fn`` returned with every step."""

    def __init__(self, fetches):
        self._fetches = fetches

    def before_run(self, run_context):
        return SessionRunArgs(self._fetches)


def _host_call_hooks(spec):
    host_call = getattr(spec, "host_call", None)
    if host_call is None:
        return ()
    host_fn, tensors = host_call
    result = host_fn(**tensors) if isinstance(tensors, dict) else host_fn(*tensors)
    return () if result is None else (_HostCallHook(result),)


class NPUEstimator(Estimator):
    """``Estimator`` whose default config is ``NPURunConfig()``; any ``RunConfig`` works."""

    def __init__(self, model_fn, model_dir=None, config=None, params=None,
                 job_start_file="", warm_start_from=None, **kwargs):
        if config is None:
            config = NPURunConfig(model_dir=model_dir)
        super().__init__(model_fn, model_dir=model_dir, config=config, params=params,
                         warm_start_from=warm_start_from)

    def _build(self, input_fn, mode):
        spec, input_hooks, global_step = super()._build(input_fn, mode)
        hooks = _host_call_hooks(spec) if mode in (ModeKeys.TRAIN, ModeKeys.EVAL) else ()
        if hooks and mode == ModeKeys.TRAIN:
            spec = spec._replace(training_hooks=hooks + tuple(spec.training_hooks))
        elif hooks:
            spec = spec._replace(evaluation_hooks=hooks + tuple(spec.evaluation_hooks))
        return spec, input_hooks, global_step
