"""estimator_npu: the TF1 Estimator and the Ascend NPU adapter's training features on numpy.

Use it as TensorFlow 1.x: ``import estimator_npu as tf``. This module only re-exports.
"""
from estimator_npu import errors  # noqa: F401
from estimator_npu import nn  # noqa: F401
from estimator_npu.engine import dtypes as dtypes_module  # noqa: F401
from estimator_npu.engine.config_pb import (ConfigProto, GPUOptions, GraphOptions,  # noqa: F401
                                            RunMetadata, RunOptions)
from estimator_npu.engine.config_pb import OptimizerOptions  # noqa: F401
from estimator_npu.engine.dtypes import (DType, as_dtype, bfloat16, bool, complex64,  # noqa
                                         double, float16, float32, float64, half, int8,
                                         int16, int32, int64, string, uint8, uint16)
from estimator_npu.engine.gradients import gradients  # noqa: F401
from estimator_npu.engine.gradient_override import (NotDifferentiable,  # noqa: F401
                                                RegisterGradient, no_gradient)
from estimator_npu.engine.graph_def import make_tensor_proto  # noqa: F401
from estimator_npu.engine.graph_def import tensor_proto_value as make_ndarray  # noqa: F401
from estimator_npu.train.graph_import import import_graph_def  # noqa: F401
from estimator_npu.engine.tf_protos import (AttrValue, GraphDef, MetaGraphDef,  # noqa: F401
                                            NodeDef, TensorProto)
from estimator_npu.engine.graph import (Graph, GraphKeys, Operation, Tensor,  # noqa: F401
                                        add_to_collection, add_to_collections,
                                        control_dependencies, get_collection,
                                        get_collection_ref, get_default_graph, name_scope,
                                        reset_default_graph, set_random_seed)
from estimator_npu.engine.init_ops import (constant_initializer, glorot_normal_initializer,  # noqa
                                           glorot_uniform_initializer, he_normal, he_uniform,
                                           ones_initializer, random_normal_initializer,
                                           random_uniform_initializer,
                                           truncated_normal_initializer,
                                           variance_scaling_initializer, zeros_initializer)
from estimator_npu.engine.ops.array_ops import (broadcast_to, concat,  # noqa: F401
                                                expand_dims, fill, gather, one_hot, ones,
                                                ones_like, pad, range, rank, reshape, reverse,
                                                shape, size, slice, split, squeeze, stack,
                                                tile, transpose, unstack, where_v2,
                                                zeros, zeros_like)
from estimator_npu.math_ops_extra.array_extra import boolean_mask  # noqa: F401,E402
from estimator_npu.math_ops_extra.array_extra import where_v1 as where  # noqa: F401,E402
from estimator_npu.engine.ops.core import (constant, convert_to_tensor, group,  # noqa: F401
                                           identity, no_op, placeholder,
                                           placeholder_with_default, stop_gradient)
from estimator_npu.engine.ops.core import tuple_ as tuple  # noqa: F401,A001
from estimator_npu.engine.ops.core import check_numerics  # noqa: F401
from estimator_npu.engine.ops.custom_grad import custom_gradient  # noqa: F401
from estimator_npu.engine.ops.math_ops import (abs, add, add_n, argmax, argmin, cast,  # noqa
                                               ceil, clip_by_value, cos, div, divide, equal,
                                               exp, floor, floordiv, floormod, greater,
                                               greater_equal, is_finite, is_inf, is_nan, less,
                                               less_equal, log, log1p, logical_and,
                                               logical_not, logical_or, matmul, maximum,
                                               minimum, mod, multiply, negative, not_equal,
                                               pow, reciprocal, reduce_all, reduce_any,
                                               reduce_max, reduce_mean, reduce_min,
                                               reduce_prod, reduce_sum, round, rsqrt, sigmoid,
                                               sign, sin, sqrt, square, squared_difference,
                                               subtract, tanh, to_float, to_int32, to_int64,
                                               truediv)
