"""Pure-Python stand-ins for the TF1 protobuf messages that configure a session.

They behave like the generated protobuf classes as far as TF1 scripts use them: fields
are attributes with type-checked assignment and zero defaults, sub-messages exist from
the start and cannot be reassigned, repeated fields have ``add()``/``append``/``extend``,
map fields create entries on first access, and ``CopyFrom``/``MergeFrom``/``Clear``,
``==`` and ``copy.deepcopy`` work. The seed's NPU configuration runs unchanged::

    config = ConfigProto()
    custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.name = "NpuOptimizer"
    custom_op.parameter_map["use_off_line"].b = True
    custom_op.parameter_map["iterations_per_loop"].i = 10
    config.graph_options.rewrite_options.remapping = RewriterConfig.OFF
    npu_settings(config)   # {"iterations_per_loop": 10, "use_off_line": True}

Nothing here is serialized; unknown constructor fields raise ``TypeError`` and unknown
attributes ``AttributeError``, naming the field.
"""

import numbers

import numpy as np

from estimator_npu.engine._pb_message import (  # noqa: F401 - re-exported
    Message, MessageMap, RepeatedCompositeField, RepeatedScalarField, ScalarMap, _clock, _Map,
    _message_from, _Repeated, _Scalar, _Sub, _text_block)


class ListValue(Message):
    """``AttrValue.ListValue``: repeated ``s``, ``i``, ``f``, ``b`` and ``type``."""

    _FIELDS = {"s": _Repeated("bytes"), "i": _Repeated("int"), "f": _Repeated("float"),
               "b": _Repeated("bool"), "type": _Repeated("int")}
    _FLOAT32 = ("f",)

    def __init__(self, **kwargs):
        object.__setattr__(self, "_stamp", 0)
        super().__init__(**kwargs)

    def _modified(self):
        object.__setattr__(self, "_stamp", next(_clock))

    def _last_change(self):
        return max([self._stamp] + [getattr(self, f)._stamp for f in self._FIELDS])


_ONEOF = {"s": _Scalar("bytes", b""), "i": _Scalar("int", 0), "f": _Scalar("float", 0.0),
          "b": _Scalar("bool", False), "type": _Scalar("int", 0)}


def _oneof_member(field):
    def getter(self):
        if self.WhichOneof("value") == field:
            return self._value
        return _ONEOF[field].default
    return property(getter, doc="The %r member of the ``value`` oneof." % field)


