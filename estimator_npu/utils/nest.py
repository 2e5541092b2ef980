"""Flatten and rebuild nested structures, with TF1 ``tf.nest`` semantics.

A *structure* is a leaf or a container of structures. Containers are lists, tuples
(namedtuples included) and mappings (``dict``, ``OrderedDict``, ``defaultdict``...).
Everything else is a leaf: ``None``, numbers, strings, bytes, numpy arrays, sets, attrs
instances, tensors. Mappings flatten in *sorted key order* whatever their insertion
order; when rebuilt they keep the key order of the structure they are packed into::

    flat = flatten({"b": [1, 2], "a": (3, None)})     # [3, None, 1, 2]
    pack_sequence_as({"b": [0, 0], "a": (0, 0)}, [4, 5, 6, 7])
    # {"b": [6, 7], "a": (4, 5)}

For a structure that is packed many times (``Session.run`` fetches), build the packer
once with ``flatten_with_packer`` and call it on each new list of values.
"""

import collections
import collections.abc
import operator


def _is_namedtuple(instance):
    cls = type(instance)
    fields = getattr(cls, "_fields", None)
    return (issubclass(cls, tuple) and isinstance(fields, tuple)
            and all(isinstance(f, str) for f in fields))


def is_nested(structure):
    """Returns True if ``structure`` is a list, tuple or mapping (a container).

    Args:
        structure: Any Python object.

    Returns:
        Whether ``flatten`` would descend into it.
    """
    return isinstance(structure, (list, tuple, collections.abc.Mapping))


is_sequence = is_nested


def _sorted_keys(mapping):
    try:
        return sorted(mapping)
    except TypeError:
        raise TypeError("nest only supports mappings with sortable keys, got keys %r"
                        % (list(mapping),)) from None


def _children(structure):
    """The children of a container, in flattening order."""
    if isinstance(structure, collections.abc.Mapping):
        return [structure[k] for k in _sorted_keys(structure)]
    return list(structure)


def _sequence_like(instance, args):
    """Builds a container of the type of ``instance`` from children in flattening order."""
    if isinstance(instance, collections.abc.Mapping):
        by_key = dict(zip(_sorted_keys(instance), args))
        items = [(key, by_key[key]) for key in instance]
        if isinstance(instance, collections.defaultdict):
            return type(instance)(instance.default_factory, items)
        return type(instance)(items)
    if _is_namedtuple(instance):
        return type(instance)(*args)
    return type(instance)(args)


def _flatten_into(structure, out):
    if isinstance(structure, collections.abc.Mapping):
        for key in _sorted_keys(structure):
            _flatten_into(structure[key], out)
    elif isinstance(structure, (list, tuple)):
        for child in structure:
            _flatten_into(child, out)
    else:
        out.append(structure)


def flatten(structure):
    """Returns the leaves of ``structure`` as a flat list, depth first.

    Args:
        structure: A leaf or a nested structure.

    Returns:
        A list of leaves; ``[structure]`` when ``structure`` is itself a leaf.

    Raises:
        TypeError: If a mapping has keys that cannot be sorted.
    """
    out = []
    _flatten_into(structure, out)
    return out


def _packed(structure, flat, index):
    """Rebuilds ``structure`` from ``flat[index:]``; returns (result, next index)."""
    if not is_nested(structure):
        return flat[index], index + 1
    args = []
    for child in _children(structure):
        value, index = _packed(child, flat, index)
        args.append(value)
    return _sequence_like(structure, args), index


def pack_sequence_as(structure, flat_sequence):
    """Returns ``flat_sequence`` packed into the shape of ``structure``.

    Args:
        structure: A leaf or nested structure; only its shape is used.
        flat_sequence: A sequence (list, tuple...) with one item per leaf of
            ``structure``.

    Returns:
        A structure like ``structure`` whose leaves are the items of ``flat_sequence``,
        in order.

    Raises:
        TypeError: If ``flat_sequence`` is not a sequence (a str or bytes is not one).
        ValueError: If the number of leaves differs from ``len(flat_sequence)``.
    """
    if (not isinstance(flat_sequence, collections.abc.Sequence)
            or isinstance(flat_sequence, (str, bytes))):
        raise TypeError("flat_sequence must be a sequence such as a list, got %s: %r"
                        % (type(flat_sequence).__name__, flat_sequence))
    count = len(flatten(structure))
    if count != len(flat_sequence):
        raise ValueError(
            "Could not pack sequence. Structure had %d elements, but flat_sequence had "
            "%d elements. Structure: %r, flat_sequence: %r."
            % (count, len(flat_sequence), structure, flat_sequence))
    return _packed(structure, flat_sequence, 0)[0]


def _same_type(a, b):
    """TF's check_types rule; all mappings match, all lists, and same-named namedtuples."""
    if type(a) is type(b):
        return True
    if isinstance(a, list) and isinstance(b, list):
        return True
    if isinstance(a, collections.abc.Mapping) and isinstance(b, collections.abc.Mapping):
        return True
    return (_is_namedtuple(a) and _is_namedtuple(b) and type(a).__name__ == type(b).__name__
            and a._fields == b._fields)