from estimator_npu.engine.ops.control_ops import case, cond  # noqa: F401
from estimator_npu.engine.ops.functional_ops import foldl, foldr, map_fn, scan  # noqa: F401
from estimator_npu.engine.ops.loop_ops import while_loop  # noqa: F401
from estimator_npu.engine.ops.sequence_ops import reverse_sequence  # noqa: F401
from estimator_npu.engine.ops.tensor_array import TensorArray  # noqa: F401
from estimator_npu.engine.ops.random_ops import (random_normal, random_shuffle,  # noqa: F401
                                                 random_uniform, truncated_normal)
from estimator_npu.engine.ops.state_ops import (Variable, assign, assign_add,  # noqa: F401
                                                assign_sub, global_variables,
                                                global_variables_initializer,
                                                initialize_all_variables, local_variables,
                                                local_variables_initializer, model_variables,
                                                report_uninitialized_variables,
                                                trainable_variables, variables_initializer)
from estimator_npu.engine.session import (InteractiveSession, Session,  # noqa: F401
                                          get_default_session)
from estimator_npu.engine.shape import (Dimension, TensorShape,  # noqa: F401
                                        dimension_at_index, dimension_value)
from estimator_npu.engine.variable_scope import (AUTO_REUSE, VariableScope,  # noqa: F401
                                                 get_local_variable, get_variable,
                                                 get_variable_scope, variable_scope)
from estimator_npu.engine.partitioned import PartitionedVariable  # noqa: F401

__version__ = "0.1.0"
from estimator_npu import logging  # noqa: E402,F401
from estimator_npu.utils.logging import get_logger  # noqa: E402,F401
from estimator_npu import data  # noqa: F401,E402
from estimator_npu.engine.ops.script_ops import numpy_function, py_func  # noqa: F401,E402
from estimator_npu import train  # noqa: F401,E402
from estimator_npu.train import graph_util  # noqa: F401,E402
from estimator_npu.engine.device_spec import DeviceSpec  # noqa: F401,E402
from estimator_npu import summary  # noqa: F401,E402
from estimator_npu.engine.ops.clip_ops import (clip_by_global_norm, clip_by_norm,  # noqa: E402
                                               global_norm)  # noqa: F401
from estimator_npu import estimator  # noqa: F401,E402
from estimator_npu import metrics  # noqa: F401,E402
from estimator_npu import layers  # noqa: F401,E402
from estimator_npu import losses  # noqa: F401,E402
from estimator_npu.engine.ops.math_extra_ops import (cumprod, cumsum, div_no_nan,  # noqa: E402
                                                     einsum, norm)  # noqa: F401
from estimator_npu import math  # noqa: F401,E402
from estimator_npu import random  # noqa: F401,E402
from estimator_npu import image  # noqa: F401,E402
from estimator_npu.engine.ops.scatter_ops import (eye, gather_nd, scatter_add,  # noqa: E402
                                                  scatter_nd, scatter_sub, scatter_update,
                                                  segment_sum, unique, unique_with_counts,
                                                  unsorted_segment_sum)  # noqa: F401
from estimator_npu.engine.ops.strided_slice import strided_slice  # noqa: F401,E402
from estimator_npu.engine.ops.composites import (confusion_matrix, count_nonzero,  # noqa
                                                 multinomial, reduce_logsumexp)
from estimator_npu.images.resize_ops import random_crop  # noqa: F401,E402
from estimator_npu.engine.ops.math_ops import argmax as arg_max  # noqa: F401,E402
from estimator_npu.engine.ops.math_ops import argmin as arg_min  # noqa: F401,E402
from estimator_npu import npu  # noqa: F401,E402
from estimator_npu import mixed_precision  # noqa: F401,E402
from estimator_npu.train.summary_ops import Summary  # noqa: F401,E402
from estimator_npu import io  # noqa: F401,E402
from estimator_npu import python_io  # noqa: F401,E402
from estimator_npu import saved_model  # noqa: F401,E402
from estimator_npu.data.example_parsing import (FixedLenFeature,  # noqa: F401,E402
                                                FixedLenSequenceFeature, VarLenFeature,
                                                parse_example, parse_single_example)
