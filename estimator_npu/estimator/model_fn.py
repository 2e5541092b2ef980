"""``EstimatorSpec`` (what a ``model_fn`` returns, checked per mode) and ``ModeKeys``.

    def model_fn(features, labels, mode, params):
        logits = ...
        if mode == ModeKeys.PREDICT:
            return EstimatorSpec(mode, predictions={"logits": logits})
        loss = ...
        train_op = optimizer.minimize(loss, global_step=train.get_global_step())
        return EstimatorSpec(mode, loss=loss, train_op=train_op,
                             eval_metric_ops={"accuracy": metrics.accuracy(labels, pred)})

TRAIN needs ``loss`` and ``train_op``, EVAL needs ``loss``, PREDICT needs ``predictions``.
"""
import collections

from estimator_npu.engine.graph import Operation, Tensor, get_default_graph
from estimator_npu.hooks.scaffold import Scaffold
from estimator_npu.hooks.session_run_hook import SessionRunHook

LOSS_METRIC_KEY = "loss"
AVERAGE_LOSS_METRIC_KEY = "average_loss"


class ModeKeys:
    """The three modes a ``model_fn`` is called in."""

    TRAIN = "train"
    EVAL = "eval"
    PREDICT = "infer"


_MODES = (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT)
_FIELDS = ["mode", "predictions", "loss", "train_op", "eval_metric_ops", "export_outputs",
           "training_chief_hooks", "training_hooks", "scaffold", "evaluation_hooks",
           "prediction_hooks"]


def _as_tensor(value):
    if isinstance(value, Tensor):
        return value
    conv = getattr(value, "_as_tensor", None)
    return conv() if conv is not None else None


def _check_graph(name, element):
    if element.graph is not get_default_graph():
        raise ValueError(f"{name} must be from the default graph, got {element.name} of "
                         "another graph.")


def _check_loss(loss):
    tensor = _as_tensor(loss)
    if tensor is None:
        raise TypeError(f"loss must be a Tensor, given: {loss!r}")
    _check_graph("loss", tensor)
    dims = tensor.shape.values
    if dims is not None and not (len(dims) == 0 or (len(dims) == 1 and dims[0] in (1, None))):
        raise ValueError(f"Loss must be scalar, given: {tensor.shape} ({tensor.name})")
    return tensor


def _check_predictions(predictions):
    if isinstance(predictions, dict):
        out = {}
        for key, value in predictions.items():
            tensor = _as_tensor(value)
            if tensor is None:
                raise TypeError(f"predictions[{key!r}] must be Tensor, given: {value!r}")
            _check_graph(f"predictions[{key!r}]", tensor)
            out[key] = tensor
        return out
    tensor = _as_tensor(predictions)
    if tensor is None:
        raise TypeError(f"predictions must be Tensor or dict of Tensor, given: {predictions!r}")
    _check_graph("predictions", tensor)
    return tensor


def _check_train_op(train_op):
    element = train_op if isinstance(train_op, Operation) else _as_tensor(train_op)
    if element is None:
        raise TypeError(f"train_op must be Operation or Tensor, given: {train_op!r}")
    _check_graph("train_op", element)
    return element


def _check_metric_ops(eval_metric_ops):
    if not isinstance(eval_metric_ops, dict):
        raise TypeError(f"eval_metric_ops must be a dict, given: {eval_metric_ops!r}")
    out = {}
    for key, value in eval_metric_ops.items():
        if not isinstance(value, tuple) or len(value) != 2:
            raise TypeError("Values of eval_metric_ops must be (metric_value, update_op) "
                            f"tuples, given: {value!r} for key: {key!r}")
        metric_value, update_op = value
        tensor = _as_tensor(metric_value)
        if tensor is None:
            raise TypeError(f"eval_metric_ops[{key!r}] metric_value must be a Tensor, given: "
                            f"{metric_value!r}")
        op = update_op if isinstance(update_op, Operation) else _as_tensor(update_op)
        if op is None:
            raise TypeError(f"eval_metric_ops[{key!r}] update_op must be a Tensor or "
                            f"Operation, given: {update_op!r}")
        _check_graph(f"eval_metric_ops[{key!r}]", tensor)
        out[key] = (tensor, op)
    return out


def _check_hooks(name, hooks):
    hooks = tuple(hooks or ())
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError(f"All hooks must be SessionRunHook instances, given: {hook!r} "
                            f"in {name}")
    return hooks


class EstimatorSpec(collections.namedtuple("EstimatorSpec", _FIELDS)):
    """The ops and objects a ``model_fn`` returns, validated for ``mode`` on construction.

    Raises:
        ValueError: ``mode`` is not a ``ModeKeys`` value; a field the mode needs is missing
            (TRAIN: ``loss``, ``train_op``; EVAL: ``loss``; PREDICT: ``predictions``); the
            loss is not a scalar; a tensor is from another graph.
        TypeError: a field of the wrong type.
    """

    __slots__ = ()

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metric_ops=None,
                export_outputs=None, training_chief_hooks=None, training_hooks=None,
                scaffold=None, evaluation_hooks=None, prediction_hooks=None):
        if mode not in _MODES:
            raise ValueError(f"mode must be one of {list(_MODES)} (ModeKeys), given: {mode!r}")
        if mode == ModeKeys.TRAIN and loss is None:
            raise ValueError("Missing loss: an EstimatorSpec for TRAIN needs loss.")
        if mode == ModeKeys.TRAIN and train_op is None:
            raise ValueError("Missing train_op: an EstimatorSpec for TRAIN needs train_op.")
        if mode == ModeKeys.EVAL and loss is None:
            raise ValueError("Missing loss: an EstimatorSpec for EVAL needs loss.")
        if mode == ModeKeys.PREDICT and predictions is None:
            raise ValueError("Missing predictions: an EstimatorSpec for PREDICT needs "
                             "predictions.")
        if loss is not None:
            loss = _check_loss(loss)
        if predictions is not None:
            predictions = _check_predictions(predictions)
        if train_op is not None:
            train_op = _check_train_op(train_op)
        eval_metric_ops = _check_metric_ops(eval_metric_ops or {})
        if scaffold is not None and not isinstance(scaffold, Scaffold):
            raise TypeError(f"scaffold must be tf.train.Scaffold. Given: {scaffold!r}")
        return super().__new__(
            cls, mode, predictions, loss, train_op, eval_metric_ops, export_outputs,
            _check_hooks("training_chief_hooks", training_chief_hooks),
            _check_hooks("training_hooks", training_hooks), scaffold or Scaffold(),
            _check_hooks("evaluation_hooks", evaluation_hooks),
            _check_hooks("prediction_hooks", prediction_hooks))

    def _replace(self, **kwargs):
        return EstimatorSpec(**{**self._asdict(), **kwargs})
