"""TF1 canned heads: loss, predictions, eval metrics and train op of premade estimators.

Binary classification (sigmoid cross entropy, ``logits_dimension`` 1), multi-class (sparse
softmax cross entropy) and regression (squared error). The training loss is the weighted
per-example loss reduced by ``loss_reduction`` (TF1 canned default ``SUM``); ``average_loss``
is its weighted mean. Metric and prediction keys are TF's.
"""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import GraphKeys, control_dependencies, get_collection
from estimator_npu.engine.ops import array_ops, math_ops, nn_ops
from estimator_npu.engine.ops.core import convert_to_tensor, group, identity
from estimator_npu.engine.ops.script_ops import py_func
from estimator_npu.estimator import metrics as M
from estimator_npu.estimator.model_fn import EstimatorSpec, ModeKeys
from estimator_npu.losses.reduction import Reduction


def _to_2d(t):
    t = convert_to_tensor(t)
    if t.shape.ndims == 1:
        return array_ops.expand_dims(t, -1)
    return t


def _strings(ids, names):
    table = np.array([n.encode() if isinstance(n, str) else n for n in names], dtype=object)
    return py_func(lambda a: table[np.asarray(a)], [ids], dtypes.string, stateful=False,
                   name="str_classes")


class _Head:
    def __init__(self, n_classes, weight_column=None, label_vocabulary=None,
                 loss_reduction=Reduction.SUM, label_dimension=1):
        if loss_reduction not in (Reduction.SUM, Reduction.SUM_OVER_BATCH_SIZE,
                                  Reduction.MEAN, Reduction.SUM_BY_NONZERO_WEIGHTS,
                                  Reduction.SUM_OVER_NONZERO_WEIGHTS):
            raise ValueError(f"Invalid loss_reduction: {loss_reduction!r}")
        self.n_classes = n_classes
        self.weight_column = weight_column
        self.label_vocabulary = list(label_vocabulary) if label_vocabulary else None
        self.loss_reduction = loss_reduction
        self.label_dimension = label_dimension

    @property
    def logits_dimension(self):
        if self.n_classes == 0:
            return self.label_dimension
        return 1 if self.n_classes == 2 else self.n_classes

    # -------------------------------------------------------------- inputs
    def _weights(self, features):
        if self.weight_column is None:
            return None
        key = getattr(self.weight_column, "key", self.weight_column)
        if key not in features:
            raise ValueError(f"weight_column {key!r} is not in features dictionary "
                             f"(keys {sorted(features)}).")
        return math_ops.cast(_to_2d(features[key]), dtypes.float32)

    def _labels(self, labels):
        if labels is None:
            raise ValueError("You must provide a labels Tensor. Given: None.")
        labels = _to_2d(labels)
        if self.n_classes == 0:
            return math_ops.cast(labels, dtypes.float32)
        if self.label_vocabulary is not None:
            if labels.dtype != dtypes.string:
                raise ValueError("Labels dtype should be string if there is a vocabulary. "
                                 f"Given: {labels.dtype.name}")
            index = {v: i for i, v in enumerate(self.label_vocabulary)}

            def look(a):
                out = np.empty(a.shape, np.int64)
                for i, v in np.ndenumerate(a):
                    s = v.decode() if isinstance(v, bytes) else str(v)
                    if s not in index:
                        raise ValueError(f"Label {s!r} is not in label_vocabulary "
                                         f"{self.label_vocabulary}")
                    out[i] = index[s]
                return out
            return py_func(look, [labels], dtypes.int64, stateful=False, name="label_lookup")
        if labels.dtype == dtypes.string:
            raise ValueError("Labels dtype should be integer when label_vocabulary is not "
                             "given; got string labels.")
        n = self.n_classes

        def check(a):
            a = np.asarray(a).astype(np.int64)
            if a.size and (a.min() < 0 or a.max() >= n):
                raise ValueError(f"Labels must be in [0, n_classes={n}), got values "
                                 f"{sorted(set(a.ravel().tolist()))[:10]}")
            return a
        return py_func(check, [labels], dtypes.int64, stateful=False, name="label_check")

    def _unreduced(self, logits, labels):
        if self.n_classes == 0:
            return math_ops.square(logits - labels)
        if self.n_classes == 2:
            return nn_ops.sigmoid_cross_entropy_with_logits(
                labels=math_ops.cast(labels, dtypes.float32), logits=logits)
        flat = array_ops.reshape(labels, [-1])
        return array_ops.expand_dims(nn_ops.sparse_softmax_cross_entropy_with_logits(
            labels=flat, logits=logits), -1)

    def _reduce(self, unreduced, weights):
        weighted = unreduced if weights is None else unreduced * weights
        total = math_ops.reduce_sum(weighted)
        r = self.loss_reduction
        if r == Reduction.SUM:
            return total
        if r in (Reduction.SUM_OVER_BATCH_SIZE,):
            return total / math_ops.cast(array_ops.size(weighted), dtypes.float32)
        w = array_ops.ones_like(unreduced) if weights is None else weights * \
            array_ops.ones_like(unreduced)
        if r == Reduction.MEAN:
            return total / math_ops.reduce_sum(w)
        nz = math_ops.reduce_sum(math_ops.cast(math_ops.not_equal(w, 0.0), dtypes.float32))
        return total / math_ops.maximum(nz, 1.0)

    # -------------------------------------------------------------- outputs
    def predictions(self, logits):
        if self.n_classes == 0:
            return {"predictions": logits}
        names = self.label_vocabulary or [str(i) for i in range(self.n_classes)]
        batch = array_ops.shape(logits)[0]
        all_ids = array_ops.tile(array_ops.expand_dims(
            array_ops.range(self.n_classes, dtype=dtypes.int64), 0), [batch, 1])
        if self.n_classes == 2:
            logistic = math_ops.sigmoid(logits)
            probs = array_ops.concat([1.0 - logistic, logistic], axis=1)
            out = {"logits": logits, "logistic": logistic}
        else:
            probs = nn_ops.softmax(logits)
            out = {"logits": logits}
        class_ids = array_ops.expand_dims(math_ops.argmax(probs, axis=1), -1)
        out.update({"probabilities": probs, "class_ids": class_ids,
                    "classes": _strings(class_ids, names),
                    "all_class_ids": math_ops.cast(all_ids, dtypes.int32),
                    "all_classes": _strings(all_ids, names)})
        return out

    def _metrics(self, preds, labels, unreduced, weights):
        out = {"average_loss": M.mean(unreduced, weights=weights)}
        if self.n_classes == 0:
            out["label/mean"] = M.mean(labels, weights=weights)
            out["prediction/mean"] = M.mean(preds["predictions"], weights=weights)
            return out
        out["accuracy"] = M.accuracy(labels, preds["class_ids"], weights=weights)
        if self.n_classes == 2:
            lf = math_ops.cast(labels, dtypes.float32)
            label_mean = M.mean(lf, weights=weights)
            out["label/mean"] = label_mean
            out["accuracy_baseline"] = (
                math_ops.maximum(label_mean[0], 1.0 - label_mean[0]),
                math_ops.maximum(label_mean[1], 1.0 - label_mean[1]))
            out["prediction/mean"] = M.mean(preds["logistic"], weights=weights)
            out["auc"] = M.auc(lf, preds["logistic"], weights=weights)
            out["auc_precision_recall"] = M.auc(lf, preds["logistic"], weights=weights,
                                                curve="PR")
            out["precision"] = M.precision(labels, preds["class_ids"], weights=weights)
            out["recall"] = M.recall(labels, preds["class_ids"], weights=weights)
        return out

    def create_estimator_spec(self, features, mode, logits, labels=None, train_op_fn=None):
        logits = _to_2d(logits)
        preds = self.predictions(logits)
        if mode == ModeKeys.PREDICT:
            return EstimatorSpec(mode, predictions=preds)
        labels = self._labels(labels)
        weights = self._weights(features)
        unreduced = self._unreduced(logits, labels)
        loss = self._reduce(unreduced, weights)
        if mode == ModeKeys.EVAL:
            return EstimatorSpec(mode, loss=loss, predictions=preds,
                                 eval_metric_ops=self._metrics(preds, labels, unreduced,
                                                               weights))
        reg = get_collection(GraphKeys.REGULARIZATION_LOSSES)
        if reg:
            loss = loss + math_ops.add_n(reg)
        with control_dependencies(get_collection(GraphKeys.UPDATE_OPS)):
            train_op = train_op_fn(loss)
        return EstimatorSpec(mode, loss=identity(loss), predictions=preds,
                             train_op=group(train_op))


def make_head(n_classes, weight_column, label_vocabulary, loss_reduction, label_dimension=1):
    if n_classes != 0:
        if n_classes is None or n_classes < 2:
            raise ValueError(f"n_classes must be > 1 for classification: {n_classes}.")
        if label_vocabulary is not None and len(label_vocabulary) != n_classes:
            raise ValueError(f"label_vocabulary has {len(label_vocabulary)} entries but "
                             f"n_classes is {n_classes}.")
    return _Head(n_classes, weight_column, label_vocabulary, loss_reduction, label_dimension)
