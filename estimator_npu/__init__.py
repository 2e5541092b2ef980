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
from estimator_npu.engine.ops.array_ops import (boolean_mask, broadcast_to, concat,  # noqa: F401
                                                expand_dims, fill, gather, one_hot, ones,
                                                ones_like, pad, range, rank, reshape, reverse,
                                                shape, size, slice, split, squeeze, stack,
                                                tile, transpose, unstack, where, where_v2,
                                                zeros, zeros_like)
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

__version__ = "0.1.0"
from estimator_npu import logging  # noqa: E402,F401
from estimator_npu import data  # noqa: F401,E402
from estimator_npu.engine.ops.script_ops import numpy_function, py_func  # noqa: F401,E402
from estimator_npu import train  # noqa: F401,E402
from estimator_npu.train import graph_util  # noqa: F401,E402
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
from estimator_npu.engine.ops.image_ops import random_crop  # noqa: F401,E402
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


class _DeviceNamespace:
    """``tf.device``: TF1's device-placement context manager (a no-op here: everything runs
    on the host CPU) that also gives access to the ``estimator_npu.device`` layer package
    (the device loop), whose name it shares."""

    def __init__(self, package):
        self._package = package

    def __call__(self, device_name_or_function):
        import contextlib
        return contextlib.nullcontext()

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
from estimator_npu.compat.modes import (disable_control_flow_v2,  # noqa: F401,E402
                                        disable_eager_execution,
                                        disable_resource_variables,
                                        disable_tensor_equality, disable_v2_behavior,
                                        disable_v2_tensorshape, enable_eager_execution,
                                        enable_resource_variables, enable_v2_behavior,
                                        executing_eagerly, newaxis)
from estimator_npu.compat.tf_internals import (VariableAggregation,  # noqa: F401,E402
                                               VariableSynchronization)
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
