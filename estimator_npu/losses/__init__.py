"""``tf.losses``: the TF1 loss functions, ``compute_weighted_loss``, ``Reduction`` and the
loss collections (above the engine; the facade ``estimator_npu.losses`` is this package)."""
from estimator_npu.losses.collection import (add_loss, get_losses,  # noqa: F401
                                             get_regularization_loss,
                                             get_regularization_losses, get_total_loss)
from estimator_npu.losses.losses_impl import (absolute_difference, cosine_distance,  # noqa
                                              hinge_loss, huber_loss, log_loss,
                                              mean_pairwise_squared_error, mean_squared_error,
                                              sigmoid_cross_entropy, softmax_cross_entropy,
                                              sparse_softmax_cross_entropy)
from estimator_npu.losses.reduction import Reduction  # noqa: F401
from estimator_npu.losses.weighted import compute_weighted_loss  # noqa: F401

__all__ = ["Reduction", "absolute_difference", "add_loss", "compute_weighted_loss",
           "cosine_distance", "get_losses", "get_regularization_loss",
           "get_regularization_losses", "get_total_loss", "hinge_loss", "huber_loss",
           "log_loss", "mean_pairwise_squared_error", "mean_squared_error",
           "sigmoid_cross_entropy", "softmax_cross_entropy", "sparse_softmax_cross_entropy"]
