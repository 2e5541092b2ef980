"""``tf.keras.estimator.model_to_estimator``: an Estimator that trains, evaluates and
predicts with a compiled Sequential or functional Keras model.

Its ``model_fn`` rebuilds the model's layers (fresh copies with the same names, so the same
variable names) on the input_fn's features (a tensor, or a dict keyed by the model's input
names), takes the compiled losses against the labels (a tensor, or a dict keyed by the
output names), and minimizes them with the compiled optimizer; EVAL reports the compiled
metrics as ``tf.metrics.mean`` values; PREDICT returns ``{output name: tensor}``. The
Keras model's current weights are saved to ``<model_dir>/keras/keras_model.ckpt`` and the
Estimator warm-starts from them (when its model_dir has no checkpoint yet).
"""
import copy
import os
import tempfile

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import control_dependencies
from estimator_npu.engine.ops import math_ops
from estimator_npu.engine.ops.core import group, identity
from estimator_npu.estimator.estimator import Estimator
from estimator_npu.estimator.metrics import mean as metric_mean
from estimator_npu.estimator.model_fn import EstimatorSpec, ModeKeys
from estimator_npu.hooks.scaffold import Scaffold
from estimator_npu.keras import backend, metrics as metrics_mod
from estimator_npu.keras.engine.compiled import CompiledGraph
from estimator_npu.keras.engine.input_layer import Input
from estimator_npu.keras.engine.sequential import Sequential
from estimator_npu.keras.engine.training import Model
from estimator_npu.keras.optimizers import TFOptimizerWrapper
from estimator_npu.train.saver import Saver
from estimator_npu.train.training_util import get_or_create_global_step
from estimator_npu.utils import nest


def _fresh(layer):
    new = copy.copy(layer)
    object.__setattr__(new, "_sublayers", [_fresh(s) for s in layer._sublayers])
    new.built, new._scope = False, None
    new._trainable_weights, new._non_trainable_weights = [], []
    new._updates, new._losses, new._constraints, new._inbound_nodes = [], [], [], []
    return new


def _clone_on(model, features):
    """``(outputs, clone)``: the model's layers, copied, applied to ``features``."""
    names = model.input_names
    if isinstance(features, dict):
        missing = [n for n in names if n not in features]
        if missing:
            raise KeyError(f"model_to_estimator: the features lack the model's inputs "
                           f"{missing} (features: {sorted(features)})")
        given = [features[n] for n in names]
    else:
        given = list(features) if isinstance(features, (list, tuple)) else [features]
    inputs = []
    for name, t, orig in zip(names, given, model.inputs):
        t = math_ops.cast(t, orig.dtype) if t.dtype != orig.dtype else t
        inputs.append(Input(tensor=t, name=name))
    if isinstance(model, Sequential):
        x = inputs[0]
        layers = [_fresh(layer) for layer in model.layers]
        for layer in layers:
            x = layer(x)
        clone = Model(inputs[0], x, name=model.name)
    else:
        mapping = {}
        for node in model._network_nodes:
            if not getattr(node.layer, "is_placeholder", False) and \
                    id(node.layer) not in mapping:
                mapping[id(node.layer)] = _fresh(node.layer)
        tensors = {id(a): b for a, b in zip(model.inputs, inputs)}
        for node in model._network_nodes:
            if getattr(node.layer, "is_placeholder", False):
                continue
            args = nest.map_structure(lambda t: tensors.get(id(t), t), node.input_tensors)
            kwargs = {k: v for k, v in node.kwargs.items() if k != "training"}
            outs = mapping[id(node.layer)](args, *node.args, **kwargs)
            for a, b in zip(nest.flatten(node.output_tensors), nest.flatten(outs)):
                tensors[id(a)] = b
        outputs = [tensors[id(t)] for t in model.outputs]
        clone = Model(inputs if len(inputs) > 1 else inputs[0],
                      outputs if len(outputs) > 1 else outputs[0], name=model.name)
    clone.output_names = list(model.output_names)
    clone.loss, clone._compile_metrics = model.loss, model._compile_metrics
    clone._loss_weights, clone.optimizer = model._loss_weights, model.optimizer
    return clone


