"""TF's small Python utilities that libraries built on TF import from
``tensorflow.python.util`` (``tf_contextlib``, ``tf_decorator``, ``tf_inspect``,
``deprecation``, ``all_util``, ``tf_export``): plain-Python equivalents, so a library such
as ``tf_slim`` gets past its imports."""
import contextlib
import functools
import inspect

contextmanager = contextlib.contextmanager

# tf_inspect
ArgSpec = inspect.FullArgSpec
FullArgSpec = inspect.FullArgSpec
getfullargspec = inspect.getfullargspec
signature = inspect.signature
isclass = inspect.isclass
isfunction = inspect.isfunction
ismethod = inspect.ismethod
isroutine = inspect.isroutine
isgeneratorfunction = inspect.isgeneratorfunction
getmembers = inspect.getmembers
getmodule = inspect.getmodule
getsource = inspect.getsource
getfile = inspect.getfile
getdoc = inspect.getdoc
getcallargs = inspect.getcallargs
ismodule = inspect.ismodule
currentframe = inspect.currentframe
stack = inspect.stack
Parameter = inspect.Parameter


def getargspec(obj):
    """``(args, varargs, keywords, defaults)`` of a callable, as TF's tf_inspect returns."""
    spec = inspect.getfullargspec(obj)
    return inspect.ArgInfo(spec.args, spec.varargs, spec.varkw, spec.defaults) \
        if hasattr(inspect, "ArgInfo") else (spec.args, spec.varargs, spec.varkw,
                                             spec.defaults)


# tf_decorator
class TFDecorator:
    """A decorated callable that remembers its target (``tf_decorator.TFDecorator``)."""

    def __init__(self, decorator_name, target, decorator_doc="", decorator_argspec=None):
        self.decorator_name = decorator_name
        self.decorated_target = target
        functools.update_wrapper(self, target)

    def __call__(self, *args, **kwargs):
        return self.decorated_target(*args, **kwargs)


def make_decorator(target, decorator_func, decorator_name=None, decorator_doc="",
                   decorator_argspec=None):
    """``decorator_func`` with ``target``'s name, doc and ``__wrapped__``."""
    functools.update_wrapper(decorator_func, target)
    return decorator_func


def unwrap(maybe_tf_decorator):
    """``([decorators], target)``: no decorator is tracked here."""
    return [], inspect.unwrap(maybe_tf_decorator)


def rewrap(decorator_func, previous_target, new_target):
    return decorator_func


# deprecation: the decorators return the function unchanged (no warnings).
def deprecated(date=None, instructions=None, warn_once=True):
    return lambda func: func


def deprecated_args(date=None, instructions=None, *deprecated_arg_names_or_tuples,
                    **kwargs):
    return lambda func: func


def deprecated_arg_values(date=None, instructions=None, warn_once=True, **deprecated_kwargs):
    return lambda func: func


def deprecated_endpoints(*args):
    return lambda func: func


def deprecated_alias(deprecated_name, name, func_or_class, warn_once=True):
    return func_or_class


def deprecated_argument_lookup(new_name, new_value, old_name, old_value):
    """``new_value``, or ``old_value`` when only the old name was given."""
    if old_value is not None:
        if new_value is not None:
            raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'")
        return old_value
    return new_value


@contextlib.contextmanager
def silence():
    yield


# all_util / tf_export
def remove_undocumented(module_name, allowed_exception_list=None, doc_string_modules=None):
    """No-op: nothing is removed from the module."""


class tf_export:  # noqa: N801 - TF's name
    """No-op ``@tf_export(...)`` decorator."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, func):
        return func


keras_export = estimator_export = tf_export
