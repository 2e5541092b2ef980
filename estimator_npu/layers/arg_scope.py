"""TF-Slim's ``arg_scope``: default keyword arguments for decorated layer functions::

    with arg_scope([conv2d, fully_connected], activation_fn=tf.nn.relu,
                   weights_regularizer=l2_regularizer(1e-4)) as sc:
        net = conv2d(x, 32, [3, 3])        # gets activation_fn and weights_regularizer
    with arg_scope(sc):                     # re-enter a saved scope
        ...

Only functions decorated with ``add_arg_scope`` take part; arguments given in the call
win over the scope's, and inner scopes over outer ones.
"""
import contextlib
import functools

_STACK = [{}]


def _key(op):
    return getattr(op, "_key_op", None)


def current_arg_scope():
    return _STACK[-1]


@contextlib.contextmanager
def arg_scope(list_ops_or_scope, **kwargs):
    """Sets defaults ``kwargs`` for every op in ``list_ops_or_scope`` (or re-enters a dict
    yielded by an earlier ``arg_scope``).

    Raises:
        TypeError: ``list_ops_or_scope`` is neither a list/tuple nor a dict.
        ValueError: an op is not decorated with ``add_arg_scope``, or a saved scope is
            re-entered with extra keyword arguments.
    """
    if isinstance(list_ops_or_scope, dict):
        if kwargs:
            raise ValueError("When attempting to re-use a scope by suppling a dictionary, "
                             "kwargs must be empty.")
        scope = dict(list_ops_or_scope)
    else:
        if not isinstance(list_ops_or_scope, (list, tuple)):
            raise TypeError("list_ops_or_scope must either be a list/tuple or reused scope "
                            f"(i.e. dict), got {type(list_ops_or_scope).__name__}")
        scope = {k: dict(v) for k, v in current_arg_scope().items()}
        for op in list_ops_or_scope:
            key = _key(op)
            if key is None:
                raise ValueError(f"{getattr(op, '__name__', op)} is not decorated with "
                                 "@add_arg_scope")
            merged = dict(scope.get(key, {}))
            merged.update(kwargs)
            scope[key] = merged
    _STACK.append(scope)
    try:
        yield scope
    finally:
        _STACK.pop()


def add_arg_scope(func):
    """Makes ``func`` read its default keyword arguments from the enclosing ``arg_scope``."""
    key = f"{func.__module__}.{func.__qualname__}"

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        defaults = current_arg_scope().get(key)
        if defaults:
            kwargs = {**defaults, **kwargs}
        return func(*args, **kwargs)

    wrapper._key_op = key
    return wrapper


def has_arg_scope(func):
    return _key(func) in current_arg_scope()


def arg_scoped_arguments(func):
    import inspect
    return list(inspect.signature(func).parameters)