class AttrValue(Message):
    """An attribute value: one of ``s``, ``i``, ``f``, ``b``, ``type`` or ``list``.

    These form the ``value`` oneof: setting one clears the others, and
    ``WhichOneof("value")`` names the one set last (None before any). ``s`` is bytes; a
    str assigned to it is stored UTF-8 encoded.
    """

    ListValue = ListValue

    def __init__(self, **kwargs):
        object.__setattr__(self, "_which", None)
        object.__setattr__(self, "_value", None)
        object.__setattr__(self, "_stamp", 0)
        object.__setattr__(self, "_list", ListValue())
        unknown = sorted(set(kwargs) - set(_ONEOF) - {"list"})
        if unknown or len(kwargs) > 1:
            raise TypeError("AttrValue takes at most one of s, i, f, b, type, list, got %s"
                            % ", ".join(sorted(kwargs)))
        for field, value in kwargs.items():
            if field == "list":
                object.__setattr__(self, "_list", _message_from(ListValue, value,
                                                                "AttrValue.list"))
                object.__setattr__(self, "_stamp", -1)  # an explicit list is set, even empty
            else:
                setattr(self, field, value)

    def __setattr__(self, field, value):
        if field not in _ONEOF:
            if field == "list":
                raise AttributeError("Assignment not allowed to composite field 'list' of "
                                     "AttrValue: modify it in place (.list.i.extend(...))")
            raise AttributeError("AttrValue has no field %r; its fields are s, i, f, b, type, "
                                 "list" % (field,))
        value = _ONEOF[field].accept(value, "AttrValue.%s" % field)
        object.__setattr__(self, "_which", field)
        object.__setattr__(self, "_value", value)
        object.__setattr__(self, "_stamp", next(_clock))
        object.__setattr__(self, "_list", ListValue())  # the oneof's list member is cleared

    s = _oneof_member("s")
    i = _oneof_member("i")
    f = _oneof_member("f")
    b = _oneof_member("b")
    type = _oneof_member("type")

    @property
    def list(self):
        """The ``list`` member (a ``ListValue``); modifying it selects it in the oneof."""
        return self._list

    _FLOAT32 = ("f",)

    def _text_lines(self, indent):
        which = self.WhichOneof("value")
        if which == "list":
            yield from _text_block(indent, "list", self._list._text_lines(indent + "  "))
        elif which is not None:
            yield "%s%s: %s\n" % (indent, which, self._text_scalar(
                which, _ONEOF[which].kind, self._value))

    def WhichOneof(self, oneof):  # pylint: disable=invalid-name
        """Returns the name of the member of ``oneof`` ("value") that is set, or None."""
        if oneof != "value":
            raise ValueError("AttrValue has no oneof %r; its only oneof is 'value'" % (oneof,))
        if self._list._last_change() > self._stamp:
            return "list"
        return self._which

    def HasField(self, field):  # pylint: disable=invalid-name
        """Whether ``field`` (a member of the oneof, or "value" itself) is set."""
        which = self.WhichOneof("value")
        if field == "value":
            return which is not None
        if field not in _ONEOF and field != "list":
            raise ValueError("AttrValue has no field %r" % (field,))
        return which == field

    def _state(self):
        which = self.WhichOneof("value")
        return {"value": (which, self._list if which == "list" else self._value)}

    def __repr__(self):
        which, value = self._state()["value"]
        return "AttrValue(%s)" % ("" if which is None else "%s=%r" % (which, value))

    def MergeFrom(self, other):  # pylint: disable=invalid-name
        """Sets the oneof member that ``other`` has set (a list is appended to)."""
        if type(other) is not AttrValue:
            raise TypeError("MergeFrom of an AttrValue needs an AttrValue, got %s"
                            % type(other).__name__)
        which = other.WhichOneof("value")
        if which == "list":
            self._list.MergeFrom(other.list)
        elif which is not None:
            setattr(self, which, other._value)


class CustomGraphOptimizer(Message):
    """``RewriterConfig.CustomGraphOptimizer``: a named optimizer and its parameters."""

    _FIELDS = {"name": _Scalar("str", ""), "parameter_map": _Map(AttrValue)}


CustomOptimizer = CustomGraphOptimizer


_TOGGLE = {0: "DEFAULT", 1: "ON", 2: "OFF", 3: "AGGRESSIVE", 4: "EXPERIMENTAL_MLIR",
           5: "EXPERIMENTAL_BOTH"}


