"""``tf.contrib.framework``: global-step and variable-collection helpers of TF1's contrib."""
from estimator_npu.engine.ops.state_ops import (global_variables,  # noqa: F401
                                                local_variables, model_variables,
                                                trainable_variables)
from estimator_npu.engine.variable_scope import get_variable  # noqa: F401
from estimator_npu.train.training_util import (assert_global_step,  # noqa: F401
                                               create_global_step, get_global_step,
                                               get_or_create_global_step)
from estimator_npu.layers.arg_scope import (add_arg_scope, arg_scope,  # noqa: F401
                                            arg_scoped_arguments, current_arg_scope,
                                            has_arg_scope)
from estimator_npu.layers.slim_layers import (get_model_variables,  # noqa: F401
                                              get_trainable_variables, get_variables,
                                              get_variables_by_name,
                                              get_variables_to_restore, model_variable,
                                              variable)
from estimator_npu.train.checkpoint_utils import assign_from_checkpoint_fn  # noqa: F401
from estimator_npu.utils import nest  # noqa: F401
from estimator_npu.math_ops_extra.array_extra import argsort, sort  # noqa: F401,E402



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