from estimator_npu.data.raw_ops import decode_raw, read_file, write_file  # noqa: F401,E402
from estimator_npu.data.sequence_parsing import parse_single_sequence_example  # noqa
from estimator_npu.data.sparse import (SparseTensor, SparseTensorValue,  # noqa: F401,E402
                                       sparse_tensor_to_dense)
from estimator_npu import strings  # noqa: F401,E402
from estimator_npu import sparse  # noqa: F401,E402
from estimator_npu import image  # noqa: F401,E402
from estimator_npu.data.image_codecs import decode_image  # noqa: F401,E402
from estimator_npu.data.csv_ops import decode_csv  # noqa: F401,E402
from estimator_npu.data.string_ops import string_split  # noqa: F401,E402
from estimator_npu.data.string_ops import join as string_join  # noqa: F401,E402
from estimator_npu.data.string_ops import to_number as string_to_number  # noqa: F401,E402
from estimator_npu.data.string_ops import regex_replace  # noqa: F401,E402
from estimator_npu.data.string_ops import as_string  # noqa: F401,E402
from estimator_npu.data.string_ops import substr  # noqa: F401,E402 - tf.substr (TF1)
from estimator_npu.data.string_ops import reduce_join  # noqa: F401,E402 - tf.reduce_join
from estimator_npu.data.string_ops import decode_base64  # noqa: F401,E402 - TF1 top level
from estimator_npu.data.string_ops import encode_base64  # noqa: F401,E402 - TF1 top level


class _DeviceNamespace:
    """``tf.device``: TF1's device-placement context manager (nothing is placed: everything
    runs on the host CPU; variables record the device, which ``Saver(sharded=True)``
    shards by) that also gives access to the ``estimator_npu.device`` layer package (the
    device loop), whose name it shares."""

    def __init__(self, package):
        self._package = package

    def __call__(self, device_name_or_function):
        from estimator_npu.engine.graph import get_default_graph
        return get_default_graph().device(device_name_or_function)

    def __getattr__(self, name):
        return getattr(self._package, name)

    def __repr__(self):
        return "<tf.device: no-op placement context; package estimator_npu.device>"


def _install_device_namespace():
    import sys
    module = sys.modules[__name__]
    module.device = _DeviceNamespace(sys.modules["estimator_npu.device"])


_install_device_namespace()

# The TF1 compatibility surface (docs/porting.md): tf.compat, tf.app, tf.flags, tf.gfile,
# tf.io, tf.contrib, the execution-mode switches and TF's version strings.
from estimator_npu import app, compat, contrib, flags, gfile, io, keras, test  # noqa: F401,E402
from estimator_npu import config  # noqa: F401,E402 - tf.config (devices: the host CPU)
from estimator_npu import tpu  # noqa: F401,E402 - tf.tpu.CrossShardOptimizer
from estimator_npu.compat.modes import (disable_control_flow_v2,  # noqa: F401,E402
                                        disable_eager_execution,
                                        disable_resource_variables,
                                        disable_tensor_equality, disable_v2_behavior,
                                        disable_v2_tensorshape, enable_eager_execution,
                                        enable_resource_variables, enable_v2_behavior,
                                        executing_eagerly, newaxis)
from estimator_npu.compat.tf_internals import (AggregationMethod,  # noqa: F401,E402
                                               VariableAggregation, VariableSynchronization)
from estimator_npu.compat.versions import (COMPILER_VERSION, GIT_VERSION,  # noqa: F401,E402
                                           GRAPH_DEF_VERSION, VERSION)
from estimator_npu.compat import versions as version  # noqa: F401,E402 - tf.version
from estimator_npu.data.sparse import sparse_to_dense  # noqa: F401,E402
from estimator_npu import clustering  # noqa: F401,E402 - registers the k-means op family
from estimator_npu.rnn.masks import sequence_mask  # noqa: F401,E402
from estimator_npu.compat.deprecated import (all_variables,  # noqa: F401,E402
                                             initialize_local_variables, initialize_variables)