class RewriterConfig(Message):
    """Grappler rewriter options; toggles take ``DEFAULT``, ``ON``, ``OFF``, ``AGGRESSIVE``."""

    DEFAULT, ON, OFF, AGGRESSIVE = 0, 1, 2, 3  # Toggle
    DEFAULT_NUM_ITERS, ONE, TWO = 0, 1, 2  # NumIterationsType
    DEFAULT_MEM_OPT, NO_MEM_OPT, MANUAL, HEURISTICS = 0, 1, 2, 3  # MemOptType
    SWAPPING_HEURISTICS, RECOMPUTATION_HEURISTICS, SCHEDULING_HEURISTICS = 4, 5, 6
    CustomGraphOptimizer = CustomGraphOptimizer

    _FIELDS = dict(
        [(toggle, _Scalar("int", 0)) for toggle in (
            "layout_optimizer", "constant_folding", "shape_optimization", "remapping",
            "arithmetic_optimization", "dependency_optimization", "loop_optimization",
            "function_optimization", "debug_stripper", "scoped_allocator_optimization",
            "pin_to_host_optimization", "implementation_selector", "auto_mixed_precision")],
        disable_model_pruning=_Scalar("bool", False),
        disable_meta_optimizer=_Scalar("bool", False),
        meta_optimizer_iterations=_Scalar("int", 0),
        min_graph_nodes=_Scalar("int", 0),
        memory_optimization=_Scalar("int", 0),
        memory_optimizer_target_node_name_scope=_Scalar("str", ""),
        meta_optimizer_timeout_ms=_Scalar("int", 0),
        fail_on_optimizer_errors=_Scalar("bool", False),
        optimizers=_Repeated("str"),
        custom_optimizers=_Repeated(CustomGraphOptimizer))
    # the .proto's declaration order (what text format follows); _FIELDS is grouped
    _ORDER = ("layout_optimizer", "constant_folding", "shape_optimization", "remapping",
              "arithmetic_optimization", "dependency_optimization", "loop_optimization",
              "function_optimization", "debug_stripper", "disable_model_pruning",
              "scoped_allocator_optimization", "pin_to_host_optimization",
              "implementation_selector", "auto_mixed_precision", "disable_meta_optimizer",
              "meta_optimizer_iterations", "min_graph_nodes", "memory_optimization",
              "memory_optimizer_target_node_name_scope", "meta_optimizer_timeout_ms",
              "fail_on_optimizer_errors", "optimizers", "custom_optimizers")
    _ENUMS = dict(
        [(toggle, _TOGGLE) for toggle in (
            "layout_optimizer", "constant_folding", "shape_optimization", "remapping",
            "arithmetic_optimization", "dependency_optimization", "loop_optimization",
            "function_optimization", "debug_stripper", "scoped_allocator_optimization",
            "pin_to_host_optimization", "implementation_selector", "auto_mixed_precision")],
        meta_optimizer_iterations={0: "DEFAULT_NUM_ITERS", 1: "ONE", 2: "TWO"},
        memory_optimization={0: "DEFAULT_MEM_OPT", 1: "NO_MEM_OPT", 2: "MANUAL",
                             3: "HEURISTICS", 4: "SWAPPING_HEURISTICS",
                             5: "RECOMPUTATION_HEURISTICS", 6: "SCHEDULING_HEURISTICS"})


class OptimizerOptions(Message):
    """Graph-level optimizer options (``opt_level``, ``global_jit_level``...)."""

    L1, L0 = 0, -1  # Level
    DEFAULT, OFF, ON_1, ON_2 = 0, -1, 1, 2  # GlobalJitLevel

    _FIELDS = {"do_common_subexpression_elimination": _Scalar("bool", False),
               "do_constant_folding": _Scalar("bool", False),
               "max_folded_constant_in_bytes": _Scalar("int", 0),
               "do_function_inlining": _Scalar("bool", False),
               "opt_level": _Scalar("int", 0),
               "global_jit_level": _Scalar("int", 0)}
    _ENUMS = {"opt_level": {0: "L1", -1: "L0"},
              "global_jit_level": {0: "DEFAULT", -1: "OFF", 1: "ON_1", 2: "ON_2"}}


class GraphOptions(Message):
    """Graph options: ``optimizer_options``, ``rewrite_options`` and scheduling flags."""

    _FIELDS = {"enable_recv_scheduling": _Scalar("bool", False),
               "optimizer_options": _Sub(OptimizerOptions),
               "build_cost_model": _Scalar("int", 0),
               "build_cost_model_after": _Scalar("int", 0),
               "infer_shapes": _Scalar("bool", False),
               "place_pruned_graph": _Scalar("bool", False),
               "enable_bfloat16_sendrecv": _Scalar("bool", False),
               "timeline_step": _Scalar("int", 0),
               "rewrite_options": _Sub(RewriterConfig)}


