"""Premade estimators (TF1 ``tf.estimator`` canned classes) on ``Estimator``.

Defaults as TF1: DNN uses Adagrad (learning rate 0.05), Linear uses Ftrl with learning rate
``min(0.2, 1/sqrt(len(feature_columns)))``, wide-and-deep uses Adagrad 0.001 for the deep
part and Ftrl ``min(0.005, 1/sqrt(n))`` for the wide part, Baseline uses Ftrl 0.3; the loss
is reduced with ``SUM`` over the batch.
"""
import math

from estimator_npu.engine.ops import nn_ops, state_ops
from estimator_npu.engine.graph import control_dependencies, get_default_graph
from estimator_npu.engine.ops.core import group
from estimator_npu.engine.variable_scope import variable_scope
from estimator_npu.estimator.canned import models
from estimator_npu.estimator.canned.head import make_head
from estimator_npu.estimator.canned.optimizers import get_optimizer
from estimator_npu.estimator.estimator import Estimator
from estimator_npu.losses.reduction import Reduction
from estimator_npu.train.training_util import get_global_step


def _single_train(opt_spec, lr):
    def train_op_fn(loss):
        return get_optimizer(opt_spec, lr).minimize(loss, global_step=get_global_step())
    return train_op_fn


def _cols(cols, what):
    cols = list(cols or [])
    if not cols:
        raise ValueError(f"{what} must be defined.")
    return cols


class _Canned(Estimator):
    """An Estimator whose model_fn builds ``logits_fn(features, mode, config)`` and the
    head inside variable scope ``scope`` (with ``partitioner(config)``) as TF's premade
    models do: their variables are partitioned (``dnn/logits/kernel/part_0``) and the
    optimizer runs inside the scope, so slots are ``dnn/dnn/logits/kernel/part_0/Adagrad``
    in the graph and ``dnn/logits/kernel/t_0/Adagrad`` in checkpoints, as in TF."""

    def __init__(self, logits_fn, train_fn_maker, head, model_dir, config, warm_start_from,
                 scope=None, partitioner=None):
        def model_fn(features, labels, mode, config):
            if not isinstance(features, dict):
                raise ValueError("features should be a dictionary of `Tensor`s. Given "
                                 f"type: {type(features)}")
            if scope is None:
                return self._spec(features, labels, mode, config, logits_fn, head,
                                  train_fn_maker)
            with variable_scope(scope, partitioner=partitioner(config) if partitioner
                                else None):
                return self._spec(features, labels, mode, config, logits_fn, head,
                                  train_fn_maker)
        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)

    @staticmethod
    def _spec(features, labels, mode, config, logits_fn, head, train_fn_maker):
        logits = logits_fn(features, mode, config)
        # TF builds the head inside the model's scope: Adam's beta1_power is
        # dnn/head/beta1_power under DNNClassifier
        with get_default_graph().name_scope("head"):
            return head.create_estimator_spec(features, mode, logits, labels,
                                              train_op_fn=train_fn_maker())


def _classifier_head(n_classes, weight_column, label_vocabulary, loss_reduction):
    if n_classes is None or n_classes < 2:
        raise ValueError(f"n_classes must be > 1 for classification: {n_classes}.")
    return make_head(n_classes, weight_column, label_vocabulary, loss_reduction)


class DNNClassifier(_Canned):
    def __init__(self, hidden_units, feature_columns, model_dir=None, n_classes=2,
                 weight_column=None, label_vocabulary=None, optimizer="Adagrad",
                 activation_fn=nn_ops.relu, dropout=None, input_layer_partitioner=None,
                 config=None, warm_start_from=None, loss_reduction=Reduction.SUM,
                 batch_norm=False):
        head = _classifier_head(n_classes, weight_column, label_vocabulary, loss_reduction)
        _dnn_init(self, head, hidden_units, feature_columns, optimizer, activation_fn,
                  dropout, batch_norm, input_layer_partitioner, model_dir, config,
                  warm_start_from)


