"""TF1's deprecated aliases of TF 0.x names that TF1 still has (``tf.all_variables``,
``tf.initialize_local_variables``, ``tf.initialize_variables``); ``tf.initialize_all_variables``
sits with the variable ops. Names TF 1.0 removed outright are in ``missing.RENAMED_IN_TF1``."""
from estimator_npu.engine.ops.state_ops import (global_variables, local_variables_initializer,
                                                variables_initializer)


def all_variables():
    """Deprecated TF1 alias of ``tf.global_variables()``."""
    return global_variables()


def initialize_local_variables():
    """Deprecated TF1 alias of ``tf.local_variables_initializer()``."""
    return local_variables_initializer()


def initialize_variables(var_list, name="init"):
    """Deprecated TF1 alias of ``tf.variables_initializer(var_list, name)``."""
    return variables_initializer(var_list, name=name)
