"""``tf.compat`` and the TensorFlow import aliases.

* ``tf.compat.as_bytes / as_text / as_str / as_str_any / path_to_str`` and
  ``tf.compat.v1`` / ``tf.compat.v2`` (both this package: estimator_npu is TF1's API, and
  what it has of TF2's lives under the same names).
* ``install()`` / ``uninstall()``: make ``import tensorflow``, ``tensorflow.compat.v1``,
  ``tensorflow.python.*``, ``tensorflow.contrib.*``, ``npu_bridge.*`` and ``hccl.*``
  resolve to estimator_npu, for notebooks and tests; ``estimator-npu run SCRIPT.py`` does it
  for a whole script. Importing estimator_npu alone never touches ``sys.modules``'
  ``tensorflow``.
"""
import numbers
import os

import numpy as _np

import estimator_npu as _package
from estimator_npu.compat.finder import install, is_installed, uninstall  # noqa: F401
from estimator_npu.engine.shape import dimension_at_index, dimension_value  # noqa: F401

v1 = _package
v2 = _package

bytes_or_text_types = (bytes, str)
integral_types = (numbers.Integral, _np.integer)
real_types = (numbers.Real, _np.integer, _np.floating)
complex_types = (numbers.Complex, _np.number)


def as_bytes(bytes_or_text, encoding="utf-8"):
    """``bytes`` of a ``str`` (encoded with ``encoding``), ``bytes`` or ``bytearray``.

    Raises:
        TypeError: for any other type, as TF does.
    """
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError("Expected binary or unicode string, got %r" % (bytes_or_text,))


def as_text(bytes_or_text, encoding="utf-8"):
    """``str`` of a ``bytes`` (decoded with ``encoding``) or ``str``.

    Raises:
        TypeError: for any other type, as TF does.
    """
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, (bytes, bytearray)):
        return bytes(bytes_or_text).decode(encoding)
    raise TypeError("Expected binary or unicode string, got %r" % (bytes_or_text,))


as_str = as_text


def as_str_any(value):
    """``as_str(value)`` for bytes, ``str(value)`` for anything else."""
    if isinstance(value, (bytes, bytearray)):
        return as_str(value)
    return str(value)


def path_to_str(path):
    """The ``str`` of an ``os.PathLike`` (``pathlib.Path``); other values unchanged."""
    if isinstance(path, os.PathLike):
        return as_str_any(os.fspath(path))
    return path



__all__ = ["as_bytes", "as_text", "as_str", "as_str_any", "path_to_str", "v1", "v2",
           "bytes_or_text_types", "integral_types", "real_types", "complex_types",
           "install", "uninstall", "is_installed", "dimension_value", "dimension_at_index"]
