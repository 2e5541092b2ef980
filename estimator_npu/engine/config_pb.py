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

import collections.abc
import copy
import itertools
import numbers

import numpy as np

# A process-wide clock ordering modifications, so that AttrValue can tell whether its
# scalar or its list member of the ``value`` oneof was written last.
_clock = itertools.count(1)

_DEFAULTS = {"bool": False, "int": 0, "float": 0.0, "str": "", "bytes": b""}
_KIND_NAMES = {"bool": "a bool", "int": "an int", "float": "a float (or int)",
               "str": "a str", "bytes": "bytes (or a str, stored UTF-8 encoded)"}


def _coerce(kind, value, where):
    """Returns ``value`` converted for a scalar field of ``kind``, as protobuf does."""
    if kind == "bool":
        if isinstance(value, (numbers.Integral, np.integer, np.bool_)):
            return bool(value)
    elif kind == "int":
        if isinstance(value, (numbers.Integral, np.integer, np.bool_)):
            value = int(value)
            if not -2 ** 63 <= value < 2 ** 63:
                raise ValueError("%s must fit in int64, got %d" % (where, value))
            return value
    elif kind == "float":
        if isinstance(value, (numbers.Real, np.integer, np.floating, np.bool_)):
            return float(value)
    elif kind == "str":
        if isinstance(value, str):
            return value
        if isinstance(value, bytes):
            try:
                return value.decode("utf-8")
            except UnicodeDecodeError:
                raise ValueError("%s must be valid UTF-8, got %r" % (where, value)) from None
    elif isinstance(value, bytes):
        return value
    elif isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError("%s must be %s, got %s: %r"
                    % (where, _KIND_NAMES[kind], type(value).__name__, value))


class _Scalar:
    """Spec of a singular scalar field."""

    def __init__(self, kind, default):
        self.kind = kind
        self.default = default

    def new(self, where=None):
        return self.default

    def accept(self, value, where):
        return _coerce(self.kind, value, where)

    def is_default(self, value):
        return value == self.default


class _Sub:
    """Spec of a singular message field."""

    def __init__(self, cls):
        self.cls = cls

    def new(self, where=None):
        return self.cls()

    def accept(self, value, where):
        return _message_from(self.cls, value, where)

    def is_default(self, value):
        return value == self.cls()


class _Repeated:
    """Spec of a repeated field of scalars (``item`` is a kind) or messages (a class)."""

    def __init__(self, item):
        self.item = item

    def new(self, where):
        if isinstance(self.item, str):
            return RepeatedScalarField(self.item, where)
        return RepeatedCompositeField(self.item, where)

    def accept(self, value, where):
        field = self.new(where)
        field.extend(value)
        return field

    def is_default(self, value):
        return not len(value)


class _Map:
    """Spec of a ``map<string, V>`` field; ``value`` is a scalar kind or a message class."""

    def __init__(self, value):
        self.value = value

    def new(self, where):
        if isinstance(self.value, str):
            return ScalarMap(self.value, where)
        return MessageMap(self.value, where)

    def accept(self, value, where):
        if not isinstance(value, collections.abc.Mapping):
            raise TypeError("%s must be a mapping, got %s: %r"
                            % (where, type(value).__name__, value))
        field = self.new(where)
        for key, item in value.items():
            if isinstance(field, ScalarMap):
                field[key] = item
            else:
                field[key].CopyFrom(_message_from(self.value, item, "%s[%r]" % (where, key)))
        return field

    def is_default(self, value):
        return not len(value)


def _message_from(cls, value, where):
    """A new ``cls`` message copied from a ``cls`` instance or built from a dict."""
    if isinstance(value, cls):
        return copy.deepcopy(value)
    if isinstance(value, collections.abc.Mapping):
        return cls(**value)
    raise TypeError("%s must be a %s or a dict of its fields, got %s: %r"
                    % (where, cls.__name__, type(value).__name__, value))


