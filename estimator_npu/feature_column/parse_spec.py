"""``FixedLenFeature`` / ``VarLenFeature`` specs and ``make_parse_example_spec``."""
import collections


class FixedLenFeature(collections.namedtuple("FixedLenFeature",
                                             ["shape", "dtype", "default_value"])):
    """``tf.io.FixedLenFeature(shape, dtype, default_value=None)``."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """``tf.io.VarLenFeature(dtype)``."""


def make_parse_example_spec(feature_columns):
    """The ``{key: FixedLenFeature | VarLenFeature}`` dict that parses the columns' inputs."""
    spec = {}
    for col in feature_columns:
        for key, value in col.parse_spec.items():
            if key in spec and spec[key] != value:
                raise ValueError(f"feature_columns contain different parse_spec for key "
                                 f"{key!r}: {spec[key]} and {value}")
            spec[key] = value
    return spec
