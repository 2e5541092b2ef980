"""``tf.io.FixedLenFeature``, ``FixedLenSequenceFeature`` and ``VarLenFeature``: the specs
``tf.parse_example`` takes and ``tf.feature_column.make_parse_example_spec`` returns (one set
of classes for both, so a column's spec parses Examples as is)."""
import collections


class FixedLenFeature(collections.namedtuple("FixedLenFeature",
                                             ["shape", "dtype", "default_value"])):
    """A dense feature of fixed ``shape``; ``default_value`` fills it when missing."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """A dense feature of a variable number of ``shape``-sized steps."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature of any length, parsed into a ``SparseTensor``."""