from estimator_npu.compat.missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)
from estimator_npu import feature_column  # noqa: F401,E402
from estimator_npu import initializers  # noqa: F401,E402
# tf.Print / tf.print / tf.Assert and the tf.assert_* checks (estimator_npu.checks)
from estimator_npu import debugging  # noqa: F401,E402
from estimator_npu.checks.asserts import (assert_equal, assert_greater,  # noqa: F401,E402
                                          assert_greater_equal, assert_integer, assert_less,
                                          assert_less_equal, assert_near, assert_negative,
                                          assert_non_negative, assert_non_positive,
                                          assert_none_equal, assert_positive,
                                          assert_proper_iterable, assert_rank,
                                          assert_rank_at_least, assert_rank_in,
                                          assert_same_float_dtype, assert_scalar, assert_type,
                                          get_static_value, is_non_decreasing,
                                          is_numeric_tensor, is_strictly_increasing)
from estimator_npu.checks.asserts import assert_all_finite as verify_tensor_all_finite  # noqa
from estimator_npu.checks.logging_ops import Assert, Print  # noqa: F401,E402
from estimator_npu.checks.logging_ops import print_v2 as print  # noqa: F401,E402,A001
# tf.dynamic_partition / dynamic_stitch and the variable partitioners (estimator_npu.partition)
from estimator_npu.partition.embedding import (fixed_size_partitioner,  # noqa: F401,E402
                                               min_max_variable_partitioner,
                                               variable_axis_size_partitioner)
from estimator_npu.partition.stitch_ops import dynamic_partition, dynamic_stitch  # noqa
# tf.linalg and its TF1 top-level aliases (estimator_npu.linalg)
from estimator_npu import linalg  # noqa: F401,E402
from estimator_npu.linalg import (cholesky, cholesky_solve, cross, matrix_band_part,  # noqa: F401,E402
                                  matrix_determinant, matrix_diag, matrix_diag_part,
                                  matrix_inverse, matrix_set_diag, matrix_solve,
                                  matrix_transpose, matrix_triangular_solve, qr,
                                  self_adjoint_eig, self_adjoint_eigvals, svd, tensordot,
                                  trace)
from estimator_npu.linalg import lstsq as matrix_solve_ls  # noqa: F401,E402
from estimator_npu.linalg import tensor_diag as diag  # noqa: F401,E402
from estimator_npu.linalg import tensor_diag_part as diag_part  # noqa: F401,E402
# tf.math / array / segment / scatter ops above the engine (estimator_npu.math_ops_extra).
from estimator_npu.math_ops_extra.elementwise import (accumulate_n, acos, acosh,  # noqa: E402
                                                      asin, asinh, atan, atan2, atanh,
                                                      bincount, cosh, digamma, erf, erfc,
                                                      expm1, lgamma,
                                                      logical_xor, polygamma, rint, sinh,
                                                      tan, truncatediv, truncatemod, zeta)
from estimator_npu.engine.ops.composites import log_sigmoid  # noqa: F401,E402
from estimator_npu.math_ops_extra.incomplete import betainc, igamma, igammac  # noqa: F401,E402
from estimator_npu.math_ops_extra.conversion import register_tensor_conversion_function  # noqa: F401,E402,E501
from estimator_npu.math_ops_extra.indexed_slices import IndexedSlices  # noqa: F401,E402
from estimator_npu.engine.ops.math_ops import floordiv as floor_div  # noqa: F401,E402
from estimator_npu.engine.ops.math_ops import realdiv  # noqa: F401,E402
from estimator_npu.engine.dtypes import complex128  # noqa: F401,E402
from estimator_npu.engine.ops.array_ops import reverse as reverse_v2  # noqa: F401,E402
from estimator_npu.math_ops_extra.array_extra import (argsort, batch_gather,  # noqa: E402
                                                      histogram_fixed_width,
                                                      histogram_fixed_width_bins,
                                                      invert_permutation, lin_space,
                                                      linspace, meshgrid, repeat, roll,
                                                      searchsorted, setdiff1d, sort,
                                                      unravel_index)
