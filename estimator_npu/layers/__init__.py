"""``tf.layers``: the TF1 functional layers and layer classes (and
``tf.contrib.layers.layer_norm``)."""
from estimator_npu.layers.base import Layer  # noqa: F401
from estimator_npu.layers.classes import (AveragePooling1D, AveragePooling2D,  # noqa: F401
                                          BatchNormalization, Conv2D, Conv2DTranspose, Dense,
                                          Dropout, Flatten, MaxPooling1D, MaxPooling2D)
from estimator_npu.layers.conv_extra import (average_pooling1d, conv1d,  # noqa: F401
                                             conv2d_transpose, max_pooling1d, separable_conv2d)
from estimator_npu.layers.functional import (average_pooling2d, batch_normalization,  # noqa
                                             conv2d, dense, dropout, flatten, layer_norm,
                                             max_pooling2d)

__all__ = ["dense", "conv2d", "max_pooling2d", "average_pooling2d", "flatten", "dropout",
           "batch_normalization", "layer_norm", "conv1d", "conv2d_transpose", "separable_conv2d",
           "Layer", "Dense", "Conv2D", "Conv2DTranspose", "MaxPooling2D", "AveragePooling2D",
           "Flatten", "Dropout", "BatchNormalization", "Convolution2D",
           "Convolution2DTranspose", "Deconvolution2D", "MaxPool2D", "AveragePool2D",
           "max_pooling1d", "average_pooling1d", "MaxPooling1D", "AveragePooling1D",
           "MaxPool1D", "AveragePool1D"]

# TF1's alternative class names (tf.layers and tensorflow.python.layers.* export both).
Convolution2D = Conv2D
Convolution2DTranspose = Deconvolution2D = Conv2DTranspose
MaxPool2D = MaxPooling2D
AveragePool2D = AveragePooling2D
MaxPool1D = MaxPooling1D
AveragePool1D = AveragePooling1D
