"""``tf.contrib.tpu``: what TPU-era Estimator scripts use on their non-TPU path.

Google's BERT (and the ModelZoo BERTs built on it) read
``tf.contrib.tpu.InputPipelineConfig.PER_HOST_V2``, build ``TPUEstimatorSpec``s, and run a
``TPUEstimator(use_tpu=False, train_batch_size=...)`` configured by
``tf.contrib.tpu.RunConfig(tpu_config=TPUConfig(...))``. There is no TPU here:

* ``InputPipelineConfig`` holds TF's constants; ``TPUConfig`` TF's fields (unused off a TPU).
* ``TPUEstimatorSpec`` is TF's record with its ``as_estimator_spec()`` (``scaffold_fn``
  called for the scaffold, ``eval_metrics = (metric_fn, tensors)`` called for the metric
  ops). ``host_call`` (an outfeed to the host each step) is not implemented.
* ``TPUEstimator(use_tpu=False)`` is an ``Estimator`` that, as TF's does off a TPU, adds
  ``params["batch_size"]`` (``train_batch_size`` / ``eval_batch_size`` /
  ``predict_batch_size`` by mode) to the params its ``model_fn`` and ``input_fn`` get, and
  accepts a ``TPUEstimatorSpec`` from the ``model_fn``. ``use_tpu=True`` raises the
  "does not implement" error; so does any other name of the module.
"""
import collections

import attr

from estimator_npu.compat.missing import NotImplementedName
from estimator_npu.estimator import Estimator, EstimatorSpec, ModeKeys
from estimator_npu.estimator import RunConfig as _RunConfig
from estimator_npu.estimator.model_fn_call import fn_args, verify_model_fn_args


class InputPipelineConfig:
    """How a TPUEstimator would feed its input (TF's enum values)."""

    PER_SHARD_V1 = 1
    PER_HOST_V1 = 2
    PER_HOST_V2 = 3
    BROADCAST = 4
    SLICED = 5


_TPU_FIELDS = ("mode", "predictions", "loss", "train_op", "eval_metrics", "export_outputs",
               "scaffold_fn", "host_call", "training_hooks", "evaluation_hooks",
               "prediction_hooks")


class TPUEstimatorSpec(collections.namedtuple("TPUEstimatorSpec", _TPU_FIELDS)):
    """TF's ``TPUEstimatorSpec``: ``eval_metrics`` is ``(metric_fn, tensors)`` (a list or a
    dict of tensors) instead of ``eval_metric_ops``; ``scaffold_fn`` returns the scaffold.

    Raises:
        ValueError: ``eval_metrics`` that is not a ``(callable, list or dict)`` pair.
    """

    __slots__ = ()

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metrics=None,
                export_outputs=None, scaffold_fn=None, host_call=None, training_hooks=None,
                evaluation_hooks=None, prediction_hooks=None):
        if eval_metrics is not None:
            if not (isinstance(eval_metrics, (tuple, list)) and len(eval_metrics) == 2
                    and callable(eval_metrics[0])
                    and isinstance(eval_metrics[1], (tuple, list, dict))):
                raise ValueError(f"TPUEstimatorSpec: eval_metrics must be a (metric_fn, "
                                 f"tensors) pair, tensors a list or dict; given: "
                                 f"{eval_metrics!r}")
        return super().__new__(cls, mode, predictions, loss, train_op, eval_metrics,
                               export_outputs, scaffold_fn, host_call, training_hooks,
                               evaluation_hooks, prediction_hooks)

    def as_estimator_spec(self):
        """The equivalent ``EstimatorSpec`` (what TPUEstimator runs off a TPU)."""
        if self.host_call is not None:
            raise NotImplementedName("tf.contrib.tpu.TPUEstimatorSpec(host_call=...)")
        metric_ops = None
        if self.eval_metrics is not None:
            fn, tensors = self.eval_metrics
            metric_ops = fn(**tensors) if isinstance(tensors, dict) else fn(*tensors)
        return EstimatorSpec(
            mode=self.mode, predictions=self.predictions, loss=self.loss,
            train_op=self.train_op, eval_metric_ops=metric_ops,
            export_outputs=self.export_outputs,
            scaffold=self.scaffold_fn() if self.scaffold_fn else None,
            training_hooks=self.training_hooks, evaluation_hooks=self.evaluation_hooks,
            prediction_hooks=self.prediction_hooks)


_TPU_CONFIG_FIELDS = {"iterations_per_loop": 2, "num_shards": None,
                      "num_cores_per_replica": None, "per_host_input_for_training": True,
                      "tpu_job_name": None, "initial_infeed_sleep_secs": None,
                      "input_partition_dims": None, "eval_training_input_configuration": 2,
                      "experimental_host_call_every_n_steps": 1}
