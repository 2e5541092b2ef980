"""``tf.contrib.slim``: TF-Slim's layers, ``arg_scope`` and variable helpers (re-exports)."""
from estimator_npu.layers.arg_scope import (add_arg_scope, arg_scope,  # noqa: F401
                                            arg_scoped_arguments, current_arg_scope,
                                            has_arg_scope)
from estimator_npu.layers.functional import layer_norm  # noqa: F401
from estimator_npu.layers.slim_init import (l1_regularizer, l2_regularizer,  # noqa: F401
                                            sum_regularizer, variance_scaling_initializer,
                                            xavier_initializer, xavier_initializer_conv2d)
from estimator_npu.layers.slim_layers import (avg_pool2d, batch_norm, bias_add,  # noqa: F401
                                              conv2d,
                                              conv2d_transpose, convolution2d,
                                              convolution2d_transpose, dropout, flatten,
                                              fully_connected, get_model_variables,
                                              get_trainable_variables, get_variables,
                                              get_variables_by_name, get_variables_to_restore,
                                              max_pool2d, model_variable, one_hot_encoding,
                                              repeat, separable_conv2d,
                                              separable_convolution2d, softmax, stack,
                                              variable)
from estimator_npu.train.checkpoint_utils import assign_from_checkpoint_fn  # noqa: F401
from estimator_npu.layers import model_analyzer  # noqa: F401,E402
from estimator_npu.contrib import slim_learning as learning  # noqa: F401,E402
from estimator_npu.contrib import slim_prefetch_queue as prefetch_queue  # noqa: F401,E402
