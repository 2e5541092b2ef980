"""NPU settings: validation, defaults, and the session config's ``NpuOptimizer`` entry.

``NPUSettings`` holds the loop-related knobs of ``NPURunConfig`` (which adds them to a
``RunConfig`` in the estimator layer). Both ways of configuring — ``NPURunConfig`` fields
and a ``ConfigProto`` custom optimizer named ``NpuOptimizer`` — describe the same settings:
``NPUSettings.write_to(config)`` writes the entry, ``settings_from_session_config`` reads it.
"""
import attr

from estimator_npu.engine import config_pb
from estimator_npu.utils import validation

PRECISION_MODES = ("force_fp32", "allow_fp32_to_fp16", "allow_mix_precision",
                   "must_keep_origin_dtype", "force_fp16")


def _check_ipl(instance, attribute, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"iterations_per_loop must be an int, got {type(value).__name__}: "
                        f"{value!r}")
    if value <= 0:
        raise ValueError(f"iterations_per_loop must be a positive integer, got {value}")


def _check_bool(instance, attribute, value):
    validation.check_bool(attribute.name, value)


def _check_precision(instance, attribute, value):
    if value is not None:
        validation.check_one_of(attribute.name, value, PRECISION_MODES)


@attr.s(frozen=True, slots=True)
class NPUSettings:
    """The device-loop and precision settings of an NPU run (validated on construction)."""

    iterations_per_loop = attr.ib(default=1, validator=_check_ipl)
    enable_data_pre_proc = attr.ib(default=True, validator=_check_bool)
    mix_compile_mode = attr.ib(default=False, validator=_check_bool)
    precision_mode = attr.ib(default=None, validator=_check_precision)
    is_tailing_optimization = attr.ib(default=False, validator=_check_bool)
    use_off_line = attr.ib(default=True, validator=_check_bool)

    def __attrs_post_init__(self):
        if self.mix_compile_mode and self.iterations_per_loop != 1:
            raise ValueError("mix_compile_mode=True requires iterations_per_loop=1, got "
                             f"iterations_per_loop={self.iterations_per_loop} with "
                             "mix_compile_mode=True")

    def as_dict(self):
        d = attr.asdict(self)
        if d["precision_mode"] is None:
            del d["precision_mode"]
        return d

    def write_to(self, session_config):
        """Writes these settings into ``session_config``'s ``NpuOptimizer`` entry."""
        return config_pb.set_npu_settings(session_config, self.as_dict())


def settings_from_session_config(session_config):
    """The ``NpuOptimizer`` parameters of a session config as a dict (``{}`` if none)."""
    if session_config is None or not isinstance(session_config, config_pb.ConfigProto):
        return {}
    return config_pb.npu_settings(session_config)
