"""``tf.contrib.losses``: the pre-``tf.losses`` loss functions.

They are ``tf.losses``' functions with TF 1.x contrib's argument order: predictions (or
logits) first, then labels; the result is added to the ``LOSSES`` collection as in
``tf.losses``. ``hinge_loss`` returns the element-wise losses, unreduced, as contrib's did.
"""
from estimator_npu import losses as _losses
from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.engine.ops import math_ops as _math_ops, nn_ops as _nn_ops
from estimator_npu.engine.ops.core import convert_to_tensor as _tensor
from estimator_npu.losses import (add_loss, get_losses, get_regularization_losses,  # noqa: F401
                                  get_total_loss)


def compute_weighted_loss(losses, weights=1.0, scope=None):
    return _losses.compute_weighted_loss(losses, weights, scope=scope)


def absolute_difference(predictions, labels=None, weights=1.0, scope=None):
    return _losses.absolute_difference(labels, predictions, weights, scope=scope)


def mean_squared_error(predictions, labels=None, weights=1.0, scope=None):
    return _losses.mean_squared_error(labels, predictions, weights, scope=scope)


def mean_pairwise_squared_error(predictions, labels=None, weights=1.0, scope=None):
    return _losses.mean_pairwise_squared_error(labels, predictions, weights, scope=scope)


def log_loss(predictions, labels=None, weights=1.0, epsilon=1e-7, scope=None):
    return _losses.log_loss(labels, predictions, weights, epsilon=epsilon, scope=scope)


def cosine_distance(predictions, labels=None, axis=None, weights=1.0, scope=None, dim=None):
    if dim is not None:
        if axis is not None:
            raise ValueError("cosine_distance: pass only one of axis and dim (deprecated)")
        axis = dim
    return _losses.cosine_distance(labels, predictions, axis=axis, weights=weights, scope=scope)


def sigmoid_cross_entropy(logits, multi_class_labels, weights=1.0, label_smoothing=0,
                          scope=None):
    return _losses.sigmoid_cross_entropy(multi_class_labels, logits, weights,
                                         label_smoothing=label_smoothing, scope=scope)


def softmax_cross_entropy(logits, onehot_labels, weights=1.0, label_smoothing=0, scope=None):
    return _losses.softmax_cross_entropy(onehot_labels, logits, weights,
                                         label_smoothing=label_smoothing, scope=scope)


def sparse_softmax_cross_entropy(logits, labels, weights=1.0, scope=None):
    return _losses.sparse_softmax_cross_entropy(labels, logits, weights, scope=scope)


def hinge_loss(logits, labels=None, scope=None):
    """Element-wise ``max(0, 1 - (2 * labels - 1) * logits)`` (labels in {0, 1})."""
    logits = _tensor(logits, name="logits")
    labels = _math_ops.cast(_tensor(labels, name="labels"), logits.dtype)
    signed = _math_ops.subtract(_math_ops.multiply(labels, 2.0), 1.0)
    return _nn_ops.relu(_math_ops.subtract(1.0, _math_ops.multiply(signed, logits)),
                        name=scope or "hinge_loss")


__all__ = ["absolute_difference", "add_loss", "compute_weighted_loss", "cosine_distance",
           "get_losses", "get_regularization_losses", "get_total_loss", "hinge_loss",
           "log_loss", "mean_pairwise_squared_error", "mean_squared_error",
           "sigmoid_cross_entropy", "softmax_cross_entropy", "sparse_softmax_cross_entropy"]
__getattr__ = _module_getattr(__name__)
