"""``tf.layers``: the TF1 functional layers (and ``tf.contrib.layers.layer_norm``)."""
from estimator_npu.engine.layers import (average_pooling2d, batch_normalization,  # noqa: F401
                                         conv2d, dense, dropout, flatten, layer_norm,
                                         max_pooling2d)

__all__ = ["dense", "conv2d", "max_pooling2d", "average_pooling2d", "flatten", "dropout",
           "batch_normalization", "layer_norm"]