TPUConfig = collections.namedtuple("TPUConfig", list(_TPU_CONFIG_FIELDS),
                                   defaults=list(_TPU_CONFIG_FIELDS.values()))
TPUConfig.__doc__ = "TF's TPU settings of a ``RunConfig`` (kept, unused: no TPU here)."


@attr.s(frozen=True, slots=True)
class TPURunConfig(_RunConfig):
    """``tf.contrib.tpu.RunConfig``: a ``RunConfig`` with a ``tpu_config``."""

    tpu_config = attr.ib(factory=TPUConfig, kw_only=True)


def RunConfig(tpu_config=None, evaluation_master=None, master=None, cluster=None,  # noqa: N802
              **kwargs):
    """``tf.contrib.tpu.RunConfig(tpu_config=None, ..., **RunConfig arguments)``.

    Raises:
        AttributeError: a TPU ``master`` or ``cluster`` (a TPU to connect to).
    """
    if master or evaluation_master or cluster is not None:
        raise NotImplementedName("tf.contrib.tpu.RunConfig(master=/cluster=, a TPU)")
    return TPURunConfig(tpu_config=tpu_config or TPUConfig(), **kwargs)


class TPUEstimator(Estimator):
    """``tf.contrib.tpu.TPUEstimator`` off a TPU (``use_tpu=False``; see the module doc).

    Raises:
        ValueError: ``params`` holding ``batch_size`` (a key TF reserves), or ``train``
            without ``train_batch_size``.
        AttributeError: ``use_tpu=True``.
    """

    def __init__(self, model_fn=None, model_dir=None, config=None, params=None,
                 use_tpu=True, train_batch_size=None, eval_batch_size=None,
                 predict_batch_size=None, batch_axis=None, eval_on_tpu=True,
                 export_to_tpu=True, export_to_cpu=True, warm_start_from=None,
                 embedding_config_spec=None, export_saved_model_api_version=1):
        if use_tpu:
            raise NotImplementedName("tf.contrib.tpu.TPUEstimator(use_tpu=True)")
        if params and "batch_size" in params:
            raise ValueError("TPUEstimator: params must not hold 'batch_size' (a reserved "
                             "key; pass train_batch_size/eval_batch_size/predict_batch_size)")
        verify_model_fn_args(model_fn, params)
        self._batch_sizes = {ModeKeys.TRAIN: train_batch_size, ModeKeys.EVAL: eval_batch_size,
                             ModeKeys.PREDICT: predict_batch_size}
        user_fn, names = model_fn, fn_args(model_fn)

        def tpu_model_fn(features, labels, mode, params, config):
            values = {"labels": labels, "mode": mode, "config": config,
                      "params": {**params, "batch_size": self._batch_sizes[mode]}}
            spec = user_fn(features=features, **{k: v for k, v in values.items()
                                                 if k in names})
            return spec.as_estimator_spec() if isinstance(spec, TPUEstimatorSpec) else spec
        super().__init__(tpu_model_fn, model_dir=model_dir, config=config, params=params or {},
                         warm_start_from=warm_start_from)

    def _sized(self, input_fn, mode):
        names = fn_args(input_fn)

        def sized_input_fn(params, mode, config):
            values = {"mode": mode, "config": config,
                      "params": {**params, "batch_size": self._batch_sizes[mode]}}
            return input_fn(**{k: v for k, v in values.items() if k in names})
        return sized_input_fn

    def train(self, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None):
        if self._batch_sizes[ModeKeys.TRAIN] is None:
            raise ValueError("TPUEstimator.train: train_batch_size must be given to the "
                             "TPUEstimator")
        return super().train(self._sized(input_fn, ModeKeys.TRAIN), hooks=hooks, steps=steps,
                             max_steps=max_steps, saving_listeners=saving_listeners)

    def evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None):
        return super().evaluate(self._sized(input_fn, ModeKeys.EVAL), steps=steps, hooks=hooks,
                                checkpoint_path=checkpoint_path, name=name)

    def predict(self, input_fn, predict_keys=None, hooks=None, checkpoint_path=None,
                yield_single_examples=True):
        return super().predict(self._sized(input_fn, ModeKeys.PREDICT),
                               predict_keys=predict_keys, hooks=hooks,
                               checkpoint_path=checkpoint_path,
                               yield_single_examples=yield_single_examples)


__all__ = ["InputPipelineConfig", "RunConfig", "TPUConfig", "TPUEstimator",
           "TPUEstimatorSpec", "TPURunConfig"]
