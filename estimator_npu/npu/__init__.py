"""The Ascend adapter's names (``npu_bridge``), as ``estimator_npu.npu``.

``from estimator_npu.npu import util`` replaces ``from npu_bridge.estimator.npu import util``;
``from estimator_npu.npu.npu_init import *`` replaces ``from npu_bridge.npu_init import *``.
"""
from estimator_npu.distribute import local_rank as get_local_rank_id  # noqa: F401
from estimator_npu.distribute import rank as get_rank_id  # noqa: F401
from estimator_npu.distribute import size as get_rank_size  # noqa: F401
from estimator_npu.estimator import NPURunConfig  # noqa: F401
from estimator_npu.hooks.broadcast_hook import (NPUBroadcastGlobalVariablesHook,  # noqa: F401
                                                broadcast_global_variables)
from estimator_npu.npu import hccl, hccl_ops, util  # noqa: F401
from estimator_npu.npu.npu_estimator import NPUEstimator  # noqa: F401
from estimator_npu.train.distributed_optimizer import NPUDistributedOptimizer  # noqa: F401
from estimator_npu.train.loss_scale import (ExponentialUpdateLossScaleManager,  # noqa: F401
                                            FixedLossScaleManager, LossScaleManager)
from estimator_npu.train.loss_scale_optimizer import NPULossScaleOptimizer  # noqa: F401
from estimator_npu.train.npu_optimizer import NPU_OPTIMIZERS, NPUOptimizer  # noqa: F401