class GPUOptionsExperimental(Message):
    """``GPUOptions.Experimental``'s scalar fields (tf_cnn_benchmarks sets them)."""

    _FIELDS = {k: _Scalar(t, d) for k, t, d in (
        ("num_virtual_devices_per_gpu", "int", 0), ("use_unified_memory", "bool", False),
        ("num_dev_to_dev_copy_streams", "int", 0), ("collective_ring_order", "str", ""),
        ("timestamped_allocator", "bool", False), ("kernel_tracker_max_interval", "int", 0),
        ("kernel_tracker_max_bytes", "int", 0), ("kernel_tracker_max_pending", "int", 0),
        ("internal_fragmentation_fraction", "float", 0.0),
        ("use_cuda_malloc_async", "bool", False), ("gpu_system_memory_size_in_mb", "int", 0),
        ("disallow_retry_on_allocation_failure", "bool", False),
        ("gpu_host_mem_limit_in_mb", "float", 0.0), ("gpu_host_mem_disallow_growth", "bool",
                                                      False))}


class GPUOptions(Message):
    """Accelerator memory options (accepted for compatibility; numpy ignores them)."""

    Experimental = GPUOptionsExperimental

    _FIELDS = {"per_process_gpu_memory_fraction": _Scalar("float", 0.0),
               "allow_growth": _Scalar("bool", False),
               "allocator_type": _Scalar("str", ""),
               "deferred_deletion_bytes": _Scalar("int", 0),
               "visible_device_list": _Scalar("str", ""),
               "polling_active_delay_usecs": _Scalar("int", 0),
               "polling_inactive_delay_msecs": _Scalar("int", 0),
               "force_gpu_compatible": _Scalar("bool", False),
               "experimental": _Sub(GPUOptionsExperimental)}


class ConfigProtoExperimental(Message):
    """``ConfigProto.Experimental``."""

    _FIELDS = {"collective_group_leader": _Scalar("str", ""),
               "executor_type": _Scalar("str", ""),
               "recv_buf_max_chunk": _Scalar("int", 0),
               "use_numa_affinity": _Scalar("bool", False),
               "collective_deterministic_sequential_execution": _Scalar("bool", False),
               "collective_nccl": _Scalar("bool", False),
               "disable_thread_spinning": _Scalar("bool", False)}


class ConfigProto(Message):
    """Session configuration; see the module docstring for the NPU custom optimizer."""

    Experimental = ConfigProtoExperimental

    _FIELDS = {"device_count": _Map("int"),
               "intra_op_parallelism_threads": _Scalar("int", 0),
               "inter_op_parallelism_threads": _Scalar("int", 0),
               "use_per_session_threads": _Scalar("bool", False),
               "placement_period": _Scalar("int", 0),
               "device_filters": _Repeated("str"),
               "gpu_options": _Sub(GPUOptions),
               "allow_soft_placement": _Scalar("bool", False),
               "log_device_placement": _Scalar("bool", False),
               "graph_options": _Sub(GraphOptions),
               "operation_timeout_in_ms": _Scalar("int", 0),
               "isolate_session_state": _Scalar("bool", False),
               "experimental": _Sub(ConfigProtoExperimental)}


class RunOptions(Message):
    """Per-call options of ``Session.run``; ``trace_level`` takes ``NO_TRACE``..."""

    NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE, FULL_TRACE = 0, 1, 2, 3  # TraceLevel

    _FIELDS = {"trace_level": _Scalar("int", 0),
               "timeout_in_ms": _Scalar("int", 0),
               "inter_op_thread_pool": _Scalar("int", 0),
               "output_partition_graphs": _Scalar("bool", False),
               "report_tensor_allocations_upon_oom": _Scalar("bool", False)}
    _ENUMS = {"trace_level": {0: "NO_TRACE", 1: "SOFTWARE_TRACE", 2: "HARDWARE_TRACE",
                              3: "FULL_TRACE"}}


class StepStats(Message):
    """``RunMetadata.step_stats``: per-device op timings (not recorded here: empty)."""

    _FIELDS = {"dev_stats": _Repeated("str")}


