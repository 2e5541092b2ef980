"""``NPUEstimator``: an ``Estimator`` configured by an ``NPURunConfig``; ``NPUEstimatorSpec``
with the adapter's ``host_call``.

A ``host_call`` is ``(host_fn, tensors)``: ``tensors`` a list/tuple (passed positionally;
its length must match ``host_fn``'s arguments unless ``host_fn`` takes ``*args``) or a dict
(passed by keyword). On the NPU the tensors travel to the host every step, where
``host_fn`` runs; here everything is on the host, so ``host_fn(*tensors)`` is called while
the graph is built (TRAIN and EVAL) and the ops it returns run with every training or
evaluation step.
"""
from estimator_npu.estimator import Estimator, NPURunConfig
from estimator_npu.estimator.model_fn import EstimatorSpec, ModeKeys
from estimator_npu.estimator.tpu_estimator import host_call_hooks as _hooks_of
from estimator_npu.estimator.tpu_estimator import validate_host_call as _validate_host_call
from estimator_npu.hooks import SessionRunArgs, SessionRunHook  # noqa: F401 (the module's names)


class NPUEstimatorSpec(EstimatorSpec):
    """``EstimatorSpec`` plus ``host_call`` (see the module docstring)."""

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metric_ops=None,
                export_outputs=None, training_chief_hooks=None, training_hooks=None,
                scaffold=None, evaluation_hooks=None, prediction_hooks=None, host_call=None):
        if host_call is not None:
            _validate_host_call("NPUEstimatorSpec", "host_call", host_call)
        spec = super().__new__(cls, mode, predictions, loss, train_op, eval_metric_ops,
                               export_outputs, training_chief_hooks, training_hooks, scaffold,
                               evaluation_hooks, prediction_hooks)
        spec._host_call = host_call
        return spec

    @property
    def host_call(self):
        return self._host_call


def _host_call_hooks(spec):
    return _hooks_of(getattr(spec, "host_call", None))


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
