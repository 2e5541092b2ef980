"""``tf.nn``: activations, losses, convolution and normalization ops."""
from estimator_npu.engine.ops.conv_ops import *  # noqa: F401,F403
from estimator_npu.engine.ops.math_ops import sigmoid, tanh  # noqa: F401
from estimator_npu.engine.ops.nn_ops import (batch_normalization, bias_add, dropout, elu,  # noqa
                                             gelu, in_top_k, l2_loss,
                                             l2_normalize, leaky_relu, log_softmax, moments,
                                             relu, relu6, sigmoid_cross_entropy_with_logits,
                                             softmax, softmax_cross_entropy_with_logits,
                                             softmax_cross_entropy_with_logits_v2, softplus,
                                             sparse_softmax_cross_entropy_with_logits)
from estimator_npu.rnn import cells as rnn_cell  # noqa: F401,E402 - tf.nn.rnn_cell
from estimator_npu.engine.ops.sequence_ops import reverse_sequence  # noqa: F401,E402
from estimator_npu.rnn.dynamic import (bidirectional_dynamic_rnn, dynamic_rnn,  # noqa: F401,E402
                                   static_bidirectional_rnn, static_rnn)
from estimator_npu.engine.ops.nn_extra_ops import (convolution, depthwise_conv2d,  # noqa: F401
                                                   depthwise_conv2d_native,
                                                   local_response_normalization,
                                                   lrn, separable_conv2d, top_k, xw_plus_b)
from estimator_npu.engine.ops.composites import (atrous_conv2d, conv1d, crelu,  # noqa: F401
                                                 log_sigmoid, relu_layer, selu, softsign,
                                                 swish, weighted_cross_entropy_with_logits)
from estimator_npu.sampling.samplers import (all_candidate_sampler,  # noqa: F401,E402
                                             compute_accidental_hits,
                                             fixed_unigram_candidate_sampler,
                                             learned_unigram_candidate_sampler,
                                             log_uniform_candidate_sampler,
                                             uniform_candidate_sampler)
from estimator_npu.sampling.sampled_losses import nce_loss, sampled_softmax_loss  # noqa
from estimator_npu.layers.fused_batch_norm import (batch_norm_with_global_normalization,  # noqa: F401,E402
                                                  fused_batch_norm)
from estimator_npu.partition.embedding import (embedding_lookup,  # noqa: F401,E402
                                               embedding_lookup_sparse)
from estimator_npu.math_ops_extra.space_ops import (depth_to_space,  # noqa: F401,E402
                                                    space_to_batch, space_to_depth)
from estimator_npu.math_ops_extra.more_math import zero_fraction  # noqa: F401,E402
from estimator_npu.math_ops_extra.nn_stats import (log_poisson_loss,  # noqa: F401,E402
                                                   normalize_moments, sufficient_statistics,
                                                   weighted_moments)
from estimator_npu.math_ops_extra.window3d import (avg_pool3d, conv3d,  # noqa: F401,E402
                                                   conv3d_backprop_filter_v2,
                                                   conv3d_backprop_input_v2, conv3d_transpose,
                                                   max_pool3d, pool)
from estimator_npu.math_ops_extra.pool_argmax import max_pool_with_argmax  # noqa: F401,E402
from estimator_npu.math_ops_extra.sequence_decode import ctc_greedy_decoder  # noqa: F401,E402
from estimator_npu.math_ops_extra.ctc_loss import ctc_loss  # noqa: F401,E402
