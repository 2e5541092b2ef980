"""``npu_bridge.estimator.npu.npu_plugin``: the adapter's device set-up calls. There is no
device to open or close here, so each is a no-op that accepts the adapter's arguments,
except ``set_device_sat_mode``, which selects the fp16 overflow mode of the precision
rewrite."""
from estimator_npu.engine import precision


def npu_resource_init(graph_run_mode=1, op_debug_level=0, enable_profiling=False,
                      profiling_options=None, auto_tune_mode=None, precision_mode=None,
                      enable_scope_fusion_passes=None, enable_exception_dump=0,
                      aoe_mode=None, work_path=None, op_compiler_cache_mode=None,
                      op_compiler_cache_dir=None, debug_dir=None, hcom_multi_mode=False,
                      distribute_config=None, aoe_config_file=None, **options):
    """No-op: nothing to initialise."""


def npu_resource_shutdown():
    """No-op."""


def npu_global_init(*args, **kwargs):
    """No-op."""


def npu_global_shutdown():
    """No-op."""


def npu_close():
    """No-op (the adapter registers it with ``atexit``)."""


def set_device_sat_mode(mode):
    """Sets the fp16 overflow mode of the precision rewrite: 0 saturation (clamp to
    +-65504 and set the overflow register, as Atlas training NPUs), 1 Inf/NaN (IEEE 754,
    the default). See ``estimator_npu.engine.precision``."""
    if isinstance(mode, bool) or mode not in (0, 1):
        raise ValueError(f"set_device_sat_mode: mode must be 0 (saturation) or 1 (Inf/NaN), "
                         f"got {mode!r}")
    precision.set_overflow_mode("saturation" if mode == 0 else "inf_nan")


def is_inf_nan_enabled():
    """Whether fp16 overflow gives +-inf (Inf/NaN mode) rather than saturating."""
    return precision.overflow_mode() == "inf_nan"


def set_op_precision_mode(*args, **kwargs):
    """No-op."""
