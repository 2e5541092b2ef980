"""Names of TF's internal modules (``tensorflow.python.*``) that libraries on top of TF
use and the layered packages have no place for: enum-like classes and no-op markers. Every
``tensorflow.python.*`` alias falls back to this module after estimator_npu's own."""
import enum


class VariableSynchronization(enum.Enum):
    """``tf.VariableSynchronization`` (only meaningful for distribution strategies)."""
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """``tf.VariableAggregation``: how replica updates combine (single process: NONE)."""
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3
    ONLY_FIRST_TOWER = 3


class AggregationMethod:
    """``tf.AggregationMethod``: how ``tf.gradients`` sums the gradients of a tensor used
    several times. Accepted everywhere ``aggregation_method=`` is; the sum is the same."""
    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


def NotDifferentiable(op_type):  # noqa: N802 - TF's name
    """Accepted for compatibility: ops without a registered gradient have none anyway."""


NoGradient = NotDifferentiable


class ReaderBase:
    """TF1's queue-based reader base class (``tf.ReaderBase``): libraries subclass it at
    import time (tf_slim's ``ParallelReader``), so the class exists, but queue readers are
    not implemented: constructing one raises the "does not implement" error. Use
    ``tf.data`` readers (``TFRecordDataset``, ``TextLineDataset``) instead."""

    def __init__(self, *args, **kwargs):
        from estimator_npu.compat.missing import NotImplementedName
        raise NotImplementedName("tf.ReaderBase (queue-based readers; use tf.data)")


# TF1's PartitionedVariable type (tensorflow.python.ops.variables), for isinstance checks
from estimator_npu.engine.partitioned import PartitionedVariable  # noqa: E402,F401


def with_dependencies(dependencies, output_tensor, name=None):
    """``control_flow_ops.with_dependencies``: ``output_tensor`` after ``dependencies``."""
    from estimator_npu.engine.graph import control_dependencies
    from estimator_npu.engine.ops.core import identity
    with control_dependencies(dependencies):
        return identity(output_tensor, name=name)


def variable(initial_value=None, trainable=None, collections=None, validate_shape=True,
             caching_device=None, name=None, dtype=None, constraint=None, use_resource=None,
             synchronization=VariableSynchronization.AUTO,
             aggregation=VariableAggregation.NONE):
    """``variable_scope.variable``, TF1's function behind ``tf.Variable`` (streaming-metric
    helpers call it for their local variables). ``trainable=None`` means False for
    ``ON_READ`` synchronization and True otherwise, TF's rule."""
    from estimator_npu.engine.ops.state_ops import Variable
    if trainable is None:
        trainable = synchronization != VariableSynchronization.ON_READ
    return Variable(initial_value, trainable=trainable, collections=collections,
                    validate_shape=validate_shape, caching_device=caching_device, name=name,
                    dtype=dtype, constraint=constraint, use_resource=use_resource,
                    synchronization=synchronization, aggregation=aggregation)
