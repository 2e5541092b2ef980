"""The ``LOSSES`` / ``REGULARIZATION_LOSSES`` collections: ``add_loss``, ``get_losses``,
``get_regularization_loss(es)`` and ``get_total_loss``."""
from estimator_npu.engine.graph import GraphKeys, add_to_collection, get_collection
from estimator_npu.engine.ops import math_ops
from estimator_npu.engine.ops.core import constant


def add_loss(loss, loss_collection=GraphKeys.LOSSES):
    """Adds ``loss`` to ``loss_collection`` (nothing when the collection is ``None``)."""
    if loss_collection:
        add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=GraphKeys.LOSSES):
    """The losses in ``loss_collection`` (whose names match ``scope`` when given)."""
    return get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    return get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """Sum of the regularization losses, or a float32 scalar 0 when there are none."""
    losses = get_regularization_losses(scope)
    if losses:
        return math_ops.add_n(losses, name=name)
    return constant(0.0)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """Sum of the ``LOSSES`` collection (and the regularization losses).

    Raises:
        ValueError: there is no loss to sum.
    """
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses = losses + get_regularization_losses(scope=scope)
    if not losses:
        raise ValueError("get_total_loss: no losses in the LOSSES collection "
                         "(nor regularization losses) to sum")
    return math_ops.add_n(losses, name=name)
