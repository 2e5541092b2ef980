"""The import hook behind ``estimator_npu.compat.install()``: TensorFlow, npu_bridge and
hccl module paths resolve to alias modules whose names come from estimator_npu.

Lifecycle::

    install()     put AliasFinder first on sys.meta_path
    import tensorflow.compat.v1 as tf      -> AliasModule "tensorflow" (targets: estimator_npu)
    tf.nn.relu    -> AliasModule "tensorflow.nn" (targets: estimator_npu.nn) -> the function
    tf.losses.cosine_distance              -> NotImplementedName (an AttributeError)
    uninstall()   remove the finder and every alias module from sys.modules

An ``AliasModule`` holds no names of its own: ``__getattr__`` looks a name up in its target
modules in order (importing a target's submodule when the target is a package), caches it,
and wraps a module it finds in the alias of the same path, so ``tf.X.Y`` always answers
with TF's spelling in its errors.
"""
import importlib
import importlib.abc
import importlib.machinery
import sys
import types

from estimator_npu.compat import aliases
from estimator_npu.utils import logging as ulogging
from estimator_npu.compat.missing import NotImplementedModule, NotImplementedName, display_name


def _is_root(name):
    return name.partition(".")[0] in aliases.ROOTS


def _canonical(name):
    return aliases.SAME_AS.get(name, name)


def _permissive(name):
    return name.rpartition(".")[0] in aliases.PERMISSIVE_PACKAGES


def _lookup(target, name):
    """``(True, value)`` for ``target.name`` (an attribute, or a submodule of a package
    target), else ``(False, None)``."""
    module = importlib.import_module(target)
    try:
        return True, getattr(module, name)
    except AttributeError:
        pass
    if hasattr(module, "__path__"):
        full = f"{target}.{name}"
        try:
            return True, importlib.import_module(full)
        except ModuleNotFoundError as e:
            if e.name != full:
                raise
    return False, None


def _is_our_module(value):
    return isinstance(value, types.ModuleType) and (
        value.__name__ == "estimator_npu" or value.__name__.startswith("estimator_npu."))


def resolve_targets(name):
    """The target module names of the alias ``name``, or ``None`` if there is none."""
    name = _canonical(name)
    if name in aliases.TARGETS:
        return list(aliases.TARGETS[name])
    parent, _, leaf = name.rpartition(".")
    if not parent:
        return None
    parent_targets = resolve_targets(parent)
    if parent_targets is None:
        return None
    for target in parent_targets:
        found, value = _lookup(target, leaf)
        if found and _is_our_module(value):
            if _permissive(name):
                return [value.__name__] + [t for t in parent_targets if t != value.__name__]
            return [value.__name__]
    return list(parent_targets) if _permissive(name) else None


class AliasModule(types.ModuleType):
    """A TensorFlow / npu_bridge module path whose names come from estimator_npu modules."""

    def __init__(self, name, targets):
        super().__init__(name)
        self.__dict__["_alias_targets"] = tuple(targets)
        self.__path__ = []
        first = sys.modules.get(targets[0]) if targets else None
        if first is not None:
            self.__doc__ = first.__doc__
            if getattr(first, "__file__", None):
                self.__file__ = first.__file__
        extra = aliases.EXTRA_ATTRIBUTES.get(name)
        if extra is not None:
            source = importlib.import_module(extra[0])
            for attr in extra[1]:
                self.__dict__[attr] = getattr(source, attr)

    def __getattr__(self, name):
        if name == "__all__":
            return self._public_names()
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        if self.__name__ in aliases.MODULE_PACKAGES:
            value = importlib.import_module(f"{self.__name__}.{name}")
            self.__dict__[name] = value
            return value
        for target in self._alias_targets:
            found, value = _lookup(target, name)
            if not found:
                continue
            if _is_our_module(value):
                value = importlib.import_module(f"{self.__name__}.{name}")
            self.__dict__[name] = value
            return value
        raise NotImplementedName(f"{display_name(self.__name__)}.{name}")

    def _public_names(self):
        names = []
        for target in self._alias_targets:
            module = importlib.import_module(target)
            public = getattr(module, "__all__", None)
            if public is None:
                public = [n for n in dir(module) if not n.startswith("_")]
            names += [n for n in public if n not in names]
        return names

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._public_names()))

    def __repr__(self):
        return (f"<module {self.__name__!r} (estimator_npu alias of "
                f"{', '.join(self._alias_targets) or 'nothing yet'})>")


class AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds and creates the alias modules (see the module docstring)."""

    provides_tensorflow_aliases = True  # read by npu_init's ``tf``

    def find_spec(self, fullname, path=None, target=None):
        if not _is_root(fullname):
            return None
        if _canonical(fullname) == fullname and resolve_targets(fullname) is None:
            raise NotImplementedModule(display_name(fullname))
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        canonical = _canonical(spec.name)
        if canonical != spec.name:
            return importlib.import_module(canonical)
        if "." not in spec.name:
            # importing TensorFlow (npu_bridge, hccl: through it) sets up TF's logger
            ulogging.start_tensorflow_output()
        return AliasModule(spec.name, resolve_targets(spec.name))

    def exec_module(self, module):
        """Nothing to run: an alias module looks its names up on demand."""


_FINDER = AliasFinder()
_saved = {}


def is_installed():
    return _FINDER in sys.meta_path


def install():
    """Makes ``tensorflow``, ``npu_bridge`` and ``hccl`` importable as estimator_npu
    (idempotent). Modules of those names already imported are set aside until
    ``uninstall()``."""
    if is_installed():
        return
    for name in [n for n in sys.modules if _is_root(n)]:
        _saved[name] = sys.modules.pop(name)
    sys.meta_path.insert(0, _FINDER)


def uninstall():
    """Undoes ``install()``: the finder and every alias module go; modules set aside come
    back."""
    while _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    for name in [n for n in sys.modules if _is_root(n)]:
        if isinstance(sys.modules[name], AliasModule):
            del sys.modules[name]
    sys.modules.update(_saved)
    _saved.clear()
    ulogging.stop_tensorflow_output()
