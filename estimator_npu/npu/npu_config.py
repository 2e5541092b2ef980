"""``npu_bridge.estimator.npu.npu_config``: ``NPURunConfig`` and the adapter's option
holders (``ProfilingConfig``, ``DumpConfig``, ``DynamicInputConfig``). Profiling and dumps
are Ascend tooling with nothing to do here: the holders keep what they are given so a
script that builds them runs."""
from estimator_npu.estimator import NPURunConfig  # noqa: F401


class _Options:
    def __init__(self, **options):
        self._options = dict(options)
        for key, value in options.items():
            setattr(self, "_" + key, value)

    def __repr__(self):
        return f"{type(self).__name__}({self._options})"


class ProfilingConfig(_Options):
    """``ProfilingConfig(enable_profiling=False, profiling_options=None)``: kept, unused."""

    def __init__(self, enable_profiling=False, profiling_options=None, **options):
        super().__init__(enable_profiling=enable_profiling,
                         profiling_options=profiling_options, **options)


class DumpConfig(_Options):
    """``DumpConfig(enable_dump=False, dump_path=None, dump_step=None, dump_mode="output",
    ...)``: kept, unused."""

    def __init__(self, enable_dump=False, dump_path=None, dump_step=None, dump_mode="output",
                 enable_dump_debug=False, dump_debug_mode="all", **options):
        super().__init__(enable_dump=enable_dump, dump_path=dump_path, dump_step=dump_step,
                         dump_mode=dump_mode, enable_dump_debug=enable_dump_debug,
                         dump_debug_mode=dump_debug_mode, **options)


class DynamicInputConfig(_Options):
    """``DynamicInputConfig(input_shape, dynamic_dims, dynamic_node_type)``: kept,
    unused (every shape is dynamic here)."""

    def __init__(self, input_shape=None, dynamic_dims=None, dynamic_node_type=None):
        super().__init__(input_shape=input_shape, dynamic_dims=dynamic_dims,
                         dynamic_node_type=dynamic_node_type)
