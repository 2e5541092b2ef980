"""``tf.keras.metrics``: per-example metric functions ``fn(y_true, y_pred)``, what
``compile(metrics=[...])`` resolves names to (``'accuracy'``/``'acc'`` by the loss and
output shape, as Keras does), and a few metric classes usable in ``compile``.

``fit``/``evaluate`` report each metric as its mean over all examples seen so far in the
epoch (Keras's stateful metrics)."""
from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops, math_ops, nn_ops
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.keras import backend, losses as _losses

_IMPORTED = set(globals())


def _f(x):
    return math_ops.cast(x, backend.floatx())


def binary_accuracy(y_true, y_pred, threshold=0.5):
    y_pred = convert_to_tensor(y_pred)
    y_true = math_ops.cast(y_true, y_pred.dtype)
    hit = math_ops.equal(y_true, math_ops.cast(math_ops.greater(y_pred, threshold),
                                               y_pred.dtype))
    return math_ops.reduce_mean(_f(hit), -1)


def categorical_accuracy(y_true, y_pred):
    return _f(math_ops.equal(math_ops.argmax(y_true, -1), math_ops.argmax(y_pred, -1)))


def sparse_categorical_accuracy(y_true, y_pred):
    y_pred = convert_to_tensor(y_pred)
    y_true = convert_to_tensor(y_true)
    if y_true.shape.ndims is not None and y_true.shape.ndims == y_pred.shape.ndims:
        y_true = array_ops.squeeze(y_true, [-1])
    elif y_true.shape.ndims is None:
        y_true = array_ops.reshape(y_true, array_ops.shape(y_pred)[:-1])
    pred = math_ops.cast(math_ops.argmax(y_pred, -1), dtypes.float32)
    return _f(math_ops.equal(math_ops.cast(y_true, dtypes.float32), pred))


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    return _f(nn_ops.in_top_k(y_pred, math_ops.argmax(y_true, -1), k))


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    y_true = convert_to_tensor(y_true)
    if y_true.shape.ndims == 2:
        y_true = array_ops.squeeze(y_true, [-1])
    return _f(nn_ops.in_top_k(y_pred, math_ops.cast(y_true, dtypes.int32), k))


def accuracy(y_true, y_pred):
    y_pred = convert_to_tensor(y_pred)
    return _f(math_ops.equal(math_ops.cast(y_true, y_pred.dtype), y_pred))


mean_squared_error = mse = MSE = _losses.mean_squared_error
mean_absolute_error = mae = MAE = _losses.mean_absolute_error
mean_absolute_percentage_error = mape = MAPE = _losses.mean_absolute_percentage_error
mean_squared_logarithmic_error = msle = MSLE = _losses.mean_squared_logarithmic_error
categorical_crossentropy = _losses.categorical_crossentropy
sparse_categorical_crossentropy = _losses.sparse_categorical_crossentropy
binary_crossentropy = _losses.binary_crossentropy
hinge, squared_hinge = _losses.hinge, _losses.squared_hinge
kullback_leibler_divergence = kld = _losses.kullback_leibler_divergence
poisson, logcosh = _losses.poisson, _losses.logcosh
cosine_proximity = _losses.cosine_similarity

_BY_NAME = {f.__name__: f for f in (
    binary_accuracy, categorical_accuracy, sparse_categorical_accuracy,
    top_k_categorical_accuracy, sparse_top_k_categorical_accuracy)}
for _name in ("mse", "mae", "mape", "msle", "mean_squared_error", "mean_absolute_error",
              "mean_absolute_percentage_error", "mean_squared_logarithmic_error",
              "categorical_crossentropy", "sparse_categorical_crossentropy",
              "binary_crossentropy", "hinge", "squared_hinge", "kld", "poisson", "logcosh",
              "cosine_proximity", "kullback_leibler_divergence"):
    _BY_NAME[_name] = globals()[_name]


def resolve(identifier, loss_fn, output):
    """``(display name, per-example function)`` of one ``compile(metrics=...)`` entry for
    the output ``output`` trained with ``loss_fn``."""
    if isinstance(identifier, MeanMetricWrapper):
        return identifier.name, identifier.fn
    if callable(identifier):
        return getattr(identifier, "__name__", type(identifier).__name__), identifier
    name = identifier
    if name in ("accuracy", "acc", "crossentropy", "ce"):
        loss_name = getattr(loss_fn, "__name__", "") or getattr(getattr(loss_fn, "fn", None),
                                                                 "__name__", "")
        last = output.shape.values[-1] if output.shape.ndims else None
        if "sparse_categorical" in loss_name:
            kind = "sparse_categorical"
        elif "binary" in loss_name or last == 1:
            kind = "binary"
        else:
            kind = "categorical"
        fn = _BY_NAME[kind + ("_accuracy" if name in ("accuracy", "acc") else
                              "_crossentropy")]
        # TF1's graph-mode Keras reports 'accuracy' as 'acc' and 'crossentropy' as 'ce'
        return ("acc" if name in ("accuracy", "acc") else "ce"), fn
    if name not in _BY_NAME:
        raise ValueError(f"Unknown metric function: {name!r}; known: "
                         f"{sorted(_BY_NAME) + ['accuracy', 'acc']}")
    fn = _BY_NAME[name]
    return fn.__name__, fn


class MeanMetricWrapper:
    """A named per-example metric for ``compile(metrics=[...])``."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        self.fn = (lambda t, p: fn(t, p, **kwargs)) if kwargs else fn
        self.name = name or fn.__name__
        self._kwargs = kwargs

    def get_config(self):
        return dict({"name": self.name, "dtype": "float32"}, **self._kwargs)


def _metric_class(fn, class_name, default_name):
    def __init__(self, name=default_name, dtype=None, **kwargs):
        MeanMetricWrapper.__init__(self, fn, name, dtype, **kwargs)
    return type(class_name, (MeanMetricWrapper,), {"__init__": __init__})


Accuracy = _metric_class(accuracy, "Accuracy", "accuracy")
BinaryAccuracy = _metric_class(binary_accuracy, "BinaryAccuracy", "binary_accuracy")
CategoricalAccuracy = _metric_class(categorical_accuracy, "CategoricalAccuracy",
                                    "categorical_accuracy")
SparseCategoricalAccuracy = _metric_class(sparse_categorical_accuracy,
                                          "SparseCategoricalAccuracy",
                                          "sparse_categorical_accuracy")
TopKCategoricalAccuracy = _metric_class(top_k_categorical_accuracy,
                                        "TopKCategoricalAccuracy",
                                        "top_k_categorical_accuracy")
MeanSquaredError = _metric_class(mean_squared_error, "MeanSquaredError",
                                 "mean_squared_error")
MeanAbsoluteError = _metric_class(mean_absolute_error, "MeanAbsoluteError",
                                  "mean_absolute_error")


def get(identifier):
    if callable(identifier):
        return identifier
    return resolve(identifier, None, convert_to_tensor([[0.0, 0.0]]))[1]

__all__ = sorted(n for n in set(globals()) - _IMPORTED if not n.startswith("_"))
