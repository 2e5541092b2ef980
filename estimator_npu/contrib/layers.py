"""``tf.contrib.layers``: TF-Slim-era layers, initializers and regularizers (re-exports)."""
from estimator_npu.layers.arg_scope import add_arg_scope, arg_scope  # noqa: F401
from estimator_npu.layers.functional import instance_norm, layer_norm  # noqa: F401
from estimator_npu.layers.slim_init import (apply_regularization, l1_regularizer,  # noqa: F401
                                            l2_regularizer,
                                            sum_regularizer, variance_scaling_initializer,
                                            xavier_initializer, xavier_initializer_conv2d)
from estimator_npu.layers.slim_layers import (avg_pool2d, batch_norm, bias_add,  # noqa: F401
                                              conv2d,
                                              conv2d_transpose, convolution2d,
                                              convolution2d_transpose, dropout, flatten,
                                              fully_connected, max_pool2d, model_variable,
                                              one_hot_encoding, repeat, separable_conv2d,
                                              separable_convolution2d, softmax, stack,
                                              variable)
from estimator_npu.train.optimize_loss import OPTIMIZER_CLS_NAMES, optimize_loss  # noqa: F401,E402
