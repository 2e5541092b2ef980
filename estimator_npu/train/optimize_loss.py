"""``tf.contrib.layers.optimize_loss``: the one-call training op of TF1's contrib.

``optimize_loss(loss, global_step, learning_rate, optimizer, ...)`` computes the gradients
of ``loss`` (after ``update_ops``, default the ``UPDATE_OPS`` collection), optionally adds
scaled truncated-normal noise (``gradient_noise_scale``), multiplies some
(``gradient_multipliers``: variable or name -> factor), clips them (``clip_gradients``: a
global-norm float, or a function of the ``(gradient, variable)`` list), applies them
(incrementing ``global_step`` unless ``increment_global_step=False``) and returns the loss
tensor that runs the update. ``optimizer`` is a name (``"SGD"``, ``"Adam"``, ``"Adagrad"``,
``"Momentum"`` (0.9), ``"RMSProp"``, ``"Ftrl"``), an ``Optimizer`` class or instance, or a
function of the learning rate; ``learning_rate_decay_fn(lr, global_step)`` may decay the
rate. Scalar summaries ``loss``, ``learning_rate`` and ``global_gradient_norm`` are added
as far as ``summaries`` names them (all three by default).
"""
from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import GraphKeys, get_default_graph
from estimator_npu.engine.ops import array_ops
from estimator_npu.engine.ops.clip_ops import clip_by_global_norm, global_norm
from estimator_npu.engine.ops.core import convert_to_tensor, identity
from estimator_npu.engine.ops.random_ops import truncated_normal
from estimator_npu.engine.variable_scope import get_variable, variable_scope
from estimator_npu.train import optimizers, optimizers_extra, summary_ops
from estimator_npu.train.optimizer import Optimizer
from estimator_npu.train.training_util import get_global_step

OPTIMIZER_CLS_NAMES = {
    "Adagrad": optimizers.AdagradOptimizer,
    "Adam": optimizers.AdamOptimizer,
    "Ftrl": optimizers_extra.FtrlOptimizer,
    "Momentum": lambda learning_rate: optimizers.MomentumOptimizer(learning_rate,
                                                                   momentum=0.9),
    "RMSProp": optimizers.RMSPropOptimizer,
    "SGD": optimizers.GradientDescentOptimizer,
}
OPTIMIZER_SUMMARIES = ["learning_rate", "loss", "gradients", "gradient_norm",
                       "global_gradient_norm"]


def _make_optimizer(optimizer, lr):
    if isinstance(optimizer, str):
        if optimizer not in OPTIMIZER_CLS_NAMES:
            raise ValueError(f"Optimizer name should be one of [{', '.join(OPTIMIZER_CLS_NAMES)}"
                             f"], you provided {optimizer}.")
        if lr is None:
            raise ValueError(f"Learning rate is None, but should be specified if optimizer is "
                             f"string ({optimizer}).")
        return OPTIMIZER_CLS_NAMES[optimizer](learning_rate=lr)
    if isinstance(optimizer, type) and issubclass(optimizer, Optimizer):
        if lr is None:
            raise ValueError(f"Learning rate is None, but should be specified if optimizer is "
                             f"class ({optimizer}).")
        return optimizer(learning_rate=lr)
    if isinstance(optimizer, Optimizer):
        return optimizer
    if callable(optimizer):
        opt = optimizer(lr) if lr is not None else optimizer()
        if not isinstance(opt, Optimizer):
            raise ValueError(f"Unrecognized optimizer: function should return subclass of "
                             f"Optimizer. Got {opt}.")
        return opt
    raise ValueError(f"Unrecognized optimizer: should be string, subclass of Optimizer, "
                     f"instance of subclass of Optimizer or function with one argument. Got "
                     f"{optimizer}.")


def optimize_loss(loss, global_step, learning_rate, optimizer, gradient_noise_scale=None,
                  gradient_multipliers=None, clip_gradients=None, learning_rate_decay_fn=None,
                  update_ops=None, variables=None, name=None, summaries=None,
                  colocate_gradients_with_ops=False, increment_global_step=True):
    """See the module docstring."""
    loss = convert_to_tensor(loss)
    if global_step is None:
        global_step = get_global_step()
        if global_step is None:
            raise ValueError("global_step is required for optimize_loss (none given and the "
                             "graph has none)")
    summaries = OPTIMIZER_SUMMARIES if summaries is None else list(summaries)
    with variable_scope(name, "OptimizeLoss"):
        g = get_default_graph()
        if update_ops is None:
            update_ops = g.get_collection(GraphKeys.UPDATE_OPS)
        if update_ops:
            with g.control_dependencies(list(update_ops)):
                loss = identity(loss)
        lr = None
        if learning_rate is not None:
            if hasattr(learning_rate, "dtype") and learning_rate.dtype.is_floating:
                lr = learning_rate
            else:
                lr = get_variable("learning_rate", [], dtype=dtypes.float32, trainable=False,
                                  initializer=float(learning_rate))
        if learning_rate_decay_fn is not None:
            if lr is None:
                raise ValueError("learning_rate_decay_fn needs a learning_rate")
            lr = learning_rate_decay_fn(lr, global_step)
        if lr is not None and "learning_rate" in summaries:
            summary_ops.scalar("learning_rate", lr)
        opt = _make_optimizer(optimizer, lr)
        grads = [(gr, v) for gr, v in opt.compute_gradients(
            loss, None if variables is None else list(variables)) if gr is not None]
        if not grads:
            raise ValueError(f"No gradients: loss {loss.name} depends on none of the "
                             f"variables")
        if gradient_noise_scale is not None:
            grads = [(gr + truncated_normal(array_ops.shape(gr), dtype=gr.dtype) *
                      gradient_noise_scale, v) for gr, v in grads]
        if gradient_multipliers:
            by_name = {getattr(k, "name", k): m for k, m in gradient_multipliers.items()}
            grads = [(gr * by_name[v.name] if v.name in by_name else
                      gr * by_name[v.op.name] if v.op.name in by_name else gr, v)
                     for gr, v in grads]
        if "global_gradient_norm" in summaries or "gradient_norm" in summaries:
            summary_ops.scalar("global_norm/gradient_norm", global_norm([gr for gr, _ in grads]))
        if isinstance(clip_gradients, (int, float)):
            clipped, _ = clip_by_global_norm([gr for gr, _ in grads], clip_gradients)
            grads = list(zip(clipped, [v for _, v in grads]))
        elif callable(clip_gradients):
            grads = clip_gradients(grads)
        elif clip_gradients is not None:
            raise ValueError(f"Unknown type {type(clip_gradients)} for clip_gradients")
        if "loss" in summaries:
            summary_ops.scalar("loss", loss)
        update = opt.apply_gradients(grads, global_step=global_step if increment_global_step
                                     else None, name="train")
        with g.control_dependencies([update]):
            return identity(loss)
