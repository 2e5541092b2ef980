"""Argument checks with precise messages, for every public entry point.

Each check names the argument, shows the value received and says what is accepted, and
returns the value (normalized to a plain Python type where that is safe), so a
constructor reads::

    self.iterations_per_loop = check_positive_int("iterations_per_loop", value)

Type problems raise ``TypeError``; a value of the right type outside the accepted range
or set raises ``ValueError``. ``bool`` is never accepted where an int is expected
(``True`` is an ``int`` in Python, but ``iterations_per_loop=True`` is a bug).
"""

import numbers

import numpy as np


def _type_names(types):
    if isinstance(types, type):
        return types.__name__
    names = [t.__name__ for t in types]
    if len(names) <= 1:
        return names[0] if names else "an instance of no type"
    return " or ".join([", ".join(names[:-1]), names[-1]])


def _describe(value):
    return "%s: %r" % (type(value).__name__, value)


def check_type(name, value, types):
    """Checks that ``value`` is an instance of ``types``.

    Args:
        name: The argument name used in the message.
        value: The value to check.
        types: A type or a tuple of types, as for ``isinstance``.

    Returns:
        ``value`` unchanged.

    Raises:
        TypeError: If ``value`` is not an instance of ``types``.
    """
    if not isinstance(value, types):
        raise TypeError("%s must be %s, got %s" % (name, _type_names(types), _describe(value)))
    return value


def _is_int(value):
    return (isinstance(value, (numbers.Integral, np.integer))
            and not isinstance(value, (bool, np.bool_)))


def check_int(name, value):
    """Checks that ``value`` is an integer (Python or numpy, not a bool).

    Args:
        name: The argument name used in the message.
        value: The value to check.

    Returns:
        ``value`` as a Python ``int``.

    Raises:
        TypeError: If ``value`` is not an integer, or is a bool.
    """
    if not _is_int(value):
        raise TypeError("%s must be an int, got %s" % (name, _describe(value)))
    return int(value)


def check_positive_int(name, value, allow_zero=False):
    """Checks that ``value`` is an integer greater than 0 (or >= 0 with ``allow_zero``).

    Args:
        name: The argument name used in the message.
        value: The value to check.
        allow_zero: Whether 0 is accepted.

    Returns:
        ``value`` as a Python ``int``.

    Raises:
        TypeError: If ``value`` is not an integer, or is a bool.
        ValueError: If ``value`` is negative, or 0 when ``allow_zero`` is False.
    """
    value = check_int(name, value)
    if value < 0 or (value == 0 and not allow_zero):
        accepted = "a non-negative int (>= 0)" if allow_zero else "a positive int (> 0)"
        raise ValueError("%s must be %s, got %d" % (name, accepted, value))
    return value


def check_non_negative_int(name, value):
    """Checks that ``value`` is an integer >= 0; see ``check_positive_int``.

    Args:
        name: The argument name used in the message.
        value: The value to check.

    Returns:
        ``value`` as a Python ``int``.

    Raises:
        TypeError: If ``value`` is not an integer, or is a bool.
        ValueError: If ``value`` is negative.
    """
    return check_positive_int(name, value, allow_zero=True)


def check_positive_number(name, value, allow_zero=False):
    """Checks that ``value`` is a finite real number > 0 (or >= 0 with ``allow_zero``).

    Args:
        name: The argument name used in the message.
        value: The value to check (int, float or numpy scalar; not a bool).
        allow_zero: Whether 0 is accepted.

    Returns:
        ``value`` as a Python ``float``.

    Raises:
        TypeError: If ``value`` is not a real number, or is a bool.
        ValueError: If ``value`` is not finite, negative, or 0 when not ``allow_zero``.
    """
    if (not isinstance(value, (numbers.Real, np.integer, np.floating))
            or isinstance(value, (bool, np.bool_))):
        raise TypeError("%s must be a number (int or float), got %s" % (name, _describe(value)))
    result = float(value)
    if not np.isfinite(result) or result < 0 or (result == 0 and not allow_zero):
        accepted = "a finite number >= 0" if allow_zero else "a finite number > 0"
        raise ValueError("%s must be %s, got %r" % (name, accepted, value))
    return result


def check_bool(name, value):
    """Checks that ``value`` is a bool (Python or numpy).

    Args:
        name: The argument name used in the message.
        value: The value to check.

    Returns:
        ``value`` as a Python ``bool``.

    Raises:
        TypeError: If ``value`` is not a bool (0 and 1 are not accepted).
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError("%s must be a bool, got %s" % (name, _describe(value)))
    return bool(value)


def _matches(value, choice):
    # True == 1 in Python; a bool only matches a bool.
    if isinstance(value, (bool, np.bool_)) != isinstance(choice, (bool, np.bool_)):
        return False
    try:
        return bool(value == choice)
    except (TypeError, ValueError):  # e.g. arrays, whose == is elementwise
        return False


def check_one_of(name, value, choices):
    """Checks that ``value`` equals one of ``choices``.

    Args:
        name: The argument name used in the message.
        value: The value to check.
        choices: An iterable of accepted values.

    Returns:
        The matching choice (so ``numpy.str_("a")`` comes back as ``"a"``).

    Raises:
        ValueError: If ``value`` equals none of ``choices``.
    """
    choices = list(choices)
    for choice in choices:
        if _matches(value, choice):
            return choice
    raise ValueError("%s must be one of %r, got %r" % (name, choices, value))


def check_callable(name, value):
    """Checks that ``value`` is callable.

    Args:
        name: The argument name used in the message.
        value: The value to check.

    Returns:
        ``value`` unchanged.

    Raises:
        TypeError: If ``value`` is not callable.
    """
    if not callable(value):
        raise TypeError("%s must be callable, got %s" % (name, _describe(value)))
    return value


def ragged_description(value, max_depth=8):
    """Where a nested Python sequence stops being rectangular, e.g. ``"rows of length
    [3, 2] at depth 1"`` (``None`` when it is rectangular or not a sequence)."""
    level = [value]
    for depth in range(max_depth):
        lengths = []
        nxt = []
        for item in level:
            if isinstance(item, (list, tuple)):
                lengths.append(len(item))
                nxt.extend(item)
            elif isinstance(item, np.ndarray) and item.ndim:
                lengths.append(len(item))
                nxt.extend(list(item))
            else:
                lengths.append(None)
        if len(set(lengths)) > 1:
            shown = ["scalar" if n is None else n for n in lengths[:10]]
            more = ", ..." if len(lengths) > 10 else ""
            return (f"elements at depth {depth} have lengths "
                    f"[{', '.join(str(n) for n in shown)}{more}]")
        if not nxt or lengths[0] is None:
            return None
        level = nxt
    return None


def unconvertible_leaf(value, max_items=100000):
    """The first leaf of a nested list/tuple that is not a number, bool, string, bytes or
    numpy value (``(found, leaf)``), for messages about values a tensor cannot hold."""
    stack = [value]
    seen = 0
    while stack and seen < max_items:
        item = stack.pop()
        seen += 1
        if isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
        elif isinstance(item, np.ndarray):
            if item.dtype == object:
                stack.extend(reversed(item.ravel().tolist()))
        elif not isinstance(item, (numbers.Number, str, bytes, np.generic, np.bool_)) and (
                isinstance(item, type) or not any(hasattr(type(item), a) for a in (
                    "__array__", "__index__", "__float__", "__int__"))):
            return True, item
    return False, None