class RunMetadata(Message):
    """What ``Session.run`` reports back; accepted for compatibility. ``step_stats`` stays
    empty (op timings are not recorded)."""

    _FIELDS = {"step_stats": _Sub(StepStats)}


NPU_OPTIMIZER_NAME = "NpuOptimizer"


def find_custom_optimizer(config, name=NPU_OPTIMIZER_NAME):
    """Returns the first custom optimizer entry of ``config`` called ``name``.

    Args:
        config: A ``ConfigProto`` or None.
        name: The custom optimizer's name.

    Returns:
        The ``CustomGraphOptimizer`` entry, or None when ``config`` is None or has none.

    Raises:
        TypeError: If ``config`` is neither None nor a ``ConfigProto``.
    """
    if config is None:
        return None
    if not isinstance(config, ConfigProto):
        raise TypeError("config must be a ConfigProto or None, got %s: %r"
                        % (type(config).__name__, config))
    for entry in config.graph_options.rewrite_options.custom_optimizers:
        if entry.name == name:
            return entry
    return None


def _bytes_to_python(value):
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return value


def attr_value_to_python(attr):
    """Returns the Python value of the member of ``attr`` that is set.

    Args:
        attr: An ``AttrValue``.

    Returns:
        A bool, int, float or str (``s`` decoded from UTF-8 when it can be), a list for
        ``list`` (of its first non-empty repeated field), or None when nothing is set.
    """
    which = attr.WhichOneof("value")
    if which == "s":
        return _bytes_to_python(attr.s)
    if which == "list":
        for field in ListValue._FIELDS:
            values = getattr(attr.list, field)
            if len(values):
                return [_bytes_to_python(v) if field == "s" else v for v in values]
        return []
    return None if which is None else getattr(attr, which)


def npu_settings(config):
    """Returns the parameters of the ``NpuOptimizer`` entry of ``config`` as a dict.

    Args:
        config: A ``ConfigProto`` or None.

    Returns:
        ``{key: python value}`` for each ``parameter_map`` entry with a value set (e.g.
        ``{"iterations_per_loop": 10, "use_off_line": True,
        "precision_mode": "allow_mix_precision"}``); ``{}`` when there is no entry.

    Raises:
        TypeError: If ``config`` is neither None nor a ``ConfigProto``.
    """
    entry = find_custom_optimizer(config)
    if entry is None:
        return {}
    settings = {}
    for key, attr in entry.parameter_map.items():
        value = attr_value_to_python(attr)
        if value is not None:
            settings[key] = value
    return settings


def set_npu_settings(config, settings):
    """Writes ``settings`` into the ``NpuOptimizer`` entry of ``config`` (added if missing).

    Args:
        config: A ``ConfigProto``; modified in place.
        settings: A mapping of parameter name to a bool (``.b``), int (``.i``), float
            (``.f``) or str/bytes (``.s``).

    Returns:
        The ``CustomGraphOptimizer`` entry.

    Raises:
        TypeError: If ``config`` is not a ``ConfigProto`` or a value has another type.
    """
    if not isinstance(config, ConfigProto):
        raise TypeError("config must be a ConfigProto, got %s: %r"
                        % (type(config).__name__, config))
    entry = find_custom_optimizer(config)
    if entry is None:
        entry = config.graph_options.rewrite_options.custom_optimizers.add(
            name=NPU_OPTIMIZER_NAME)
    for key, value in settings.items():
        if isinstance(value, (bool, np.bool_)):
            entry.parameter_map[key].b = value
        elif isinstance(value, (numbers.Integral, np.integer)):
            entry.parameter_map[key].i = value
        elif isinstance(value, (numbers.Real, np.floating)):
            entry.parameter_map[key].f = value
        elif isinstance(value, (str, bytes)):
            entry.parameter_map[key].s = value
        else:
            raise TypeError("settings[%r] must be a bool, int, float or str, got %s: %r"
                            % (key, type(value).__name__, value))
    return entry
