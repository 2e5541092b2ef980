"""The logits of the premade models, with TF1's variable scopes and names."""
from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import GraphKeys, get_collection
from estimator_npu.engine.init_ops import glorot_uniform_initializer, zeros_initializer
from estimator_npu.engine.ops import array_ops, math_ops, nn_ops
from estimator_npu.engine.variable_scope import get_variable, variable_scope
from estimator_npu.feature_column import input_layer, linear_model
from estimator_npu.layers import functional as layers
from estimator_npu.partition.embedding import min_max_variable_partitioner
from estimator_npu.estimator.model_fn import ModeKeys


def default_partitioner(config, min_slice_size=None):
    """TF's partitioner of the premade models' scopes: at most ``num_ps_replicas`` parts
    (so one part, ``<var>/part_0``, without parameter servers)."""
    kwargs = {} if min_slice_size is None else {"min_slice_size": min_slice_size}
    return min_max_variable_partitioner(
        max_partitions=getattr(config, "num_ps_replicas", 0) if config else 0, **kwargs)


def dnn_logits(features, mode, hidden_units, feature_columns, logits_dimension,
               activation_fn=nn_ops.relu, dropout=None, batch_norm=False,
               input_layer_partitioner=None):
    """The DNN's logits, built inside the caller's ``dnn`` variable scope (TF's layout:
    ``dnn/input_from_feature_columns/...``, ``dnn/hiddenlayer_<i>``, ``dnn/logits``)."""
    training = mode == ModeKeys.TRAIN
    with variable_scope("input_from_feature_columns", partitioner=input_layer_partitioner):
        net = input_layer(features, feature_columns)
    for i, units in enumerate(hidden_units):
        net = layers.dense(net, units, activation=activation_fn,
                           kernel_initializer=glorot_uniform_initializer(),
                           name=f"hiddenlayer_{i}")
        if dropout is not None and training:
            net = layers.dropout(net, rate=dropout, training=True)
        if batch_norm:
            with variable_scope(f"hiddenlayer_{i}"):
                net = layers.batch_normalization(net, momentum=0.999, training=training,
                                                 name=f"batchnorm_{i}")
    return layers.dense(net, logits_dimension, activation=None,
                        kernel_initializer=glorot_uniform_initializer(), name="logits")


def linear_logits(features, feature_columns, logits_dimension, sparse_combiner="sum"):
    """The linear model's logits, inside the caller's ``linear`` variable scope."""
    return linear_model(features, feature_columns, units=logits_dimension,
                        sparse_combiner=sparse_combiner)


def _batch_size(features):
    for key in sorted(features):
        from estimator_npu.engine.ops.core import convert_to_tensor
        t = convert_to_tensor(features[key])
        return array_ops.shape(t)[0]
    raise ValueError("features must not be empty (the baseline reads the batch size).")


def baseline_logits(features, logits_dimension):
    """The baseline's bias (``baseline/bias``), inside the caller's ``baseline`` scope."""
    bias = get_variable("bias", shape=[logits_dimension], dtype=dtypes.float32,
                        initializer=zeros_initializer())
    ones = array_ops.ones(array_ops.stack([_batch_size(features), 1]), dtypes.float32)
    return math_ops.multiply(ones, array_ops.expand_dims(bias, 0))


def scope_vars(prefix):
    return [v for v in get_collection(GraphKeys.TRAINABLE_VARIABLES)
            if v.op.name.startswith(prefix + "/")]
