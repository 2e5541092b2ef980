"""``tf.contrib.framework``: global-step and variable-collection helpers of TF1's contrib."""
from estimator_npu.engine.ops.state_ops import (global_variables,  # noqa: F401
                                                local_variables, model_variables,
                                                trainable_variables)
from estimator_npu.engine.variable_scope import get_variable  # noqa: F401
from estimator_npu.train.training_util import (assert_global_step,  # noqa: F401
                                               create_global_step, get_global_step,
                                               get_or_create_global_step)
from estimator_npu.utils import nest  # noqa: F401


def get_variables(scope=None, suffix=None, collection="variables"):
    """The variables of ``collection`` whose name starts with ``scope`` and (optionally)
    ends with ``suffix``."""
    from estimator_npu.engine.graph import get_collection
    if hasattr(scope, "name"):
        scope = scope.name
    out = get_collection(collection, scope)
    if suffix is not None:
        out = [v for v in out if v.op.name.endswith(suffix)]
    return out


def get_model_variables(scope=None, suffix=None):
    """``get_variables`` of the ``model_variables`` collection."""
    return get_variables(scope, suffix, "model_variables")


def get_trainable_variables(scope=None, suffix=None):
    """``get_variables`` of the ``trainable_variables`` collection."""
    return get_variables(scope, suffix, "trainable_variables")


def get_variables_by_name(given_name, scope=None):
    """The variables whose name (after its scope) is ``given_name``."""
    return [v for v in get_variables(scope) if v.op.name.split("/")[-1] == given_name]


def get_unique_variable(var_op_name):
    """The one variable named ``var_op_name``; ``ValueError`` if none or several."""
    found = [v for v in get_variables() if v.op.name == var_op_name]
    if len(found) != 1:
        raise ValueError(f"Couldn't find a unique variable {var_op_name!r}: found "
                         f"{len(found)}")
    return found[0]


def __getattr__(name):
    """Names TF1 also exports from ``tf.contrib.framework`` that live in the slim / layers
    contrib modules (``arg_scope``, ``add_arg_scope``, ``get_variables_to_restore``, ...)
    are taken from there when those modules exist."""
    import importlib
    from estimator_npu.compat.missing import NotImplementedName
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    for sibling in ("slim", "layers"):
        try:
            module = importlib.import_module(f"estimator_npu.contrib.{sibling}")
        except ModuleNotFoundError:
            continue
        if name in getattr(module, "__dict__", {}):
            return module.__dict__[name]
    raise NotImplementedName(f"tf.contrib.framework.{name}")
