"""``tf.initializers``: TF1's short names for the initializer classes and the
variable-initializer ops (re-exports only)."""
from estimator_npu.engine.init_ops import Constant as constant  # noqa: F401
from estimator_npu.engine.init_ops import Ones as ones  # noqa: F401
from estimator_npu.engine.init_ops import RandomNormal as random_normal  # noqa: F401
from estimator_npu.engine.init_ops import RandomUniform as random_uniform  # noqa: F401
from estimator_npu.engine.init_ops import TruncatedNormal as truncated_normal  # noqa: F401
from estimator_npu.engine.init_ops import VarianceScaling as variance_scaling  # noqa: F401
from estimator_npu.engine.init_ops import Zeros as zeros  # noqa: F401
from estimator_npu.engine.init_ops import glorot_normal_initializer as glorot_normal  # noqa
from estimator_npu.engine.init_ops import glorot_uniform_initializer as glorot_uniform  # noqa
from estimator_npu.engine.init_ops import (he_normal, he_uniform, lecun_normal,  # noqa: F401
                                           lecun_uniform)
from estimator_npu.engine.ops.state_ops import global_variables_initializer as global_variables  # noqa
from estimator_npu.engine.ops.state_ops import local_variables_initializer as local_variables  # noqa
from estimator_npu.engine.ops.state_ops import variables_initializer as variables  # noqa: F401
from estimator_npu.math_ops_extra.variable_utils import Orthogonal as orthogonal  # noqa: F401
