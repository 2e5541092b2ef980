"""Checking and calling ``model_fn``: it gets exactly the arguments it declares.

``model_fn(features, labels, mode, params, config)`` may declare any subset of these names
(``features`` is required). The Estimator checks the signature when it is constructed:

* no ``features`` → ``ValueError``;
* ``params`` given to the Estimator but not declared → ``ValueError``;
* a name outside the five (and ``self``) → ``ValueError``;
* ``labels`` not declared but ``input_fn`` returned labels → ``ValueError`` at call time.
"""
import functools
import inspect

from estimator_npu.estimator.model_fn import EstimatorSpec
from estimator_npu.utils import logging, validation

VALID_MODEL_FN_ARGS = frozenset(["features", "labels", "mode", "params", "self", "config"])


def fn_args(fn):
    """The names of the parameters of ``fn`` that a caller can pass by keyword.

    Arguments bound by ``functools.partial`` and ``self`` of bound methods are excluded;
    ``*args``/``**kwargs`` are not names.
    """
    if isinstance(fn, functools.partial):
        bound = set(fn.keywords or {})
        names = fn_args(fn.func)[len(fn.args):]
        return tuple(n for n in names if n not in bound)
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError) as e:
        raise TypeError(f"cannot read the signature of {fn!r}: {e}") from None
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return tuple(p.name for p in sig.parameters.values() if p.kind in kinds)


def verify_model_fn_args(model_fn, params):
    """Checks the signature of ``model_fn`` (see the module docstring).

    Raises:
        TypeError: ``model_fn`` is not callable.
        ValueError: a signature the Estimator cannot call.
    """
    validation.check_callable("model_fn", model_fn)
    args = set(fn_args(model_fn))
    if "features" not in args:
        raise ValueError(f"model_fn ({model_fn}) must include features argument.")
    if params is not None and "params" not in args:
        raise ValueError(f"model_fn ({model_fn}) does not include params argument, required "
                         f"by Estimator to pass params ({params}).")
    if params is None and "params" in args:
        logging.warning("Estimator's model_fn (%s) includes params argument, but params are "
                        "not passed to Estimator.", model_fn)
    unknown = sorted(args - VALID_MODEL_FN_ARGS)
    if unknown:
        raise ValueError(f"model_fn ({model_fn}) has following not expected args: {unknown}; "
                         f"accepted: {sorted(VALID_MODEL_FN_ARGS - {'self'})}")


def call_model_fn(model_fn, features, labels, mode, params, config):
    """Calls ``model_fn`` with the arguments it declares; returns its ``EstimatorSpec``.

    Raises:
        ValueError: ``labels`` given to a ``model_fn`` without a labels argument, or a
            result that is not an ``EstimatorSpec``, or one for another mode.
    """
    args = fn_args(model_fn)
    kwargs = {}
    if "labels" in args:
        kwargs["labels"] = labels
    elif labels is not None:
        raise ValueError("model_fn does not take labels, but input_fn returns labels.")
    for name, value in (("mode", mode), ("params", params), ("config", config)):
        if name in args:
            kwargs[name] = value
    logging.info("Calling model_fn.")
    spec = model_fn(features=features, **kwargs)
    logging.info("Done calling model_fn.")
    if not isinstance(spec, EstimatorSpec):
        raise ValueError(f"model_fn should return an EstimatorSpec, got "
                         f"{type(spec).__name__}: {spec!r}")
    if spec.mode != mode:
        raise ValueError(f"model_fn was called with mode={mode!r} but returned an "
                         f"EstimatorSpec for mode={spec.mode!r}")
    return spec
