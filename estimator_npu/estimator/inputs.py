"""Calling ``input_fn`` and reading what it returns.

``input_fn`` may declare any of ``params``, ``mode``, ``config`` (it gets those) and must
return either a ``Dataset`` — wrapped here in an initializable iterator, whose initializer
a hook runs right after the session is created (and which the device loop can drive) —
or ``(features, labels)``, or ``features`` alone. A dataset element is likewise
``(features, labels)`` or ``features``.
"""
from estimator_npu import data
from estimator_npu.engine.graph import Operation, Tensor
from estimator_npu.estimator.model_fn_call import fn_args
from estimator_npu.hooks.session_run_hook import PRIORITY_WRITER, SessionRunHook
from estimator_npu.utils import nest, validation

INPUT_FN_ARGS = ("params", "mode", "config")


class DatasetInitializerHook(SessionRunHook):
    """Runs an iterator's ``initializer`` once the session exists (before other hooks)."""

    priority = PRIORITY_WRITER

    def __init__(self, iterator):
        self.iterator = iterator

    def after_create_session(self, session, coord):
        session.run(self.iterator.initializer)


def call_input_fn(input_fn, mode, params, config):
    """Calls ``input_fn`` with the arguments it declares among ``params, mode, config``."""
    validation.check_callable("input_fn", input_fn)
    names = fn_args(input_fn)
    values = {"params": params, "mode": mode, "config": config}
    return input_fn(**{k: values[k] for k in INPUT_FN_ARGS if k in names})


def _check_tensors(what, structure):
    for leaf in nest.flatten(structure):
        if not isinstance(leaf, Tensor) and not hasattr(leaf, "_as_tensor"):
            kind = "an Operation" if isinstance(leaf, Operation) else type(leaf).__name__
            raise TypeError(f"input_fn must return tensors; {what} contains {kind}: {leaf!r}")


def parse_input_fn_result(result):
    """``(features, labels, hooks)`` from what ``input_fn`` returned.

    Raises:
        ValueError: a tuple/list that is not ``(features, labels)``.
        TypeError: a result that is not a Dataset or tensors.
    """
    hooks = []
    if isinstance(result, data.Dataset):
        iterator = data.make_initializable_iterator(result)
        hooks.append(DatasetInitializerHook(iterator))
        result = iterator.get_next()
    if isinstance(result, (list, tuple)):
        if len(result) != 2:
            raise ValueError("input_fn should return (features, labels) as a len 2 tuple, got "
                             f"a {type(result).__name__} of length {len(result)}")
        features, labels = result
    else:
        features, labels = result, None
    if features is None:
        raise ValueError("input_fn returned no features (None)")
    _check_tensors("features", features)
    if labels is not None:
        _check_tensors("labels", labels)
    return features, labels, hooks
