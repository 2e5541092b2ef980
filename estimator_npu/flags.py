"""``tf.flags`` / ``tf.app.flags``: absl-py's flags, as in TF1.

Every public name of ``absl.flags`` is here (``FLAGS``, ``DEFINE_string/integer/float/
boolean/bool/list/enum/multi_string/...``, ``mark_flag_as_required``, ``Error``, ...), with
TF1's two additions: the ``DEFINE_*`` functions also accept TF's old keyword names
(``flag_name``, ``default_value``, ``docstring``), and reading a flag before anything parsed
the command line parses ``sys.argv`` first (TF1 scripts read ``FLAGS.x`` without
``tf.app.run``). ``FLAGS`` shares its flags with ``absl.flags.FLAGS``.
"""
import functools as _functools
import sys as _sys
import types as _types

from absl import flags as _absl_flags

_RENAMED_ARGUMENTS = {"flag_name": "name", "default_value": "default", "docstring": "help"}


def _accept_old_names(define):
    @_functools.wraps(define)
    def wrapper(*args, **kwargs):
        for old, new in _RENAMED_ARGUMENTS.items():
            if old in kwargs:
                kwargs[new] = kwargs.pop(old)
        return define(*args, **kwargs)
    return wrapper


for _name in dir(_absl_flags):
    _value = getattr(_absl_flags, _name)
    if _name.startswith("_") or isinstance(_value, _types.ModuleType):
        continue
    globals()[_name] = _accept_old_names(_value) if _name.startswith("DEFINE") else _value


class _FlagValuesWrapper:
    """``FLAGS``: absl's ``FlagValues``, parsing ``sys.argv`` on the first read of a flag if
    nothing has parsed it yet."""

    def __init__(self, flag_values):
        self.__dict__["_wrapped"] = flag_values

    def __getattr__(self, name):
        wrapped = self.__dict__["_wrapped"]
        if not wrapped.is_parsed():
            wrapped(_sys.argv)
        return getattr(wrapped, name)

    def __setattr__(self, name, value):
        setattr(self.__dict__["_wrapped"], name, value)

    def __delattr__(self, name):
        delattr(self.__dict__["_wrapped"], name)

    def __dir__(self):
        return dir(self.__dict__["_wrapped"])

    def __getitem__(self, name):
        return self.__dict__["_wrapped"][name]

    def __setitem__(self, name, flag):
        self.__dict__["_wrapped"][name] = flag

    def __delitem__(self, name):
        del self.__dict__["_wrapped"][name]

    def __contains__(self, name):
        return name in self.__dict__["_wrapped"]

    def __iter__(self):
        return iter(self.__dict__["_wrapped"])

    def __len__(self):
        return len(self.__dict__["_wrapped"])

    def __call__(self, *args, **kwargs):
        return self.__dict__["_wrapped"](*args, **kwargs)


FLAGS = _FlagValuesWrapper(_absl_flags.FLAGS)
del _name, _value
