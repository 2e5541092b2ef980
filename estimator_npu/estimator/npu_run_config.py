"""``NPURunConfig``: a ``RunConfig`` with the Ascend adapter's loop and precision settings.

Its defaults follow the adapter, not plain ``RunConfig``: no summary hook unless asked
(``save_summary_steps=0``), a checkpoint every 100 steps when neither checkpoint interval
is given, ``log_step_count_steps=100``, ``keep_checkpoint_max=5``::

    config = NPURunConfig(model_dir=d, iterations_per_loop=10, precision_mode="allow_mix_precision")
    config.session_config   # a ConfigProto with an "NpuOptimizer" custom optimizer entry

The session config's ``NpuOptimizer`` entry is written from the fields, so configuring with
``NPURunConfig`` or with a ``ConfigProto`` (as the adapter's ``sess.run`` examples do)
describes the same settings.
"""
import copy

import attr

from estimator_npu.device.config import NPUSettings
from estimator_npu.engine.config_pb import ConfigProto
from estimator_npu.estimator.run_config import RunConfig, _non_negative_int


@attr.s(frozen=True, slots=True)
class NPURunConfig(RunConfig):
    """``RunConfig`` plus ``iterations_per_loop``, ``enable_data_pre_proc``,
    ``mix_compile_mode``, ``precision_mode``, ``is_tailing_optimization``.

    Raises:
        TypeError: ``iterations_per_loop`` not an int, ``mix_compile_mode`` not a bool, ...
        ValueError: ``iterations_per_loop <= 0``; ``mix_compile_mode=True`` with
            ``iterations_per_loop != 1``; both checkpoint intervals set; an unknown
            ``precision_mode``.
    """

    DEFAULT_SAVE_CHECKPOINTS_STEPS = 100
    DEFAULT_SAVE_CHECKPOINTS_SECS = None

    save_summary_steps = attr.ib(default=0, validator=_non_negative_int)
    iterations_per_loop = attr.ib(default=1, kw_only=True)
    enable_data_pre_proc = attr.ib(default=True, kw_only=True)
    mix_compile_mode = attr.ib(default=False, kw_only=True)
    precision_mode = attr.ib(default=None, kw_only=True)
    is_tailing_optimization = attr.ib(default=False, kw_only=True)
    use_off_line = attr.ib(default=True, kw_only=True)
    # The adapter's device, compiler and tooling options: accepted with the adapter's
    # defaults so its scripts construct the config unchanged; nothing here reads them.
    profiling_config = attr.ib(default=None, kw_only=True)
    dump_config = attr.ib(default=None, kw_only=True)
    distribute = attr.ib(default=None, kw_only=True)
    enable_reduce_precision = attr.ib(default=False, kw_only=True)
    variable_format_optimize = attr.ib(default=True, kw_only=True)
    hcom_parallel = attr.ib(default=False, kw_only=True)
    graph_memory_max_size = attr.ib(default=None, kw_only=True)
    variable_memory_max_size = attr.ib(default=None, kw_only=True)
    auto_tune_mode = attr.ib(default=None, kw_only=True)
    stream_max_parallel_num = attr.ib(default=None, kw_only=True)
    horovod_mode = attr.ib(default=False, kw_only=True)
    graph_run_mode = attr.ib(default=1, kw_only=True)
    op_debug_level = attr.ib(default=0, kw_only=True)
    enable_scope_fusion_passes = attr.ib(default=None, kw_only=True)
    enable_exception_dump = attr.ib(default=0, kw_only=True)
    op_select_implmode = attr.ib(default=None, kw_only=True)
    optypelist_for_implmode = attr.ib(default=None, kw_only=True)
    dynamic_input_config = attr.ib(default=None, kw_only=True)
    aoe_mode = attr.ib(default=None, kw_only=True)
    work_path = attr.ib(default=None, kw_only=True)
    buffer_optimize = attr.ib(default="l2_optimize", kw_only=True)
    enable_small_channel = attr.ib(default=0, kw_only=True)
    fusion_switch_file = attr.ib(default=None, kw_only=True)
    enable_compress_weight = attr.ib(default=False, kw_only=True)
    compress_weight_conf = attr.ib(default=None, kw_only=True)
    op_compiler_cache_mode = attr.ib(default=None, kw_only=True)
    op_compiler_cache_dir = attr.ib(default=None, kw_only=True)
    debug_dir = attr.ib(default=None, kw_only=True)
    hcom_multi_mode = attr.ib(default=False, kw_only=True)
    dynamic_input = attr.ib(default=False, kw_only=True)
    dynamic_graph_execute_mode = attr.ib(default="dynamic_execute", kw_only=True)
    dynamic_inputs_shape_range = attr.ib(default=None, kw_only=True)
    local_rank_id = attr.ib(default=None, kw_only=True)
    local_device_list = attr.ib(default=None, kw_only=True)
    session_device_id = attr.ib(default=None, kw_only=True)
    distribute_config = attr.ib(default=None, kw_only=True)
    modify_mixlist = attr.ib(default=None, kw_only=True)
    op_precision_mode = attr.ib(default=None, kw_only=True)
    device_type = attr.ib(default="default_device_type", kw_only=True)
    soc_config = attr.ib(default=None, kw_only=True)
    hccl_timeout = attr.ib(default=None, kw_only=True)
    op_wait_timeout = attr.ib(default=None, kw_only=True)
    op_execute_timeout = attr.ib(default=None, kw_only=True)
    HCCL_algorithm = attr.ib(default=None, kw_only=True)
    experimental_config = attr.ib(default=None, kw_only=True)
    memory_config = attr.ib(default=None, kw_only=True)

    def __attrs_post_init__(self):
        settings = self.npu_settings  # validates every NPU field
        RunConfig.__attrs_post_init__(self)
        config = copy.deepcopy(self.session_config) if self.session_config is not None \
            else ConfigProto()
        settings.write_to(config)
        object.__setattr__(self, "session_config", config)

    @property
    def npu_settings(self):
        """The validated NPU settings (``device.config.NPUSettings``)."""
        return NPUSettings(iterations_per_loop=self.iterations_per_loop,
                           enable_data_pre_proc=self.enable_data_pre_proc,
                           mix_compile_mode=self.mix_compile_mode,
                           precision_mode=self.precision_mode,
                           is_tailing_optimization=self.is_tailing_optimization,
                           use_off_line=self.use_off_line)
