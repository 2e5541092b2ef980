"""``tf.layers``: the TF1 functional layers and layer classes (and
``tf.contrib.layers.layer_norm``)."""
from estimator_npu.layers.base import Layer  # noqa: F401
from estimator_npu.layers.classes import (AveragePooling1D, AveragePooling2D,  # noqa: F401
                                          AveragePooling3D, BatchNormalization, Conv2D,
                                          Conv2DTranspose, Conv3D, Conv3DTranspose, Dense,
                                          Dropout, Flatten, MaxPooling1D, MaxPooling2D,
                                          MaxPooling3D)
from estimator_npu.layers.conv3d import (average_pooling3d, conv3d,  # noqa: F401
                                         conv3d_transpose, max_pooling3d)
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
           "MaxPool1D", "AveragePool1D", "conv3d", "conv3d_transpose", "max_pooling3d",
           "average_pooling3d", "Conv3D", "Conv3DTranspose", "MaxPooling3D",
           "AveragePooling3D", "Convolution3D", "Convolution3DTranspose", "MaxPool3D",
           "AveragePool3D"]

# TF1's alternative class names (tf.layers and tensorflow.python.layers.* export both).
Convolution2D = Conv2D
Convolution2DTranspose = Deconvolution2D = Conv2DTranspose
MaxPool2D = MaxPooling2D
AveragePool2D = AveragePooling2D
MaxPool1D = MaxPooling1D
AveragePool1D = AveragePooling1D
Convolution3D = Conv3D
Convolution3DTranspose = Conv3DTranspose
MaxPool3D = MaxPooling3D
AveragePool3D = AveragePooling3D