from estimator_npu.math_ops_extra.space_ops import (batch_to_space,  # noqa: F401,E402
                                                    batch_to_space_nd, depth_to_space,
                                                    extract_image_patches, space_to_batch,
                                                    space_to_batch_nd, space_to_depth)
from estimator_npu.math_ops_extra.tensor_utils import (broadcast_dynamic_shape,  # noqa: E402
                                                       broadcast_static_shape,
                                                       clip_by_average_norm, ensure_shape,
                                                       identity_n,
                                                       is_tensor, parallel_stack,
                                                       saturate_cast, shape_n, to_bfloat16,
                                                       to_complex64, to_complex128,
                                                       to_double)
from estimator_npu.math_ops_extra.segments import (segment_max, segment_mean,  # noqa: E402
                                                   segment_min, segment_prod,
                                                   sparse_segment_mean, sparse_segment_sqrt_n,
                                                   sparse_segment_sum, unsorted_segment_max,
                                                   unsorted_segment_mean, unsorted_segment_min,
                                                   unsorted_segment_prod,
                                                   unsorted_segment_sqrt_n)
from estimator_npu.math_ops_extra.scatters import (scatter_div, scatter_max,  # noqa: E402
                                                   scatter_min, scatter_mul, scatter_nd_add,
                                                   scatter_nd_sub, scatter_nd_update,
                                                   tensor_scatter_add, tensor_scatter_nd_add,
                                                   tensor_scatter_nd_max,
                                                   tensor_scatter_nd_min,
                                                   tensor_scatter_nd_sub,
                                                   tensor_scatter_nd_update,
                                                   tensor_scatter_sub, tensor_scatter_update)
from estimator_npu import lookup  # noqa: F401,E402 - tf.lookup; registers the tables' ops
from estimator_npu.lookup.tables import initialize_all_tables, tables_initializer  # noqa
from estimator_npu.math_ops_extra.variable_utils import (assert_variables_initialized,  # noqa
                                                         hessians, init_scope,
                                                         is_variable_initialized,
                                                         make_template,
                                                         moving_average_variables,
                                                         no_regularizer,
                                                         orthogonal_initializer,
                                                         uniform_unit_scaling_initializer)
from estimator_npu.math_ops_extra.sparse_ops import (sparse_add, sparse_concat,  # noqa: E402
                                                     sparse_fill_empty_rows,
                                                     sparse_reduce_max, sparse_reduce_sum,
                                                     sparse_reorder, sparse_reshape,
                                                     sparse_retain, sparse_slice,
                                                     sparse_softmax,
                                                     sparse_tensor_dense_matmul,
                                                     sparse_transpose)
from estimator_npu.math_ops_extra.sparse_more import (sparse_maximum,  # noqa: F401,E402
                                                      sparse_merge, sparse_minimum,
                                                      sparse_split, sparse_to_indicator)
from estimator_npu.math_ops_extra.more_math import scalar_mul  # noqa: F401,E402
from estimator_npu.math_ops_extra.more_math import angle, conj, imag, real  # noqa: F401,E402
from estimator_npu.math_ops_extra.sequence_decode import edit_distance  # noqa: F401,E402
from estimator_npu import manip  # noqa: F401,E402
from estimator_npu.lookup.tables import string_to_hash_bucket_fast  # noqa: F401,E402
from estimator_npu.lookup.strong_hash import (string_to_hash_bucket,  # noqa: F401,E402
                                              string_to_hash_bucket_strong)
from estimator_npu.math_ops_extra.sparse_ops import sparse_placeholder  # noqa: F401,E402
# TF1 queue-based input (estimator_npu.queues): queues, readers, tf.queue, tf.count_up_to
from estimator_npu import queue  # noqa: F401,E402
from estimator_npu.queues import (FIFOQueue, FixedLengthRecordReader,  # noqa: F401,E402
                                  IdentityReader, PaddingFIFOQueue, QueueBase,
                                  RandomShuffleQueue, ReaderBase, TextLineReader,
                                  TFRecordReader, WholeFileReader, count_up_to,
                                  matching_files)
