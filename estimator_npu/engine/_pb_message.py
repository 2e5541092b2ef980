"""The protobuf-like machinery behind ``config_pb``'s message classes.

Scalar type coercion, the field specs (``_Scalar``, ``_Sub``, ``_Repeated``, ``_Map``), the
``Message`` base class and the containers of repeated and map fields
(``RepeatedScalarField``, ``RepeatedCompositeField``, ``ScalarMap``, ``MessageMap``).
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


def _text_value(kind, value, float32=False):
    """One scalar in protobuf text format."""
    if kind == "bool":
        return "true" if value else "false"
    if kind == "float":
        text = str(np.float32(value)) if float32 else repr(float(value))
        return text[:-2] if text.endswith(".0") else text
    if kind in ("str", "bytes"):
        raw = value.encode("utf-8") if isinstance(value, str) else value
        out = []
        for b in raw:
            c = chr(b)
            if c in "\"'\\":
                out.append("\\" + c)
            elif c == "\n":
                out.append("\\n")
            elif c == "\t":
                out.append("\\t")
            elif c == "\r":
                out.append("\\r")
            elif 32 <= b < 127 or (kind == "str" and b >= 128):
                out.append(c)
            else:
                out.append("\\%03o" % b)
        text = "".join(out)
        if kind == "str":
            text = text.encode("latin-1").decode("utf-8", "replace")
        return '"%s"' % text
    return str(value)


def _text_block(indent, field, inner_lines):
    yield "%s%s {\n" % (indent, field)
    yield from inner_lines
    yield "%s}\n" % indent


def _text_map_entry(indent, key, value, value_spec):
    yield "%skey: %s\n" % (indent, _text_value("str", key))
    if isinstance(value_spec, str):
        yield "%svalue: %s\n" % (indent, _text_value(value_spec, value))
    else:
        yield from _text_block(indent, "value", value._text_lines(indent + "  "))


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

    # Text format (``str(config)``, what TF prints): fields in ``_ORDER`` (the .proto's
    # declaration order; default ``_FIELDS`` order), enum values by ``_ENUMS`` names, fields at
    # their default left out. Map entries come in insertion order (TF's is a hash order).
    _ORDER = None
    _ENUMS = {}
    _FLOAT32 = ()

    def __str__(self):
        return "".join(self._text_lines(""))

    def _text_lines(self, indent):
        for field in self._ORDER or self._FIELDS:
            spec, value = self._FIELDS[field], getattr(self, field)
            if spec.is_default(value):
                continue
            if isinstance(spec, _Scalar):
                yield "%s%s: %s\n" % (indent, field, self._text_scalar(field, spec.kind, value))
            elif isinstance(spec, _Sub):
                yield from _text_block(indent, field, value._text_lines(indent + "  "))
            elif isinstance(spec, _Repeated):
                for item in value:
                    if isinstance(spec.item, str):
                        yield "%s%s: %s\n" % (indent, field,
                                                self._text_scalar(field, spec.item, item))
                    else:
                        yield from _text_block(indent, field, item._text_lines(indent + "  "))
            else:
                for key in value:
                    yield from _text_block(indent, field, _text_map_entry(
                        indent + "  ", key, value[key], spec.value))

    def _text_scalar(self, field, kind, value):
        names = self._ENUMS.get(field)
        if names is not None and value in names:
            return names[value]
        return _text_value(kind, value, field in self._FLOAT32)

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
