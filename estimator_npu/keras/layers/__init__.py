"""``tf.keras.layers``: Keras layers for TF1 graph code (call them on tensors in a
``model_fn`` or ``sess.run`` graph) and for ``tf.keras`` models."""
from estimator_npu.keras.engine.base_layer import InputSpec, Layer  # noqa: F401
from estimator_npu.keras.engine.input_layer import Input, InputLayer  # noqa: F401
from estimator_npu.keras.layers.advanced_activations import (ELU, LeakyReLU,  # noqa: F401
                                                             PReLU, ReLU, Softmax,
                                                             ThresholdedReLU)
from estimator_npu.keras.layers.convolutional import (  # noqa: F401
    Conv1D, Conv2D, Conv2DTranspose, Convolution1D, Convolution2D, Convolution2DTranspose,
    Cropping2D, Deconvolution2D, DepthwiseConv2D, SeparableConv2D, SeparableConvolution2D,
    UpSampling1D, UpSampling2D, ZeroPadding1D, ZeroPadding2D)
from estimator_npu.keras.layers.core import (Activation, ActivityRegularization,  # noqa
                                             Dense, Dropout, Flatten, Lambda, Masking,
                                             Permute, RepeatVector, Reshape,
                                             SpatialDropout2D)
from estimator_npu.keras.layers.embeddings import Embedding  # noqa: F401
from estimator_npu.keras.layers.merge import (Add, Average, Concatenate, Dot,  # noqa: F401
                                              Maximum, Minimum, Multiply, Subtract, add,
                                              average, concatenate, dot, maximum, minimum,
                                              multiply, subtract)
from estimator_npu.keras.layers.normalization import (BatchNormalization,  # noqa: F401
                                                      LayerNormalization)
from estimator_npu.keras.layers.pooling import (  # noqa: F401
    AveragePooling1D, AveragePooling2D, AvgPool1D, AvgPool2D, GlobalAveragePooling1D,
    GlobalAveragePooling2D, GlobalAvgPool1D, GlobalAvgPool2D, GlobalMaxPool1D,
    GlobalMaxPool2D, GlobalMaxPooling1D, GlobalMaxPooling2D, MaxPool1D, MaxPool2D,
    MaxPooling1D, MaxPooling2D)
from estimator_npu.keras.layers.recurrent import (GRU, LSTM, Bidirectional,  # noqa: F401
                                                  SimpleRNN, TimeDistributed)
from estimator_npu.compat.missing import module_getattr as _module_getattr

__getattr__ = _module_getattr("estimator_npu.keras.layers")
