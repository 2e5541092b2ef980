"""``tf.data.Options``: per-dataset settings (``Dataset.with_options``).

The pipeline here runs in numpy on the host, so the settings (threading, optimization,
determinism) change nothing; they are kept, validated by name, and merged as TF does so a
script that sets them runs. Setting an attribute TF's ``Options`` does not have raises
``AttributeError`` naming it.
"""


class _OptionGroup:
    _fields = ()

    def __init__(self):
        for name in self._fields:
            object.__setattr__(self, name, None)

    def __setattr__(self, name, value):
        if name not in self._fields:
            raise AttributeError(f"{type(self).__name__} has no option {name!r}; options: "
                                 f"{', '.join(self._fields)}")
        object.__setattr__(self, name, value)

    def _merge(self, other):
        for name in self._fields:
            mine, theirs = getattr(self, name), getattr(other, name)
            if isinstance(mine, _OptionGroup):
                mine._merge(theirs)
            elif theirs is not None:
                object.__setattr__(self, name, theirs)

    def __eq__(self, other):
        return type(self) is type(other) and all(
            getattr(self, n) == getattr(other, n) for n in self._fields)

    def __repr__(self):
        set_ = {n: getattr(self, n) for n in self._fields if getattr(self, n) is not None}
        return f"{type(self).__name__}({set_})"


class OptimizationOptions(_OptionGroup):
    """``options.experimental_optimization``."""
    _fields = ("apply_default_optimizations", "autotune", "autotune_buffers",
               "autotune_cpu_budget", "autotune_ram_budget", "filter_fusion",
               "filter_with_random_uniform_fusion", "hoist_random_uniform",
               "inject_prefetch", "map_and_batch_fusion", "map_and_filter_fusion",
               "map_fusion", "map_parallelization", "map_vectorization", "noop_elimination",
               "parallel_batch", "shuffle_and_repeat_fusion")


class ThreadingOptions(_OptionGroup):
    """``options.experimental_threading`` / ``options.threading``."""
    _fields = ("max_intra_op_parallelism", "private_threadpool_size")


class DistributeOptions(_OptionGroup):
    """``options.experimental_distribute``."""
    _fields = ("auto_shard", "auto_shard_policy", "num_devices")


class StatsOptions(_OptionGroup):
    """``options.experimental_stats``."""
    _fields = ("aggregator", "counter_prefix", "latency_all_edges", "prefix")


class Options(_OptionGroup):
    """``tf.data.Options()``: set attributes, then ``dataset.with_options(options)``."""
    _fields = ("experimental_deterministic", "deterministic", "experimental_slack",
               "experimental_external_state_policy", "experimental_optimization",
               "experimental_threading", "threading", "experimental_distribute",
               "experimental_stats", "experimental_optimization_options",
               "experimental_symbolic_checkpoint", "autotune")

    def __init__(self):
        super().__init__()
        object.__setattr__(self, "experimental_optimization", OptimizationOptions())
        threading = ThreadingOptions()
        object.__setattr__(self, "experimental_threading", threading)
        object.__setattr__(self, "threading", threading)
        object.__setattr__(self, "experimental_distribute", DistributeOptions())
        object.__setattr__(self, "experimental_stats", StatsOptions())

    def merge(self, options):
        """A new ``Options`` with ``options``' set values over this one's."""
        out = Options()
        out._merge(self)
        out._merge(options)
        return out