class DNNRegressor(_Canned):
    def __init__(self, hidden_units, feature_columns, model_dir=None, label_dimension=1,
                 weight_column=None, optimizer="Adagrad", activation_fn=nn_ops.relu,
                 dropout=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction=Reduction.SUM, batch_norm=False):
        head = make_head(0, weight_column, None, loss_reduction, label_dimension)
        _dnn_init(self, head, hidden_units, feature_columns, optimizer, activation_fn,
                  dropout, batch_norm, input_layer_partitioner, model_dir, config,
                  warm_start_from)


def _dnn_init(self, head, hidden_units, feature_columns, optimizer, activation_fn, dropout,
              batch_norm, input_layer_partitioner, model_dir, config, warm_start_from):
    cols = _cols(feature_columns, "feature_columns")
    hidden = list(hidden_units)

    def logits_fn(features, mode, config):
        return models.dnn_logits(features, mode, hidden, cols, head.logits_dimension,
                                 activation_fn, dropout, batch_norm,
                                 input_layer_partitioner or
                                 models.default_partitioner(config, 64 << 20))
    _Canned.__init__(self, logits_fn, lambda: _single_train(optimizer, 0.05), head,
                     model_dir, config, warm_start_from, scope="dnn",
                     partitioner=models.default_partitioner)


def _linear_init(self, head, feature_columns, optimizer, sparse_combiner, partitioner,
                 model_dir, config, warm_start_from):
    cols = _cols(feature_columns, "feature_columns")
    lr = min(0.2, 1.0 / math.sqrt(len(cols)))

    def logits_fn(features, mode, config):
        return models.linear_logits(features, cols, head.logits_dimension, sparse_combiner)
    _Canned.__init__(self, logits_fn, lambda: _single_train(optimizer, lr), head,
                     model_dir, config, warm_start_from, scope="linear",
                     partitioner=lambda config: partitioner or models.default_partitioner(
                         config, 64 << 20))


class LinearClassifier(_Canned):
    def __init__(self, feature_columns, model_dir=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, optimizer="Ftrl", config=None, partitioner=None,
                 warm_start_from=None, loss_reduction=Reduction.SUM, sparse_combiner="sum"):
        head = _classifier_head(n_classes, weight_column, label_vocabulary, loss_reduction)
        _linear_init(self, head, feature_columns, optimizer, sparse_combiner, partitioner,
                     model_dir, config, warm_start_from)


class LinearRegressor(_Canned):
    def __init__(self, feature_columns, model_dir=None, label_dimension=1, weight_column=None,
                 optimizer="Ftrl", config=None, partitioner=None, warm_start_from=None,
                 loss_reduction=Reduction.SUM, sparse_combiner="sum"):
        head = make_head(0, weight_column, None, loss_reduction, label_dimension)
        _linear_init(self, head, feature_columns, optimizer, sparse_combiner, partitioner,
                     model_dir, config, warm_start_from)