class Message:
    """Base of the message classes: fields are declared in ``_FIELDS`` (name -> spec)."""

    _FIELDS = {}
    __hash__ = None  # mutable, like protobuf messages

    def __init__(self, **kwargs):
        name = type(self).__name__
        for field, spec in self._FIELDS.items():
            object.__setattr__(self, field, spec.new("%s.%s" % (name, field)))
        for field, value in kwargs.items():
            spec = self._FIELDS.get(field)
            if spec is None:
                raise TypeError("%s got an unexpected field %r; its fields are %s"
                                % (name, field, ", ".join(self._FIELDS)))
            object.__setattr__(self, field, spec.accept(value, "%s.%s" % (name, field)))

    def __setattr__(self, field, value):
        spec = self._FIELDS.get(field)
        name = type(self).__name__
        if spec is None:
            raise AttributeError("%s has no field %r; its fields are %s"
                                 % (name, field, ", ".join(self._FIELDS)))
        if not isinstance(spec, _Scalar):
            raise AttributeError(
                "Assignment not allowed to composite field %r of %s: modify it in place "
                "(.CopyFrom(), .add(), .extend(), [key])" % (field, name))
        object.__setattr__(self, field, spec.accept(value, "%s.%s" % (name, field)))

    def _state(self):
        return {field: getattr(self, field) for field in self._FIELDS}

    def _modified(self):
        """Called after CopyFrom/MergeFrom/Clear; AttrValue's list member needs it."""

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self._state() == other._state()

    def __repr__(self):
        parts = ["%s=%r" % (field, value) for field, value in self._state().items()
                 if not self._FIELDS[field].is_default(value)]
        return "%s(%s)" % (type(self).__name__, ", ".join(parts))

    def CopyFrom(self, other):  # pylint: disable=invalid-name
        """Replaces every field by a deep copy of ``other``'s (same class only)."""
        if type(other) is not type(self):
            raise TypeError("CopyFrom of a %s needs a %s, got %s"
                            % (type(self).__name__, type(self).__name__, type(other).__name__))
        if other is not self:
            state = copy.deepcopy(other.__dict__)
            self.__dict__.clear()
            self.__dict__.update(state)
            self._modified()

    def MergeFrom(self, other):  # pylint: disable=invalid-name
        """Merges ``other`` in.

        Non-default scalars overwrite, messages and maps merge, repeated fields append.
        """
        if type(other) is not type(self):
            raise TypeError("MergeFrom of a %s needs a %s, got %s"
                            % (type(self).__name__, type(self).__name__, type(other).__name__))
        for field, spec in self._FIELDS.items():
            value = getattr(other, field)
            if isinstance(spec, _Scalar):
                if not spec.is_default(value):
                    object.__setattr__(self, field, value)
            elif isinstance(spec, _Repeated):
                getattr(self, field).extend(list(value))
            else:
                getattr(self, field).MergeFrom(value)
        self._modified()

    def Clear(self):  # pylint: disable=invalid-name
        """Resets every field to its default, in place."""
        type(self).__init__(self)
        self._modified()

    def copy(self):
        """Returns a deep copy."""
        return copy.deepcopy(self)


class RepeatedScalarField(collections.abc.MutableSequence):
    """A list of scalars of one kind; every element is type-checked."""

    __hash__ = None

    def __init__(self, kind, where="field"):
        self._kind = kind
        self._where = where
        self._values = []
        self._stamp = 0

    def _check(self, value):
        return _coerce(self._kind, value, "element of %s" % self._where)

    def _touch(self):
        self._stamp = next(_clock)

    def __len__(self):
        return len(self._values)

    def __getitem__(self, index):
        return self._values[index]

    def __setitem__(self, index, value):
        if isinstance(index, slice):
            self._values[index] = [self._check(v) for v in value]
        else:
            self._values[index] = self._check(value)
        self._touch()

    def __delitem__(self, index):
        del self._values[index]
        self._touch()

    def insert(self, index, value):
        self._values.insert(index, self._check(value))
        self._touch()

    def extend(self, values):
        if isinstance(values, (str, bytes)):
            raise TypeError("%s.extend needs an iterable of values, got %s: %r"
                            % (self._where, type(values).__name__, values))
        values = [self._check(v) for v in values]
        if values:
            self._values.extend(values)
            self._touch()

    def __eq__(self, other):
        if isinstance(other, RepeatedScalarField):
            return self._values == other._values
        if isinstance(other, collections.abc.Sequence) and not isinstance(other, (str, bytes)):
            return self._values == list(other)
        return NotImplemented

    def __repr__(self):
        return repr(self._values)