def _check_same(a, b, check_types, path):
    a_nested, b_nested = is_nested(a), is_nested(b)
    if a_nested != b_nested:
        raise ValueError("%s is %s in one structure but %s in the other"
                         % (path or "the root", _describe(a), _describe(b)))
    if not a_nested:
        return
    if check_types and not _same_type(a, b):
        raise TypeError("The two structures don't have the same sequence type: %s has type "
                        "%s in the first and %s in the second"
                        % (path or "the root", type(a).__name__, type(b).__name__))
    if isinstance(a, collections.abc.Mapping) or isinstance(b, collections.abc.Mapping):
        if not (isinstance(a, collections.abc.Mapping)
                and isinstance(b, collections.abc.Mapping)):
            raise ValueError("%s is %s in one structure but %s in the other"
                             % (path or "the root", _describe(a), _describe(b)))
        if set(a) != set(b):
            raise ValueError("The two mappings at %s don't have the same set of keys: %r "
                             "and %r" % (path or "the root", sorted(a), sorted(b)))
        for key in _sorted_keys(a):
            _check_same(a[key], b[key], check_types, "%s[%r]" % (path, key))
        return
    if len(a) != len(b):
        raise ValueError("%s has %d elements in one structure but %d in the other"
                         % (path or "the root", len(a), len(b)))
    for i, (x, y) in enumerate(zip(a, b)):
        _check_same(x, y, check_types, "%s[%d]" % (path, i))


def _describe(x):
    return ("a %s" % type(x).__name__) if is_nested(x) else "a leaf"


def assert_same_structure(nest1, nest2, check_types=True):
    """Asserts that two structures are nested the same way.

    Args:
        nest1: A leaf or nested structure.
        nest2: A leaf or nested structure.
        check_types: If True, containers must also have the same type: a list and a
            tuple differ; namedtuples match when their names and fields do; all
            mappings match each other, and all lists.

    Raises:
        ValueError: If the nesting, the lengths or the mapping keys differ.
        TypeError: If ``check_types`` and two containers have different types.
    """
    try:
        _check_same(nest1, nest2, check_types, "")
    except (ValueError, TypeError) as err:
        raise type(err)("The two structures don't have the same nested structure.\n\n"
                        "First structure: %r\n\nSecond structure: %r\n\n"
                        "More specifically: %s" % (nest1, nest2, err)) from None


def map_structure(func, *structures, check_types=True):
    """Applies ``func`` to corresponding leaves of ``structures``.

    Args:
        func: A callable taking ``len(structures)`` leaves.
        *structures: At least one structure, all nested the same way.
        check_types: Passed to ``assert_same_structure``.

    Returns:
        A structure like ``structures[0]`` holding ``func``'s results.

    Raises:
        TypeError: If ``func`` is not callable or no structure is given.
        ValueError: If the structures are not nested the same way.
    """
    if not callable(func):
        raise TypeError("func must be callable, got %s: %r" % (type(func).__name__, func))
    if not structures:
        raise TypeError("map_structure needs at least one structure")
    for other in structures[1:]:
        assert_same_structure(structures[0], other, check_types=check_types)
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [func(*leaves) for leaves in zip(*flats)])


def _make_packer(structure, offset):
    """Returns (pack_fn reading ``values[offset:offset + count]``, count)."""
    if not is_nested(structure):
        return operator.itemgetter(offset), 1
    packers = []
    count = 0
    for child in _children(structure):
        packer, child_count = _make_packer(child, offset + count)
        packers.append(packer)
        count += child_count
    end = offset + count
    all_leaves = all(not is_nested(child) for child in _children(structure))
    if isinstance(structure, collections.abc.Mapping):
        keys = _sorted_keys(structure)
        position = {key: i for i, key in enumerate(keys)}
        if type(structure) is dict and list(structure) == keys and all_leaves:
            return (lambda v: dict(zip(keys, v[offset:end]))), count
        # Rebuild in the instance's own key order, as pack_sequence_as does.
        ordered = [(key, packers[position[key]]) for key in structure]
        if type(structure) is dict:
            return (lambda v: {key: p(v) for key, p in ordered}), count
        cls = type(structure)
        if isinstance(structure, collections.defaultdict):
            factory = structure.default_factory
            return (lambda v: cls(factory, [(key, p(v)) for key, p in ordered])), count
        return (lambda v: cls([(key, p(v)) for key, p in ordered])), count
    cls = type(structure)
    if _is_namedtuple(structure):
        if all_leaves:
            return (lambda v: cls(*v[offset:end])), count
        return (lambda v: cls(*[p(v) for p in packers])), count
    if cls is list:
        if all_leaves:
            return (lambda v: list(v[offset:end])), count
        return (lambda v: [p(v) for p in packers]), count
    if all_leaves:
        return (lambda v: cls(v[offset:end])), count
    return (lambda v: cls([p(v) for p in packers])), count


def flatten_with_packer(structure):
    """Flattens ``structure`` and precomputes how to rebuild it.

    The packer does no checking: it must be given a list or tuple with exactly one value
    per leaf, in the order of the returned flat list. Use it on hot paths where the
    structure is fixed and only the values change.

    Args:
        structure: A leaf or nested structure.

    Returns:
        A pair ``(flat, pack_fn)``: ``flat == flatten(structure)`` and
        ``pack_fn(values)`` equals ``pack_sequence_as(structure, values)``.

    Raises:
        TypeError: If a mapping has keys that cannot be sorted.
    """
    flat = flatten(structure)
    if not is_nested(structure):
        return flat, operator.itemgetter(0)
    if type(structure) in (list, tuple) and len(flat) == len(structure) and not any(
            is_nested(child) for child in structure):
        return flat, type(structure)
    return flat, _make_packer(structure, 0)[0]