def _combined_init(self, head, linear_feature_columns, linear_optimizer, dnn_feature_columns,
                   dnn_optimizer, dnn_hidden_units, dnn_activation_fn, dnn_dropout,
                   batch_norm, linear_sparse_combiner, input_layer_partitioner, model_dir,
                   config, warm_start_from):
    lin = list(linear_feature_columns or [])
    dnn = list(dnn_feature_columns or [])
    if not lin and not dnn:
        raise ValueError("Either linear_feature_columns or dnn_feature_columns must be "
                         "defined.")
    if dnn and not dnn_hidden_units:
        raise ValueError("dnn_hidden_units must be defined when dnn_feature_columns is "
                         f"specified. dnn_feature_columns: {dnn}")
    lin_lr = min(0.005, 1.0 / math.sqrt(len(lin))) if lin else 0.005

    def logits_fn(features, mode, config):
        # TF: the DNN in scope dnn (one part per variable), its input layer and the
        # linear model partitioned by input_layer_partitioner
        inputs = input_layer_partitioner or models.default_partitioner(config, 64 << 20)
        parts = []
        if dnn:
            with variable_scope("dnn", partitioner=models.default_partitioner(config)):
                parts.append(models.dnn_logits(features, mode, list(dnn_hidden_units), dnn,
                                               head.logits_dimension, dnn_activation_fn,
                                               dnn_dropout, batch_norm, inputs))
        if lin:
            with variable_scope("linear", partitioner=inputs):
                parts.append(models.linear_logits(features, lin, head.logits_dimension,
                                                  linear_sparse_combiner))
        return parts[0] + parts[1] if len(parts) == 2 else parts[0]

    def train_fn_maker():
        def train_op_fn(loss):
            ops = []
            if dnn:
                ops.append(get_optimizer(dnn_optimizer, 0.001).minimize(
                    loss, var_list=models.scope_vars("dnn")))
            if lin:
                ops.append(get_optimizer(linear_optimizer, lin_lr).minimize(
                    loss, var_list=models.scope_vars("linear")))
            with control_dependencies(ops):
                return group(state_ops.assign_add(get_global_step(), 1))
        return train_op_fn
    _Canned.__init__(self, logits_fn, train_fn_maker, head, model_dir, config,
                     warm_start_from)


class DNNLinearCombinedClassifier(_Canned):
    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None,
                 dnn_activation_fn=nn_ops.relu, dnn_dropout=None, n_classes=2,
                 weight_column=None, label_vocabulary=None, input_layer_partitioner=None,
                 config=None, warm_start_from=None, loss_reduction=Reduction.SUM,
                 batch_norm=False, linear_sparse_combiner="sum"):
        head = _classifier_head(n_classes, weight_column, label_vocabulary, loss_reduction)
        _combined_init(self, head, linear_feature_columns, linear_optimizer,
                       dnn_feature_columns, dnn_optimizer, dnn_hidden_units,
                       dnn_activation_fn, dnn_dropout, batch_norm, linear_sparse_combiner,
                       input_layer_partitioner, model_dir, config, warm_start_from)


class DNNLinearCombinedRegressor(_Canned):
    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None,
                 dnn_activation_fn=nn_ops.relu, dnn_dropout=None, label_dimension=1,
                 weight_column=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction=Reduction.SUM, batch_norm=False,
                 linear_sparse_combiner="sum"):
        head = make_head(0, weight_column, None, loss_reduction, label_dimension)
        _combined_init(self, head, linear_feature_columns, linear_optimizer,
                       dnn_feature_columns, dnn_optimizer, dnn_hidden_units,
                       dnn_activation_fn, dnn_dropout, batch_norm, linear_sparse_combiner,
                       input_layer_partitioner, model_dir, config, warm_start_from)


def _baseline_init(self, head, optimizer, model_dir, config):
    def logits_fn(features, mode, config):
        with variable_scope("baseline"):     # TF: the head outside, no partitioner
            return models.baseline_logits(features, head.logits_dimension)
    _Canned.__init__(self, logits_fn, lambda: _single_train(optimizer, 0.3), head,
                     model_dir, config, None)


class BaselineClassifier(_Canned):
    def __init__(self, model_dir=None, n_classes=2, weight_column=None, label_vocabulary=None,
                 optimizer="Ftrl", config=None, loss_reduction=Reduction.SUM):
        head = _classifier_head(n_classes, weight_column, label_vocabulary, loss_reduction)
        _baseline_init(self, head, optimizer, model_dir, config)


class BaselineRegressor(_Canned):
    def __init__(self, model_dir=None, label_dimension=1, weight_column=None,
                 optimizer="Ftrl", config=None, loss_reduction=Reduction.SUM):
        head = make_head(0, weight_column, None, loss_reduction, label_dimension)
        _baseline_init(self, head, optimizer, model_dir, config)
