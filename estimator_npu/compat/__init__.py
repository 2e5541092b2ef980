"""``tf.compat`` and the TensorFlow import aliases.

* ``tf.compat.as_bytes / as_text / as_str / as_str_any / path_to_str`` and
  ``tf.compat.v1`` (this package: estimator_npu is TF1's API) / ``tf.compat.v2`` (a view
  of this package whose names are the package's, except where TF2 changed a name's
  meaning: ``tf.compat.v2.image.resize`` is TF2's resize; ``import tensorflow.compat.v2``
  still gives the package itself).
* ``install()`` / ``uninstall()``: make ``import tensorflow``, ``tensorflow.compat.v1``,
  ``tensorflow.python.*``, ``tensorflow.contrib.*``, ``npu_bridge.*`` and ``hccl.*``
  resolve to estimator_npu, for notebooks and tests; ``estimator-npu run SCRIPT.py`` does it
  for a whole script. Importing estimator_npu alone never touches ``sys.modules``'
  ``tensorflow``.
"""
import numbers
import os
import types

import numpy as _np

import estimator_npu as _package
from estimator_npu.compat.finder import install, is_installed, uninstall  # noqa: F401
from estimator_npu.engine.shape import dimension_at_index, dimension_value  # noqa: F401

v1 = _package


class _View(types.ModuleType):
    """A module offering ``base``'s names, with ``overrides`` taking precedence."""

    def __init__(self, name, base, overrides):
        super().__init__(name, getattr(base, "__doc__", None))
        self._base = base
        self.__dict__.update(overrides)

    def __getattr__(self, attr):
        return getattr(self.__dict__["_base"], attr)

    def __dir__(self):
        return sorted(set(dir(self._base)) | set(self.__dict__) - {"_base"})


def _v2_view():
    from estimator_npu import image
    from estimator_npu.images.resize_ops import resize_images_v2
    return _View("estimator_npu.compat.v2", _package, {
        "image": _View("estimator_npu.compat.v2.image", image, {"resize": resize_images_v2})})


def __getattr__(attr):  # ``v2`` built on first use: the package is still importing here
    if attr == "v2":
        view = globals()["v2"] = _v2_view()
        return view
    raise AttributeError(f"module 'estimator_npu.compat' has no attribute {attr!r}")

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