def _tf_optimizer(keras_opt):
    if isinstance(keras_opt, TFOptimizerWrapper):
        return keras_opt.optimizer
    lr = keras_opt._initial_lr
    return keras_opt._make(float(lr) if not hasattr(lr, "op") else lr)


def _labels_list(labels, names):
    if isinstance(labels, dict):
        return [labels[n] for n in names]
    return list(labels) if isinstance(labels, (list, tuple)) else [labels]


def _keras_weights_scaffold(clone, ckpt):
    """Restores the Keras model's saved weights on a fresh start (predicting or evaluating
    before any training, as TF's Estimator warm-starts there too)."""
    saver = Saver({v.op.name: v for v in clone.weights}, max_to_keep=None)
    return Scaffold(init_fn=lambda scaffold, sess: saver.restore(sess, ckpt))


def _model_fn(keras_model, ckpt):
    def model_fn(features, labels, mode):
        backend.set_learning_phase(1 if mode == ModeKeys.TRAIN else 0)
        clone = _clone_on(keras_model, features)
        names = clone.output_names
        if mode == ModeKeys.PREDICT:
            preds = {n: identity(t) for n, t in zip(names, clone.outputs)}
            return EstimatorSpec(mode, predictions=preds,
                                 scaffold=_keras_weights_scaffold(clone, ckpt))
        cg = CompiledGraph(clone, targets=_labels_list(labels, names))
        loss = cg.total_loss
        if mode == ModeKeys.EVAL:
            ops = {}
            for name, (s, c) in zip(cg.names[1:], cg.stats):
                if c is not None:
                    ops[name] = metric_mean(s / c, weights=c)
            return EstimatorSpec(mode, loss=loss, eval_metric_ops=ops,
                                 scaffold=_keras_weights_scaffold(clone, ckpt))
        opt = _tf_optimizer(keras_model.optimizer)
        step = opt.minimize(loss, var_list=clone.trainable_weights,
                            global_step=get_or_create_global_step())
        updates = list(clone.updates)
        if updates:
            with control_dependencies([step]):
                step = group(*updates)
        return EstimatorSpec(mode, loss=loss, train_op=step)
    return model_fn


def model_to_estimator(keras_model=None, keras_model_path=None, custom_objects=None,
                       model_dir=None, config=None, checkpoint_format="saver",
                       estimator_class=None, **estimator_kwargs):
    """An ``Estimator`` for the compiled ``keras_model`` (see the module docstring).
    ``estimator_class`` (default ``Estimator``) and ``estimator_kwargs``: what the
    adapter's ``model_to_npu_estimator`` builds instead (an ``NPUEstimator``).

    Raises:
        ValueError: no model or a file path (not implemented), an uncompiled model, or a
            subclassed model (TF's own function does not take those either).
    """
    if keras_model is None:
        if keras_model_path is not None:
            raise ValueError("model_to_estimator: keras_model_path (loading a saved Keras "
                             "model) is not implemented; pass keras_model")
        raise ValueError("Either `keras_model` or `keras_model_path` needs to be provided.")
    if not isinstance(keras_model, Model) or not keras_model._is_graph_network:
        raise ValueError("model_to_estimator: only Sequential and functional models are "
                         "supported, got a subclassed (or unbuilt) model")
    if keras_model.optimizer is None:
        raise ValueError("The given keras model has not been compiled yet. Please compile "
                         "the model with `model.compile()` before calling "
                         "`model_to_estimator()`.")
    if model_dir is None and config is not None and getattr(config, "model_dir", None):
        model_dir = config.model_dir
    model_dir = model_dir or tempfile.mkdtemp(prefix="keras_estimator_")
    keras_dir = os.path.join(model_dir, "keras")
    os.makedirs(keras_dir, exist_ok=True)
    ckpt = os.path.join(keras_dir, "keras_model.ckpt")
    with keras_model.outputs[0].graph.as_default():
        Saver({v.op.name: v for v in keras_model.weights}, max_to_keep=None).save(
            backend.get_session(), ckpt)
    return (estimator_class or Estimator)(_model_fn(keras_model, ckpt), model_dir=model_dir,
                                          config=config, warm_start_from=ckpt,
                                          **estimator_kwargs)


del dtypes, metrics_mod
