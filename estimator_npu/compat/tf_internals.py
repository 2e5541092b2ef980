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


def NotDifferentiable(op_type):  # noqa: N802 - TF's name
    """Accepted for compatibility: ops without a registered gradient have none anyway."""


NoGradient = NotDifferentiable
