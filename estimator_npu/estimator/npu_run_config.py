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