class RepeatedCompositeField(collections.abc.Sequence):
    """A list of messages of one class: ``add(**fields)`` appends and returns a new one."""

    __hash__ = None

    def __init__(self, message_class, where="field"):
        self._cls = message_class
        self._where = where
        self._items = []

    def add(self, **fields):
        """Appends a new message built from ``fields`` and returns it."""
        item = self._cls(**fields)
        self._items.append(item)
        return item

    def append(self, message):
        """Appends a copy of ``message`` (a message of the field's class or a dict)."""
        self._items.append(_message_from(self._cls, message, "element of %s" % self._where))

    def extend(self, messages):
        """Appends copies of ``messages``."""
        self._items.extend([_message_from(self._cls, m, "element of %s" % self._where)
                            for m in messages])

    def __len__(self):
        return len(self._items)

    def __getitem__(self, index):
        return self._items[index]

    def __setitem__(self, index, value):
        raise TypeError("%s does not support item assignment: use .add() or modify "
                        "%s[%r] in place" % (self._where, self._where, index))

    def __delitem__(self, index):
        del self._items[index]

    def clear(self):
        """Removes every message."""
        del self._items[:]

    def __eq__(self, other):
        if isinstance(other, RepeatedCompositeField):
            return self._items == other._items
        if isinstance(other, collections.abc.Sequence) and not isinstance(other, (str, bytes)):
            return self._items == list(other)
        return NotImplemented

    def __repr__(self):
        return repr(self._items)


class _MapBase(collections.abc.Mapping):
    """Shared parts of the map fields; keys are strs."""

    __hash__ = None

    def __init__(self, where):
        self._where = where
        self._items = {}

    def _key(self, key):
        return _coerce("str", key, "key of %s" % self._where)

    def __contains__(self, key):
        return key in self._items

    def get(self, key, default=None):
        return self._items.get(key, default)

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)

    def __delitem__(self, key):
        del self._items[key]

    def clear(self):
        """Removes every entry."""
        self._items.clear()

    def __repr__(self):
        return repr(self._items)


class ScalarMap(_MapBase):
    """A ``map<string, scalar>``; reading a missing key inserts the default, as protobuf."""

    def __init__(self, kind, where="field"):
        super().__init__(where)
        self._kind = kind

    def __getitem__(self, key):
        key = self._key(key)
        if key not in self._items:
            self._items[key] = _DEFAULTS[self._kind]
        return self._items[key]

    def __setitem__(self, key, value):
        key = self._key(key)
        self._items[key] = _coerce(self._kind, value, "%s[%r]" % (self._where, key))

    def update(self, other=(), **kwargs):
        """Sets every entry of ``other`` and ``kwargs``."""
        for key, value in dict(other, **kwargs).items():
            self[key] = value

    MergeFrom = update


class MessageMap(_MapBase):
    """A ``map<string, Message>``: ``m[key]`` creates an empty message on first access."""

    def __init__(self, message_class, where="field"):
        super().__init__(where)
        self._cls = message_class

    def __getitem__(self, key):
        key = self._key(key)
        item = self._items.get(key)
        if item is None:
            item = self._items[key] = self._cls()
        return item

    def __setitem__(self, key, value):
        raise ValueError("May not set values directly in %s: modify %s[%r] in place "
                         "(e.g. .b = True or .CopyFrom(value))" % (self._where, self._where, key))

    def get_or_create(self, key):
        """Returns the message for ``key``, creating it if missing."""
        return self[key]

    def MergeFrom(self, other):  # pylint: disable=invalid-name
        """Merges each message of ``other`` into the one of the same key."""
        for key, value in other.items():
            self[key].MergeFrom(value)


class ListValue(Message):
    """``AttrValue.ListValue``: repeated ``s``, ``i``, ``f``, ``b`` and ``type``."""

    _FIELDS = {"s": _Repeated("bytes"), "i": _Repeated("int"), "f": _Repeated("float"),
               "b": _Repeated("bool"), "type": _Repeated("int")}

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


class GPUOptions(Message):
    """Accelerator memory options (accepted for compatibility; numpy ignores them)."""

    _FIELDS = {"per_process_gpu_memory_fraction": _Scalar("float", 0.0),
               "allow_growth": _Scalar("bool", False),
               "allocator_type": _Scalar("str", ""),
               "deferred_deletion_bytes": _Scalar("int", 0),
               "visible_device_list": _Scalar("str", ""),
               "polling_active_delay_usecs": _Scalar("int", 0),
               "polling_inactive_delay_msecs": _Scalar("int", 0),
               "force_gpu_compatible": _Scalar("bool", False)}


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


class RunMetadata(Message):
    """What ``Session.run`` reports back; accepted for compatibility, it has no fields."""


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
