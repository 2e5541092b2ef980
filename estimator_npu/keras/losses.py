"""``tf.keras.losses``: per-example losses ``fn(y_true, y_pred)`` (the mean over the last
axis where Keras takes it) and the loss classes, which reduce them (mean over the batch,
``SUM_OVER_BATCH_SIZE``). The cross-entropies of a ``softmax``/``sigmoid`` output work
from its logits, as Keras does; otherwise from the probabilities clipped to
``[epsilon, 1 - epsilon]``."""
from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops, math_ops, nn_ops
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.keras import backend

_IMPORTED = set(globals())


def _pair(y_true, y_pred):
    y_pred = convert_to_tensor(y_pred)
    y_true = math_ops.cast(convert_to_tensor(y_true), y_pred.dtype)
    return y_true, y_pred


def mean_squared_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return math_ops.reduce_mean(math_ops.squared_difference(y_pred, y_true), -1)


def mean_absolute_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return math_ops.reduce_mean(math_ops.abs(y_pred - y_true), -1)


def mean_absolute_percentage_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    diff = math_ops.abs((y_true - y_pred) / math_ops.maximum(math_ops.abs(y_true),
                                                              backend.epsilon()))
    return 100.0 * math_ops.reduce_mean(diff, -1)


def mean_squared_logarithmic_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    a = math_ops.log(math_ops.maximum(y_pred, backend.epsilon()) + 1.0)
    b = math_ops.log(math_ops.maximum(y_true, backend.epsilon()) + 1.0)
    return math_ops.reduce_mean(math_ops.squared_difference(a, b), -1)


def _clipped(p):
    eps = backend.epsilon()
    return math_ops.clip_by_value(p, eps, 1.0 - eps)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0):
    y_true, y_pred = _pair(y_true, y_pred)
    if label_smoothing:
        n = math_ops.cast(array_ops.shape(y_true)[-1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / n
    logits = y_pred if from_logits else backend.logits_of(y_pred)
    if logits is not None:
        return nn_ops.softmax_cross_entropy_with_logits_v2(labels=y_true, logits=logits)
    p = y_pred / math_ops.reduce_sum(y_pred, -1, keepdims=True)
    return -math_ops.reduce_sum(y_true * math_ops.log(_clipped(p)), -1)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1):
    y_pred = convert_to_tensor(y_pred)
    labels = convert_to_tensor(y_true)
    if labels.shape.ndims is not None and y_pred.shape.ndims is not None and \
            labels.shape.ndims == y_pred.shape.ndims:
        labels = array_ops.squeeze(labels, [-1])
    elif labels.shape.ndims is None:
        labels = array_ops.reshape(labels, array_ops.shape(y_pred)[:-1])
    labels = math_ops.cast(labels, dtypes.int64)
    logits = y_pred if from_logits else backend.logits_of(y_pred)
    if logits is None:
        logits = math_ops.log(_clipped(y_pred))
    return nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0):
    y_true, y_pred = _pair(y_true, y_pred)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    logits = y_pred if from_logits else backend.logits_of(y_pred)
    if logits is not None:
        per = nn_ops.sigmoid_cross_entropy_with_logits(labels=y_true, logits=logits)
    else:
        eps = backend.epsilon()
        p = _clipped(y_pred)
        per = -(y_true * math_ops.log(p + eps) + (1.0 - y_true) * math_ops.log(1.0 - p + eps))
    return math_ops.reduce_mean(per, -1)


