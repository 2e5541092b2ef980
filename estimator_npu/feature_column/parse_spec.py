"""``FixedLenFeature`` / ``VarLenFeature`` specs and ``make_parse_example_spec``."""
# the very classes tf.parse_example / tf.io take, so the spec parses Examples as is
from estimator_npu.utils.feature_specs import FixedLenFeature, VarLenFeature  # noqa: F401


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
