"""``tf.contrib.tpu``: the names TPU-era Estimator scripts touch on their non-TPU path.

Google's BERT (and the ModelZoo BERTs built on it) read
``tf.contrib.tpu.InputPipelineConfig.PER_HOST_V2`` before deciding not to use a TPU, and
build ``TPUEstimatorSpec``s in some branches. There is no TPU here: ``InputPipelineConfig``
holds TF's constants, and ``TPUEstimatorSpec`` is TF's record with its
``as_estimator_spec()`` (``scaffold_fn`` called for the scaffold, ``eval_metrics =
(metric_fn, tensors)`` called for the metric ops), which is what TF's ``TPUEstimator``
uses when ``use_tpu=False``. ``host_call`` (an outfeed to the host each step) is not
implemented. Other names raise the usual "does not implement tf.contrib.tpu.X (yet)".
"""
import collections

from estimator_npu.compat.missing import NotImplementedName
from estimator_npu.estimator import EstimatorSpec


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


__all__ = ["InputPipelineConfig", "TPUEstimatorSpec"]