def hinge(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return math_ops.reduce_mean(math_ops.maximum(1.0 - y_true * y_pred, 0.0), -1)


def squared_hinge(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return math_ops.reduce_mean(math_ops.square(math_ops.maximum(1.0 - y_true * y_pred,
                                                                 0.0)), -1)


def kullback_leibler_divergence(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    t, p = _clipped(y_true), _clipped(y_pred)
    return math_ops.reduce_sum(t * math_ops.log(t / p), -1)


def poisson(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return math_ops.reduce_mean(y_pred - y_true * math_ops.log(y_pred + backend.epsilon()),
                                -1)


def logcosh(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    x = y_pred - y_true
    return math_ops.reduce_mean(x + nn_ops.softplus(-2.0 * x) - 0.6931471805599453, -1)


def cosine_similarity(y_true, y_pred, axis=-1):
    y_true, y_pred = _pair(y_true, y_pred)
    return -math_ops.reduce_sum(nn_ops.l2_normalize(y_true, axis) *
                                nn_ops.l2_normalize(y_pred, axis), axis)


def huber(y_true, y_pred, delta=1.0):
    y_true, y_pred = _pair(y_true, y_pred)
    err = math_ops.abs(y_pred - y_true)
    quad = math_ops.minimum(err, delta)
    return math_ops.reduce_mean(0.5 * quad * quad + delta * (err - quad), -1)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kl_divergence = kullback_leibler_divergence
cosine = cosine_proximity = cosine_similarity


class Reduction:
    NONE, SUM, SUM_OVER_BATCH_SIZE, AUTO = "none", "sum", "sum_over_batch_size", "auto"


class Loss:
    """A loss object: ``loss(y_true, y_pred, sample_weight=None)`` -> a scalar (the mean
    of the weighted per-example losses over the batch)."""

    def __init__(self, reduction=Reduction.AUTO, name=None):
        self.reduction, self.name = reduction, name

    def call(self, y_true, y_pred):
        raise NotImplementedError

    def __call__(self, y_true, y_pred, sample_weight=None):
        per = self.call(y_true, y_pred)
        if sample_weight is not None:
            per = per * math_ops.cast(sample_weight, per.dtype)
        if self.reduction == Reduction.NONE:
            return per
        total = math_ops.reduce_sum(per)
        if self.reduction == Reduction.SUM:
            return total
        return total / math_ops.cast(array_ops.size(per), per.dtype)

    def get_config(self):
        return {"reduction": self.reduction, "name": self.name}


def _loss_class(fn, class_name):
    def __init__(self, reduction=Reduction.AUTO, name=None, **kwargs):
        Loss.__init__(self, reduction, name or fn.__name__)
        self._kwargs = kwargs

    def call(self, y_true, y_pred):
        return fn(y_true, y_pred, **self._kwargs)

    def get_config(self):  # TF 2.15's: reduction, name, the function's name, its kwargs
        return dict(Loss.get_config(self), fn=fn.__name__, **self._kwargs)

    return type(class_name, (Loss,), {"__init__": __init__, "call": call, "fn": fn,
                                      "get_config": get_config,
                                      "__doc__": f"``{fn.__name__}`` as a loss object."})


MeanSquaredError = _loss_class(mean_squared_error, "MeanSquaredError")
MeanAbsoluteError = _loss_class(mean_absolute_error, "MeanAbsoluteError")
MeanAbsolutePercentageError = _loss_class(mean_absolute_percentage_error,
                                          "MeanAbsolutePercentageError")
MeanSquaredLogarithmicError = _loss_class(mean_squared_logarithmic_error,
                                          "MeanSquaredLogarithmicError")
CategoricalCrossentropy = _loss_class(categorical_crossentropy, "CategoricalCrossentropy")
SparseCategoricalCrossentropy = _loss_class(sparse_categorical_crossentropy,
                                            "SparseCategoricalCrossentropy")
BinaryCrossentropy = _loss_class(binary_crossentropy, "BinaryCrossentropy")
Hinge = _loss_class(hinge, "Hinge")
SquaredHinge = _loss_class(squared_hinge, "SquaredHinge")
KLDivergence = _loss_class(kullback_leibler_divergence, "KLDivergence")
Poisson = _loss_class(poisson, "Poisson")
LogCosh = _loss_class(logcosh, "LogCosh")
CosineSimilarity = _loss_class(cosine_similarity, "CosineSimilarity")
Huber = _loss_class(huber, "Huber")

_BY_NAME = {f.__name__: f for f in (
    mean_squared_error, mean_absolute_error, mean_absolute_percentage_error,
    mean_squared_logarithmic_error, categorical_crossentropy,
    sparse_categorical_crossentropy, binary_crossentropy, hinge, squared_hinge,
    kullback_leibler_divergence, poisson, logcosh, cosine_similarity, huber)}
_BY_NAME.update(mse=mse, mae=mae, mape=mape, msle=msle, kld=kld, cosine=cosine,
                cosine_proximity=cosine_similarity, kl_divergence=kld)


def get(identifier):
    """A per-example loss function (or a ``Loss`` object) from a name or a callable."""
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Unknown loss function: {identifier!r}; known: "
                             f"{sorted(_BY_NAME)}")
        return _BY_NAME[identifier]
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss function identifier: {identifier!r}")


def serialize(loss):
    return getattr(loss, "__name__", type(loss).__name__)

__all__ = sorted(n for n in set(globals()) - _IMPORTED if not n.startswith("_"))
